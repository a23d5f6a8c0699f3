#!/usr/bin/env node
// Gateway overhead: the time `mcp-harness serve --gateway` adds to one tool call, against calling
// the same server directly, over stdio and over Streamable HTTP. The same bare SDK client makes
// every call, so only the path differs:
//
//   stdio  direct:  client -stdio-> fixture               gateway: client -stdio-> serve -stdio-> fixture
//   http   direct:  client -http->  fixture (--http)      gateway: client -http->  serve -stdio-> fixture
//
// and the same again with the SDK's 2.x client, which speaks 2026-07-28 to the gateway (stateless,
// `_meta` on every request): stdio-2026 (direct leg: the fixture, which speaks 2025-11-25) and
// http-2026 (direct leg: the 2026-07-28 fixture modern.mjs over HTTP).
//
// Rounds are interleaved; per-call latencies are pooled and the medians (and p90) reported.
//
//   node bench/gateway.mjs [--json] [--quick]
//
// Needs dist/ (npm run build). A measurement, not a test: exits 0 whether or not the target
// (< 1 ms added at the median) is met, 1 only if it broke. Prints a table and one JSON line last.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';

const argv = process.argv.slice(2);
const jsonOnly = argv.includes('--json');
const quick = argv.includes('--quick');
const ROUNDS = quick ? 3 : 5;
const CALLS = { stdio: quick ? 300 : 1000, http: quick ? 100 : 300 };
CALLS['stdio-2026'] = CALLS.stdio;
CALLS['http-2026'] = CALLS.http;
const TARGET_MS = 1;
const FIXTURE = fileURLToPath(new URL('../test/fixtures/servers/fixture.mjs', import.meta.url));
const MODERN_FIXTURE = fileURLToPath(new URL('../test/fixtures/servers/modern.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const TOKEN = 'bench-gateway-token';

const progress = (line) => process.stderr.write(`[bench:gateway] ${line}\n`);
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const quantile = (xs, q) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * (xs.length - 1)))];
const round3 = (x) => Math.round(x * 1000) / 1000;

const cleanups = [];
async function cleanupAll() {
  while (cleanups.length > 0) await cleanups.pop()().catch((err) => progress(`cleanup: ${err.message}`));
}

