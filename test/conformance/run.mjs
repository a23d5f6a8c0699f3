#!/usr/bin/env node
// Runs the MCP conformance suite's client scenarios against our client (test/conformance/client.ts).
//
//   node test/conformance/run.mjs [--verbose] [--extensions] [scenario ...]
//
// Without scenarios it also runs, under the newest suite (the `conformance-next` alias), every
// client scenario of the 2025-11-25 and 2026-07-28 requirement lists, each at its revision; the
// 2026-07-28 list against expected-failures-2026-07-28.yaml, which names what fails today and why.
// A failing scored check, or a listed failure that now passes, fails the run. Last it reports the
// `extensions` scenarios (opt-in extensions); those in REQUIRED_EXTENSIONS (the ones we implement)
// fail the run when they do not pass, the others are reported only. `--extensions` runs only those.
//
// The suite's CLI needs Node 22 or later; our client runs on the Node that runs this script (20)
// when it can. Results land in test-results/conformance/<scenario>-<time>/checks.json. Exits 1 when
// any check failed, a scenario left no results, or the client crashed or timed out.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { capture, run, runMain } from './capture.mjs';
import { parseChecks } from './checks.mjs';

const SCENARIOS = ['initialize', 'tools_call', 'sse-retry', 'elicitation-sep1034-client-defaults'];
/**
 * Extension scenarios the client implements: each must pass (client credentials, SEP-1046;
 * enterprise-managed authorization, SEP-990; workload identity federation, SEP-1933; DPoP, SEP-1932;
 * server skills, SEP-2640).
 */
const REQUIRED_EXTENSIONS = [
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  'auth/enterprise-managed-authorization',
  'auth/wif-jwt-bearer',
  'auth/dpop',
  'auth/dpop-nonce',
  // Server skills, SEP-2640.
  'sep-2640-client-no-prefetch',
  'sep-2640-client-verify-digest',
  'sep-2640-client-verify-size',
  'sep-2640-client-verify-frontmatter',
];
const NODE24_VERSION = '24.22.3';
const CLIENT_TIMEOUT_MS = 30_000;

const root = fileURLToPath(new URL('../..', import.meta.url));
const resultsDir = join(root, 'test-results', 'conformance');
const suiteCli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const nextSuiteCli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance-next', 'dist', 'index.js');
const REQUIREMENT_LISTS = [
  { revision: '2025-11-25' },
  { revision: '2026-07-28', expectedFailures: join(root, 'test', 'conformance', 'expected-failures-2026-07-28.yaml') },
];
const clientBundle = join(root, 'dist', 'conformance-client.js');

const log = (line) => process.stderr.write(`[conformance] ${line}\n`);

async function main(argv) {
  const verbose = argv.includes('--verbose');
  const scenarios = argv.filter((a) => !a.startsWith('--'));
  const node24 = await findNode24();
  log(`suite runs on ${node24}`);
  run(process.execPath, ['esbuild.mjs'], 'build', root);
  const clientNode = clientRunsOn(process.execPath) ? process.execPath : node24;
  log(`client runs on ${clientNode === process.execPath ? `this Node (${process.version})` : node24}`);

  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  if (argv.includes('--extensions')) return (await reportExtensions(node24, clientNode, verbose)) ? 0 : 1;
  const outcomes = [];
  for (const scenario of scenarios.length > 0 ? scenarios : SCENARIOS) {
    outcomes.push(await runScenario(scenario, node24, clientNode, verbose));
  }
  const code = report(outcomes);
  if (scenarios.length > 0) return code;
  let listsFailed = 0;
  for (const list of REQUIREMENT_LISTS) if (!(await runRequirementList(list, node24, clientNode, verbose))) listsFailed++;
  if (!(await reportExtensions(node24, clientNode, verbose))) listsFailed++;
  return code || (listsFailed > 0 ? 1 : 0);
}

/**
 * One requirement list under the newest suite, one scenario at a time at the list's revision (in
 * parallel, as the suite would run them, a 2-core machine starves the clients into timeouts).
 * Resolves whether every scenario passed, apart from the expected failures, which must still fail.
 */
