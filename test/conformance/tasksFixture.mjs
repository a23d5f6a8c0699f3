#!/usr/bin/env node
// Runs the conformance suite's `tasks-*` server scenarios (the `io.modelcontextprotocol/tasks`
// extension, SEP-2663) against our task fixture (test/fixtures/servers/tasks.mjs over Streamable HTTP).
// The suite checks tasks only from the server's side; this proves that the server our client's task
// tests run against speaks the extension as the suite reads it. Every scenario the suite lists with
// that extension id runs; a scenario the suite itself skips (it says why) counts neither way.
//
//   node test/conformance/tasksFixture.mjs [--verbose]
//
// Results land in test-results/conformance-tasks/. Exits 1 when a check failed or a scenario ran none.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { capture, runMain } from './capture.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const resultsDir = join(root, 'test-results', 'conformance-tasks');
const suiteCli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance-next', 'dist', 'index.js');
const fixture = join(root, 'test', 'fixtures', 'servers', 'tasks.mjs');
const NODE24 = join(process.env.MCP_HARNESS_CACHE || join(homedir(), '.cache', 'mcp-harness'), 'node-24.22.3', 'node_modules', `node-linux-${process.arch}`, 'bin', 'node');
const log = (line) => process.stderr.write(`[conformance-tasks] ${line}\n`);

async function main(argv) {
  const verbose = argv.includes('--verbose');
  const node = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : NODE24;
  if (!existsSync(node)) throw new Error(`the suite needs Node 22+; not found at ${node} (run npm run toolchain)`);
  rmSync(resultsDir, { recursive: true, force: true });
  mkdirSync(resultsDir, { recursive: true });
  const listing = await capture(node, [suiteCli, 'list', '--server'], root);
  const scenarios = [...listing.output.matchAll(/^\s+- (tasks-\S+) \[extension\]/gm)].map((m) => m[1]);
  if (scenarios.length === 0) throw new Error(`the suite lists no tasks scenarios:\n${listing.output}`);
  const server = await startFixture();
  let failed = 0;
  let passed = 0;
  let total = 0;
  try {
    for (const scenario of scenarios) {
      const { output } = await capture(node, [suiteCli, 'server', '--url', server.url, '--scenario', scenario, '-o', resultsDir], resultsDir);
      if (verbose) process.stderr.write(output);
      const checks = readChecks(scenario);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      const ok = checks.filter((c) => c.status === 'SUCCESS').length;
      const skipped = checks.filter((c) => c.status === 'SKIPPED');
      passed += ok;
      total += ok + bad.length;
      const verdict = bad.length || checks.length === 0 ? 'FAIL ' : ok ? 'ok   ' : 'skip ';
      if (verdict === 'FAIL ') failed++;
      console.log(`${verdict} ${scenario.padEnd(34)} ${ok} passed, ${bad.length} failed${skipped.length ? `, skipped by the suite: ${skipped.map((c) => c.errorMessage).join('; ')}` : ''}`);
      for (const c of bad) console.log(`       ${c.id}: ${c.errorMessage ?? c.description}`);
      if (checks.length === 0) console.log('       the scenario ran no checks');
    }
  } finally {
    await server.stop();
  }
  console.log(`tasks fixture: ${scenarios.length - failed}/${scenarios.length} scenarios without a failure, ${passed}/${total} checks`);
  return failed ? 1 : 0;
}

function readChecks(scenario) {
  const dir = readdirSync(resultsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name.startsWith(`server-${scenario}-`) && /^\d/.test(d.name.slice(scenario.length + 8)))
    .map((d) => d.name)
    .sort()
    .at(-1);
  const file = dir && join(resultsDir, dir, 'checks.json');
  if (!file || !existsSync(file)) return [];
  const checks = JSON.parse(readFileSync(file, 'utf8'));
  return Array.isArray(checks) ? checks : [];
}

async function startFixture() {
  const child = spawn(process.execPath, [fixture, '--http=0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the task fixture exited with ${code}`)));
  });
  log(`task fixture on 127.0.0.1:${port}`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => new Promise((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', resolve), child.kill('SIGKILL')))),
  };
}

runMain(main, log);
