#!/usr/bin/env node
// Runs the MCP conformance suite's server scenarios against `mcp-harness serve --http` (the built
// dist/cli.js), for each protocol revision the server speaks: 2026-07-28 (stateless, per-request
// _meta) and 2025-11-25, 2025-06-18, 2025-03-26 (initialize and sessions).
//
//   node test/conformance/server.mjs [--verbose] [--all] [scenario ...]
//   CONFORMANCE_REVISIONS=2026-07-28 node test/conformance/server.mjs    (only some revisions)
//
// The suite cannot send a bearer token, and our server requires one, so it talks to the server
// through a loopback proxy that adds the Authorization header and passes everything else (Host,
// Origin, bodies, SSE streams) through unchanged: the Host/Origin checks under test are the
// server's own. Scenarios that need the suite's own fixture tools, resources or prompts
// (test_simple_text, test_prompt_with_image, ...) do not apply to MCP Harness and are not run unless
// --all is given; inside an applicable scenario, a check the suite reports as "Not testable" (it
// needs such a fixture tool) is listed apart and counts neither way. Results land in
// test-results/conformance-server/<revision>/. Exits 1 when a check of an applicable scenario failed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { capture, run, runMain } from './capture.mjs';

/**
 * Scenarios a server with only its own tools must pass (each runs at every revision the suite has
 * it for), and the serve mode each runs against: caching hints cover the resource and prompt lists
 * too, which only the gateway offers.
 */
const APPLICABLE = {
  'server-initialize': 'tools',
  'server-session-lifecycle': 'tools',
  ping: 'tools',
  'tools-list': 'tools',
  'server-sse-multiple-streams': 'tools',
  'dns-rebinding-protection': 'tools',
  'server-stateless': 'tools',
  'http-header-validation': 'tools',
  'input-required-result-unsupported-methods': 'tools',
  'input-required-result-validate-input': 'tools',
  caching: 'gateway',
};
/** Revisions `serve` speaks (SDK 2.x server: 2026-07-28 per request, the 2025-era ones with sessions) that the suite has scenarios for. */
const REVISIONS = (process.env.CONFORMANCE_REVISIONS || '2026-07-28,2025-11-25,2025-06-18,2025-03-26').split(',');
/** A check the suite could not exercise for want of its own fixture tools: reported, neither passed nor failed. */
const NOT_TESTABLE = /^Not testable\b/;
const NODE24 = join(process.env.MCP_HARNESS_CACHE || join(homedir(), '.cache', 'mcp-harness'), 'node-24.22.3', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
const TOKEN = 'conformance-server-token';

const root = fileURLToPath(new URL('../..', import.meta.url));
const resultsDir = join(root, 'test-results', 'conformance-server');
const suiteCli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance-next', 'dist', 'index.js');
const log = (line) => process.stderr.write(`[conformance-server] ${line}\n`);

async function main(argv) {
  const verbose = argv.includes('--verbose');
  const all = argv.includes('--all');
  const named = argv.filter((a) => !a.startsWith('--'));
  const node = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : NODE24;
  if (!existsSync(node)) throw new Error(`the suite needs Node 22+; not found at ${node} (run npm run toolchain)`);
  if (!existsSync(suiteCli)) throw new Error(`${suiteCli} is missing: npm install`);
  run(process.execPath, ['esbuild.mjs'], 'build', root);
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });

  const targets = {};
  const outcomes = [];
  try {
    for (const [mode, extra] of [['tools', []], ['gateway', ['--gateway']]]) {
      const proxy = await startProxy();
      const serve = await startServe(proxy.port, mode, extra);
      proxy.target(serve.port);
      targets[mode] = { url: `http://127.0.0.1:${proxy.port}/mcp`, stop: async () => (await serve.stop(), await proxy.close()) };
      log(`serve${extra.map((a) => ` ${a}`).join('')} on 127.0.0.1:${serve.port}, suite talks to ${targets[mode].url}`);
    }
    for (const revision of REVISIONS) {
      const listed = listScenarios(node, revision);
      const scenarios = named.length > 0 ? named : all ? listed : Object.keys(APPLICABLE).filter((s) => listed.includes(s));
      for (const scenario of scenarios) {
        if (!listed.includes(scenario)) continue;
        const mode = APPLICABLE[scenario] ?? 'tools';
        outcomes.push(await runScenario(node, targets[mode].url, revision, scenario, mode, verbose));
      }
    }
  } finally {
    for (const target of Object.values(targets)) await target.stop();
  }
  return report(outcomes);
}

