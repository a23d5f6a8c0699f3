#!/usr/bin/env node
// Start-up cost of a sandboxed stdio server: from `startServer` to tools listed, through the built
// library (dist/core.js) and its launcher (dist/sandbox-launcher.mjs), for a dependency-free
// server (minimal.mjs: the sandbox's own cost stands out) and server-everything, each unsandboxed
// and with `"sandbox": true`, rounds interleaved, medians reported; then the echo rate of one
// sandboxed and one plain minimal server (MCP passes straight through the launcher's stdio).
//
//   node bench/sandbox.mjs [--rounds=N]
//
// A measurement, not a test: it prints figures and exits 0 (1 only if it broke).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { createHarness } = require('../dist/core.js');
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 7);
const CALLS = 1000;
const servers = {
  minimal: fileURLToPath(new URL('../test/fixtures/servers/minimal.mjs', import.meta.url)),
  everything: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
};

const ws = mkdtempSync(join(tmpdir(), 'bench-sandbox-'));
const entries = {};
for (const [name, script] of Object.entries(servers)) {
  entries[`${name}-plain`] = { command: process.execPath, args: [script] };
  entries[`${name}-sandboxed`] = { command: process.execPath, args: [script], sandbox: true };
}
writeFileSync(join(ws, '.mcp.json'), JSON.stringify({ mcpServers: entries }));
const harness = await createHarness({ workspaceFolder: ws, autoStart: false });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = Object.fromEntries(Object.keys(entries).map((k) => [k, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of Object.keys(entries)) {
      const t0 = performance.now();
      await harness.startServer(name);
      const state = harness.servers().find((s) => s.name === name);
      if (state.state !== 'running') throw new Error(`${name}: ${state.state} ${state.error ?? ''}`);
      times[name].push(performance.now() - t0);
      await harness.stopServer(name);
    }
  }
  console.log(`start to tools listed, median of ${ROUNDS} (ms):`);
  for (const name of Object.keys(servers)) {
    const plain = median(times[`${name}-plain`]);
    const boxed = median(times[`${name}-sandboxed`]);
    console.log(`  ${name.padEnd(11)} plain ${plain.toFixed(0).padStart(5)}   sandboxed ${boxed.toFixed(0).padStart(5)}   cost +${(boxed - plain).toFixed(0)} ms`);
  }
  console.log(`echo calls/s, ${CALLS} sequential:`);
  for (const name of ['minimal-plain', 'minimal-sandboxed']) {
    await harness.startServer(name);
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await harness.callTool(`mcp__${name}__echo`, { text: 'x' });
    console.log(`  ${name.padEnd(18)} ${(CALLS / ((performance.now() - t0) / 1000)).toFixed(0)}`);
    await harness.stopServer(name);
  }
} finally {
  await harness.dispose();
  rmSync(ws, { recursive: true, force: true });
}