async function runRequirementList({ revision, expectedFailures }, node24, clientNode, verbose) {
  const listing = await capture(node24, [nextSuiteCli, 'list', '--client', '--requirements', revision], root);
  const section = listing.output.split('Client scenarios')[1]?.split(/\n\s*\n/)[0] ?? '';
  const names = [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
  if (names.length === 0) throw new Error(`no client scenarios listed for ${revision}:\n${listing.output}`);
  const expected = new Set(expectedFailures ? [...readFileSync(expectedFailures, 'utf8').matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]) : []);
  const command = `${clientNode} ${relative(resultsDir, clientBundle)}`;
  const out = join(resultsDir, `requirements-${revision}`);
  let passing = 0;
  let checksPassed = 0;
  let checksTotal = 0;
  let ok = true;
  for (const name of names) {
    const { passed, failed, clean } = await runNextScenario(node24, command, name, out, revision, verbose);
    checksPassed += passed;
    checksTotal += passed + failed.length;
    if (clean) passing++;
    const verdict = expected.has(name) ? (clean ? 'STALE' : 'xfail') : clean ? 'ok   ' : 'FAIL ';
    if (verdict === 'STALE' || verdict === 'FAIL ') ok = false;
    console.log(`${verdict} ${revision} ${name.padEnd(42)} ${passed} passed, ${failed.length} failed`);
    if (verdict === 'FAIL ') for (const c of failed) console.log(`       ${c.id}: ${c.errorMessage ?? c.details?.message ?? c.description}`);
  }
  console.log(`requirements ${revision}: ${passing}/${names.length} scenarios fully passing, ${checksPassed}/${checksTotal} checks${expected.size ? ` (expected to fail: ${[...expected].join(', ')})` : ''}`);
  return ok;
}

/**
 * The suite's `extensions` scenarios (opt-in protocol extensions: DPoP, client credentials,
 * enterprise-managed authorization, skills), run one at a time at the newest revision and reported
 * with their counts. They are not part of any revision's requirements; only the ones we implement
 * (REQUIRED_EXTENSIONS) must pass. Resolves whether they all did (and were all listed).
 */
async function reportExtensions(node24, clientNode, verbose) {
  const listing = await capture(node24, [nextSuiteCli, 'list', '--client'], root);
  const names = [...listing.output.matchAll(/^\s+- (\S+) \[extension\]/gm)].map((m) => m[1]);
  const command = `${clientNode} ${relative(resultsDir, clientBundle)}`;
  const out = join(resultsDir, 'extensions');
  let passing = 0;
  let checksPassed = 0;
  let checksTotal = 0;
  let ok = true;
  for (const missing of REQUIRED_EXTENSIONS.filter((n) => !names.includes(n))) {
    console.log(`FAIL  extension  ${missing.padEnd(42)} required, but the suite no longer lists it`);
    ok = false;
  }
  for (const name of names) {
    const { passed, failed, skipped, clean } = await runNextScenario(node24, command, name, out, undefined, verbose);
    checksPassed += passed;
    checksTotal += passed + failed.length;
    if (clean && passed > 0) passing++;
    const required = REQUIRED_EXTENSIONS.includes(name);
    if (required && !(clean && passed > 0)) ok = false;
    const verdict = required ? (clean && passed > 0 ? 'ok   ' : 'FAIL ') : !clean ? 'no   ' : passed > 0 ? 'yes  ' : 'n/a  ';
    console.log(`${verdict} extension  ${name.padEnd(42)} ${passed} passed, ${failed.length} failed${skipped ? `, ${skipped} skipped` : ''}${required ? ' (required)' : ''}`);
    if (!clean) for (const c of failed) console.log(`       ${c.id}: ${c.errorMessage ?? c.details?.message ?? c.description}`);
  }
  console.log(`extensions: ${passing}/${names.length} scenarios passing, ${checksPassed}/${checksTotal} checks; required (${REQUIRED_EXTENSIONS.join(', ')}): ${ok ? 'all pass' : 'FAILED'}`);
  return ok;
}