/** The server scenarios the suite has for `revision`. */
function listScenarios(node, revision) {
  const result = spawnSync(node, [suiteCli, 'list', '--server', '--spec-version', revision], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`conformance list failed: ${result.stderr}`);
  return [...result.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

async function runScenario(node, url, revision, scenario, mode, verbose) {
  const out = join(resultsDir, revision);
  mkdirSync(out, { recursive: true });
  const args = [suiteCli, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '-o', out];
  const { code, output } = await capture(node, args, root);
  writeFileSync(join(out, `${scenario}.log`), output);
  if (verbose) process.stderr.write(output);
  const all = readChecks(out, scenario);
  const untestable = (c) => c.status === 'FAILURE' && NOT_TESTABLE.test(c.errorMessage ?? c.description ?? '');
  const checks = all?.filter((c) => !untestable(c));
  const count = (status) => checks?.filter((c) => c.status === status).length ?? 0;
  const problems = [];
  if (!checks) problems.push(`no checks.json (suite exited with ${code}); see ${relative(root, join(out, `${scenario}.log`))}`);
  for (const c of checks ?? []) if (c.status === 'FAILURE') problems.push(`${c.id}: ${c.errorMessage ?? c.description}`);
  for (const c of checks ?? []) if (c.status === 'WARNING') problems.push(`(warning) ${c.id}: ${c.errorMessage ?? c.description}`);
  for (const c of all?.filter(untestable) ?? []) problems.push(`(not testable here) ${c.id}`);
  const failed = count('FAILURE');
  const notTestable = all?.filter(untestable).length ?? 0;
  return { revision, scenario, mode, passed: count('SUCCESS'), failed, warnings: count('WARNING'), notTestable, ok: !!checks && failed === 0, problems };
}

function readChecks(out, scenario) {
  const dirs = readdirSync(out, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith(`server-${scenario}-`) && /^\d/.test(d.name.slice(scenario.length + 8)))
    .map((d) => d.name)
    .sort();
  const file = dirs.length > 0 && join(out, dirs.at(-1), 'checks.json');
  return file && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
}

function report(outcomes) {
  let passed = 0;
  let total = 0;
  for (const o of outcomes) {
    passed += o.passed;
    total += o.passed + o.failed + o.warnings;
    const extra = o.notTestable ? `, ${o.notTestable} not testable` : '';
    console.log(`${o.ok ? 'ok  ' : 'FAIL'} ${o.revision} ${`${o.scenario}${o.mode === 'gateway' ? ' (gateway)' : ''}`.padEnd(44)} ${o.passed} passed, ${o.failed} failed, ${o.warnings} warnings${extra}`);
    for (const p of o.problems) console.log(`       ${p}`);
  }
  const failed = outcomes.filter((o) => !o.ok).length;
  console.log(`results and logs: ${relative(root, resultsDir)}/`);
  console.log(`conformance (server mode): ${passed}/${total} checks passed in ${outcomes.length} scenario runs${failed ? `; ${failed} FAILED` : ''}`);
  return failed > 0 || outcomes.length === 0 ? 1 : 0;
}

/** `mcp-harness serve --http 127.0.0.1:0` in a scratch workspace (no servers configured); resolves its port once it listens. */
async function startServe(proxyPort, mode, extra) {
  const workspace = mkdtempSync(join(tmpdir(), 'conformance-serve-'));
  writeFileSync(join(workspace, 'README.md'), '# scratch workspace\n');
  const args = [join(root, 'dist', 'cli.js'), 'serve', '--http', '127.0.0.1:0', ...extra, '--workspace', workspace, '--audit-log', join(workspace, 'audit.jsonl'), '--allow-origin', `http://127.0.0.1:${proxyPort}`];
  const child = spawn(process.execPath, args, { env: { ...process.env, MCP_HARNESS_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving MCP on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    writeFileSync(join(resultsDir, `serve-${mode}.stderr.log`), stderr);
    rmSync(workspace, { recursive: true, force: true });
  };
  return { port, stop };
}

/** A loopback proxy that adds the bearer token and changes nothing else. */
async function startProxy() {
  let upstream = 0;
  const server = http.createServer((req, res) => {
    const forward = http.request(
      { host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${TOKEN}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502).end(err.message);
      else res.destroy();
    });
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    target: (port) => (upstream = port),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

runMain(main, log);