async function connect(transport, name) {
  const client = new Client({ name, version: '1.0.0' });
  cleanups.push(() => client.close());
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** The 2.x client: `mode` 'legacy' (a 2025-era server) or pinned to 2026-07-28. */
async function connectModern(transport, name, mode) {
  const client = new ModernClient({ name, version: '1.0.0' }, { versionNegotiation: { mode } });
  cleanups.push(() => client.close());
  await client.connect(transport);
  await client.listTools();
  return client;
}

function stdio(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
  transport.stderr.on('data', () => undefined);
  return transport;
}

/** A process in its own group that prints `pattern` once it listens; killed as a group at the end. */
async function startListening(args, pattern, env = {}) {
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  cleanups.push(async () => {
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, 3000);
    await exited;
    clearTimeout(timer);
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = pattern.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

/** Per-call latencies (ms) of `count` sequential echo calls. */
async function latencies(client, tool, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const result = await client.callTool({ name: tool, arguments: { text: `hello ${i}` } });
    times.push(performance.now() - started);
    if (result.isError || result.content[0].text !== `hello ${i}`) throw new Error(`${tool} did not echo: ${JSON.stringify(result)}`);
  }
  return times;
}

async function compare(kind, direct, gateway) {
  await latencies(direct, 'echo', CALLS[kind]); // warm-up
  await latencies(gateway, 'mcp__fix__echo', CALLS[kind]);
  const pooled = { direct: [], gateway: [] };
  const roundDeltas = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? ['direct', 'gateway'] : ['gateway', 'direct'];
    const medians = {};
    for (const which of order) {
      const times = await latencies(which === 'direct' ? direct : gateway, which === 'direct' ? 'echo' : 'mcp__fix__echo', CALLS[kind]);
      pooled[which].push(...times);
      medians[which] = quantile(times, 0.5);
    }
    roundDeltas.push(medians.gateway - medians.direct);
  }
  const result = {
    calls: CALLS[kind] * ROUNDS,
    directMedianMs: round3(quantile(pooled.direct, 0.5)),
    gatewayMedianMs: round3(quantile(pooled.gateway, 0.5)),
    addedMedianMs: round3(quantile(pooled.gateway, 0.5) - quantile(pooled.direct, 0.5)),
    addedRoundsMs: roundDeltas.map(round3),
    directP90Ms: round3(quantile(pooled.direct, 0.9)),
    gatewayP90Ms: round3(quantile(pooled.gateway, 0.9)),
  };
  result.meetsTarget = result.addedMedianMs < TARGET_MS;
  progress(`${kind}: direct ${result.directMedianMs} ms, gateway ${result.gatewayMedianMs} ms, added ${result.addedMedianMs} ms at the median (rounds ${result.addedRoundsMs.join(', ')})`);
  return result;
}

async function main() {
  const workspace = mkdtempSync(join(tmpdir(), 'bench-gateway-'));
  cleanups.push(async () => rmSync(workspace, { recursive: true, force: true }));
  mkdirSync(join(workspace, '.harness'));
  writeFileSync(join(workspace, '.harness', 'mcp.json'), JSON.stringify({ servers: { fix: { command: process.execPath, args: [FIXTURE] } } }));
  const serveArgs = [CLI, 'serve', '--gateway', '--workspace', workspace, '--audit-log', join(workspace, 'audit.jsonl')];

  const results = {};
  {
    const direct = await connect(stdio([FIXTURE]), 'bench-direct');
    const gateway = await connect(stdio(serveArgs), 'bench-gateway');
    results.stdio = await compare('stdio', direct, gateway);
  }
  {
    const fixturePort = await startListening([FIXTURE, '--http=0'], /listening (\d+)/);
    const gatewayUrl = await startListening([...serveArgs, '--http', '127.0.0.1:0'], /serving MCP on (http:\S+)/, { MCP_HARNESS_TOKEN: TOKEN });
    const direct = await connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${fixturePort}/mcp`)), 'bench-direct');
    const gateway = await connect(
      new StreamableHTTPClientTransport(new URL(gatewayUrl), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }),
      'bench-gateway',
    );
    results.http = await compare('http', direct, gateway);
  }
  {
    const pin = { pin: '2026-07-28' };
    const direct = await connectModern(new ModernStdioTransport({ command: process.execPath, args: [FIXTURE], stderr: 'ignore' }), 'bench-direct', 'legacy');
    const gateway = await connectModern(new ModernStdioTransport({ command: process.execPath, args: serveArgs, stderr: 'ignore' }), 'bench-gateway', pin);
    results['stdio-2026'] = await compare('stdio-2026', direct, gateway);
  }
  {
    const pin = { pin: '2026-07-28' };
    const modernPort = await startListening([MODERN_FIXTURE, '--http=0'], /listening (\d+)/);
    const gatewayUrl = await startListening([...serveArgs, '--http', '127.0.0.1:0'], /serving MCP on (http:\S+)/, { MCP_HARNESS_TOKEN: TOKEN });
    const direct = await connectModern(new ModernHttpTransport(new URL(`http://127.0.0.1:${modernPort}/mcp`)), 'bench-direct', pin);
    const gateway = await connectModern(new ModernHttpTransport(new URL(gatewayUrl), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }), 'bench-gateway', pin);
    results['http-2026'] = await compare('http-2026', direct, gateway);
  }
  return { targetAddedMedianMs: TARGET_MS, ...results };
}

try {
  const results = await main();
  if (!jsonOnly) {
    console.log('\nGateway overhead per echo call (sequential, bare SDK client; ms)');
    console.log('transport   direct p50  gateway p50  added p50  direct p90  gateway p90  target');
    for (const kind of ['stdio', 'http', 'stdio-2026', 'http-2026']) {
      const r = results[kind];
      const cells = [r.directMedianMs, r.gatewayMedianMs, r.addedMedianMs, r.directP90Ms, r.gatewayP90Ms].map((x) => String(x).padStart(11));
      console.log(`${kind.padEnd(10)}${cells.join('')}  ${r.meetsTarget ? 'met' : 'MISSED'} (< ${TARGET_MS} ms)`);
    }
  }
  console.log(JSON.stringify({ gateway: results }));
  await cleanupAll();
} catch (err) {
  progress(`failed: ${err.stack ?? err}`);
  await cleanupAll();
  process.exitCode = 1;
}