/** One scenario under the newest suite, one client run; reads back its checks.json. */
async function runNextScenario(node24, command, name, out, revision, verbose) {
  const args = [nextSuiteCli, 'client', '--command', command, '--scenario', name, ...(revision ? ['--spec-version', revision] : []), '--timeout', String(CLIENT_TIMEOUT_MS), '-o', out];
  const { output } = await capture(node24, args, resultsDir);
  if (verbose) process.stderr.write(output);
  const dir = join(out, ...name.split('/').slice(0, -1));
  const leaf = name.split('/').at(-1);
  const last = existsSync(dir) ? readdirSync(dir).filter((d) => d.startsWith(`${leaf}-`) && /^\d/.test(d.slice(leaf.length + 1))).sort().at(-1) : undefined;
  const file = last && join(dir, last, 'checks.json');
  const { checks } = parseChecks(file && existsSync(file) ? readFileSync(file, 'utf8') : undefined, file ?? 'checks.json');
  const failed = (checks ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const passed = (checks ?? []).filter((c) => c.status === 'SUCCESS').length;
  const skipped = (checks ?? []).filter((c) => c.status === 'SKIPPED').length;
  return { passed, failed, skipped, clean: !!checks && failed.length === 0 };
}

/** Node 22+ for the suite's CLI: this one, the project's toolchain script, or a cached install. */
async function findNode24() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const fromScript = (command, args) => {
    const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
    const line = result.stdout.split('\n').find((l) => l.startsWith('N24='));
    if (!line) throw new Error(`${args.join(' ')} printed no N24= line`);
    return line.slice(4).replace(/^'(.*)'$/, '$1');
  };
  if (existsSync(join(root, 'scripts', 'toolchain.sh'))) return fromScript('bash', ['scripts/toolchain.sh', '--node24']);
  if (existsSync(join(root, 'scripts', 'toolchain.mjs'))) return fromScript(process.execPath, ['scripts/toolchain.mjs', '--node24']);
  const pkg = `node-linux-${process.arch}`;
  const prefix = join(process.env.MCP_HARNESS_CACHE || join(homedir(), '.cache', 'mcp-harness'), 'node24');
  const bin = join(prefix, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    log(`installing ${pkg}@${NODE24_VERSION} into ${prefix}`);
    run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${pkg}@${NODE24_VERSION}`], 'install Node 24');
  }
  return bin;
}

/** Whether the client bundle loads on `node` (without a URL it prints its usage and exits 2). */
function clientRunsOn(node) {
  const result = spawnSync(node, [clientBundle], { encoding: 'utf8', timeout: 15_000 });
  return result.status === 2;
}

async function runScenario(scenario, node24, clientNode, verbose) {
  const started = Date.now();
  // The suite splits --command on spaces, so the client is named relative to its working directory.
  const command = `${clientNode} ${relative(resultsDir, clientBundle)}`;
  if (command.split(' ').length !== 2) throw new Error(`paths with spaces are not supported by the suite's --command: ${command}`);
  const args = [suiteCli, 'client', '--command', command, '--scenario', scenario, '--timeout', String(CLIENT_TIMEOUT_MS), '-o', resultsDir];
  const { code, output } = await capture(node24, args, resultsDir);
  writeFileSync(join(resultsDir, `${scenario}.log`), output);
  if (verbose) process.stderr.write(output);
  const { checks, problem } = readChecks(scenario);
  const count = (status) => checks?.filter((c) => c.status === status).length ?? 0;
  const problems = [];
  if (problem) problems.push(`${problem} (suite exited with ${code}); see ${relative(root, join(resultsDir, `${scenario}.log`))}`);
  const exited = /Client exited with code (-?\d+)/.exec(output);
  if (exited) problems.push(`client exited with code ${exited[1]}`);
  if (/Client timed out/.test(output)) problems.push(`client timed out after ${CLIENT_TIMEOUT_MS} ms`);
  for (const c of checks ?? []) if (c.status === 'FAILURE') problems.push(`${c.id}: ${c.errorMessage ?? c.details?.message ?? c.description}`);
  for (const c of checks ?? []) if (c.status === 'WARNING') problems.push(`(warning) ${c.id}: ${c.errorMessage ?? c.description}`);
  return { scenario, passed: count('SUCCESS'), failed: count('FAILURE'), warnings: count('WARNING'), ok: !!checks && !problems.some((p) => !p.startsWith('(warning)')), problems, ms: Date.now() - started };
}

function readChecks(scenario) {
  const dir = readdirSync(resultsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith(`${scenario}-`) && /^\d/.test(d.name.slice(scenario.length + 1)))
    .map((d) => d.name)
    .sort()
    .at(-1);
  const file = dir && join(resultsDir, dir, 'checks.json');
  return parseChecks(file && existsSync(file) ? readFileSync(file, 'utf8') : undefined, file ? relative(root, file) : 'checks.json');
}

function report(outcomes) {
  let passed = 0;
  let total = 0;
  let warnings = 0;
  for (const o of outcomes) {
    passed += o.passed;
    total += o.passed + o.failed + o.warnings;
    warnings += o.warnings;
    const mark = o.ok ? 'ok  ' : 'FAIL';
    console.log(`${mark} ${o.scenario.padEnd(40)} ${o.passed} passed, ${o.failed} failed, ${o.warnings} warnings (${(o.ms / 1000).toFixed(1)} s)`);
    for (const p of o.problems) console.log(`       ${p}`);
  }
  const note = warnings > 0 ? `, ${warnings} warnings` : '';
  const failedScenarios = outcomes.filter((o) => !o.ok).length;
  console.log(`results and logs: ${relative(root, resultsDir)}/`);
  console.log(`conformance: ${passed}/${total} checks passed in ${outcomes.length} scenarios${note}${failedScenarios ? `; ${failedScenarios} scenarios FAILED` : ''}`);
  return failedScenarios > 0 ? 1 : 0;
}

runMain(main, log);
