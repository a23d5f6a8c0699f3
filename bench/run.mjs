#!/usr/bin/env node
// Measures the built library (dist/core.js, what users get) in one run, so ratios are comparable on
// a noisy machine: echo calls through the harness (SDK 2.x client) against a bare 1.x SDK client
// and a bare 2.x SDK client (stdio and Streamable HTTP, sequential and 16 in flight, rounds
// interleaved, medians reported; on Linux also a bare 2.x client whose stdio server runs in its
// own session, as the harness runs it, with and without the progress token the harness sends on
// every call), parallel startup, memory per connection, and the tool registry at 10,000 tools.
//
//   node bench/run.mjs [--json] [--rounds=N] [--quick] [--only=stdio]
//
// Prints a table and, as its last line, one JSON object (`--json`: the JSON only). It is a
// measurement, not a test: it exits 0 whether or not the targets are met (1 only if it broke).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Client2, StreamableHTTPClientTransport as StreamableHTTPClientTransport2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransport2 } from '@modelcontextprotocol/client/stdio';

const require = createRequire(import.meta.url);
const { createHarness, ToolRegistry } = require('../dist/core.js');

const argv = process.argv.slice(2);
const jsonOnly = argv.includes('--json');
const quick = argv.includes('--quick');
const ROUNDS = Number(argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? (quick ? 3 : 5));
const CALLS = { stdio: quick ? 500 : 2000, http: quick ? 150 : 500 };
const IN_FLIGHT = 16;
/**
 * `sessionRatio`: the pipeline (look-up, validation, decision, audit, formatting, scan) costs at
 * most 5%, against a bare 2.x client that sends the same request (the server in its own session,
 * a progress token on every call). The plain bare 2.x client is shown beside it: the gap between
 * the two is what the progress token costs, not the pipeline.
 */
const TARGETS = { echoRatio: 0.9, sessionRatio: 0.95, parallelStartMs: 2000 };
/** `--only=stdio`: just the stdio echo comparison (its rows and JSON), for a quick look at the pipeline's cost. */
const ONLY = argv.find((a) => a.startsWith('--only='))?.split('=')[1];
const FIXTURE = fileURLToPath(new URL('../test/fixtures/servers/fixture.mjs', import.meta.url));
const MINIMAL = fileURLToPath(new URL('../test/fixtures/servers/minimal.mjs', import.meta.url));
const ECHO = 'mcp__fix__echo';
/**
 * The harness runs each stdio server in its own session (its process group is killed as one),
 * and on Linux with autogroup scheduling a session is also its own scheduling group, which on a
 * loaded machine adds wake-up latency to every round trip. A bare 2.x client whose server is
 * started through `setsid` shows that part apart from the client's own cost.
 */
const SETSID = process.platform === 'linux' ? findOnPath('setsid') : undefined;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const progress = (line) => process.stderr.write(`[bench] ${line}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const round1 = (x) => Math.round(x * 10) / 10;
const round3 = (x) => Math.round(x * 1000) / 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Everything that must be stopped, newest first; run even when a measurement throws. */
const cleanups = [];
let cleaning;
/** One pass for every caller (the signal handler and the normal end may both ask). */
function cleanupAll() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) await cleanups.pop()().catch((err) => progress(`cleanup: ${err.message}`));
  })();
  return cleaning;
}
function own(dispose) {
  cleanups.push(dispose);
  return async () => {
    const i = cleanups.indexOf(dispose);
    if (i >= 0) cleanups.splice(i, 1);
    await dispose();
  };
}

function findOnPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, name);
    if (dir && existsSync(file)) return file;
  }
  return undefined;
}

function fixtureEntry(flags = []) {
  return { command: process.execPath, args: [FIXTURE, ...flags] };
}

async function startHarness(entries) {
  const harness = await createHarness({ userServers: { label: 'bench', jsonPath: 'servers', entries }, reconnectDelaysMs: [] });
  const release = own(() => harness.dispose());
  const down = harness.servers().filter((s) => s.state !== 'running');
  if (down.length > 0) throw new Error(`servers not running: ${down.map((s) => `${s.name} (${s.error ?? s.state})`).join(', ')}`);
  return { harness, release };
}

/** A client for one echo server: `call(text)` resolves the echoed text. */
async function harnessEchoClient(entry) {
  const { harness, release } = await startHarness({ fix: entry });
  const call = async (text) => {
    const result = await harness.callTool(ECHO, { text });
    if (result.isError) throw new Error(`harness call failed: ${result.text}`);
    return result.text;
  };
  return { name: 'harness', call, close: release };
}

/** A bare SDK client, connected and with tools listed (as a plain SDK user would do). */
async function connectBare(transport) {
  const client = new Client({ name: 'bench-bare-sdk', version: '1.0.0' });
  const close = own(() => client.close()); // before connect: a failed connect may leave a process
  await client.connect(transport);
  await client.listTools();
  return { client, close };
}

/**
 * `withProgress` makes the bare client send what the harness sends on every call: a progress
 * token, so that progress notifications can reset the timeout. It shows what the harness's own
 * layers cost, apart from that choice.
 */
async function bareEchoClient(transport, withProgress = false) {
  const { client, close } = await connectBare(transport);
  const options = withProgress ? { onprogress: () => undefined, resetTimeoutOnProgress: true } : undefined;
  const call = async (text) => {
    const result = await client.callTool({ name: 'echo', arguments: { text } }, undefined, options);
    if (result.isError) throw new Error(`bare SDK call failed: ${JSON.stringify(result.content)}`);
    return result.content[0].text;
  };
  return { name: withProgress ? 'bareProgress' : 'bare', call, close };
}

/** A bare 2.x SDK client with the same version negotiation as the harness (probe, then fall back). */
async function bare2EchoClient(transport, name = 'bare2', withProgress = false) {
  const client = new Client2({ name: 'bench-bare-sdk-2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const close = own(() => client.close());
  await client.connect(transport);
  await client.listTools();
  const options = withProgress ? { onprogress: () => undefined, resetTimeoutOnProgress: true } : undefined;
  const call = async (text) => {
    const result = await client.callTool({ name: 'echo', arguments: { text } }, options);
    if (result.isError) throw new Error(`bare 2.x SDK call failed: ${JSON.stringify(result.content)}`);
    return result.content[0].text;
  };
  return { name, call, close };
}

function bare2StdioTransport(ownSession = false) {
  const command = ownSession ? SETSID : process.execPath;
  const args = ownSession ? [process.execPath, FIXTURE] : [FIXTURE];
  const transport = new StdioClientTransport2({ command, args, stderr: 'pipe' });
  transport.stderr.on('data', () => undefined);
  return transport;
}

function bareStdioTransport(flags = []) {
  return stdioTransportFor([FIXTURE, ...flags]);
}

function stdioTransportFor(args) {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
  transport.stderr.on('data', () => undefined); // unread stderr slows close() to seconds
  return transport;
}

/** Calls per second, and this process's CPU per call, for `count` calls with `inFlight` outstanding at a time. */
async function measure(client, count, inFlight) {
  let next = 0;
  const worker = async () => {
    while (next < count) await client.call(`hello ${next++}`);
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: count / seconds, cpuUs: (used.user + used.system) / count };
}

/**
 * Interleaved rounds of both clients (who goes first alternates); medians of each and of the
 * per-round ratio. Client CPU per call is this process's CPU time, a steadier signal than wall
 * time on a busy machine.
 */
async function compareEcho(transport, harness, bare, bareProgress, bare2, bare2Session, bare2SessionProgress) {
  const clients = [harness, bare, bareProgress, bare2, ...(bare2Session ? [bare2Session, bare2SessionProgress] : [])];
  for (const client of clients) {
    if ((await client.call('check')) !== 'check') throw new Error(`${client.name} did not echo`);
    await measure(client, CALLS[transport], 1);
    await measure(client, CALLS[transport], IN_FLIGHT);
  }
  const result = {};
  for (const [mode, inFlight] of [['sequential', 1], [`inFlight${IN_FLIGHT}`, IN_FLIGHT]]) {
    const runs = { harness: [], bare: [], bareProgress: [], bare2: [], bare2Session: [], bare2SessionProgress: [] };
    const ratios = [];
    const sameWorkRatios = [];
    const bare2Ratios = [];
    const bare2VsBare1 = [];
    const sessionRatios = [];
    const sameRequestRatios = [];
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate who goes first, so no client always runs on a warmer or quieter machine.
      for (let i = 0; i < clients.length; i++) {
        const client = clients[(i + r) % clients.length];
        runs[client.name].push(await measure(client, CALLS[transport], inFlight));
      }
      ratios.push(runs.harness[r].rate / runs.bare[r].rate);
      sameWorkRatios.push(runs.harness[r].rate / runs.bareProgress[r].rate);
      bare2Ratios.push(runs.harness[r].rate / runs.bare2[r].rate);
      bare2VsBare1.push(runs.bare2[r].rate / runs.bare[r].rate);
      if (bare2Session) {
        sessionRatios.push(runs.harness[r].rate / runs.bare2Session[r].rate);
        sameRequestRatios.push(runs.harness[r].rate / runs.bare2SessionProgress[r].rate);
      }
    }
    const rates = (name) => runs[name].map((x) => x.rate);
    const cpu = (name) => round1(median(runs[name].map((x) => x.cpuUs)));
    const m = {
      harnessCallsPerSec: Math.round(median(rates('harness'))),
      bareCallsPerSec: Math.round(median(rates('bare'))),
      bareProgressCallsPerSec: Math.round(median(rates('bareProgress'))),
      ratio: round3(median(ratios)),
      ratioRange: [round3(Math.min(...ratios)), round3(Math.max(...ratios))],
      sameWorkRatio: round3(median(sameWorkRatios)),
      harnessCpuUsPerCall: cpu('harness'),
      bareCpuUsPerCall: cpu('bare'),
      bareProgressCpuUsPerCall: cpu('bareProgress'),
      bare2CallsPerSec: Math.round(median(rates('bare2'))),
      bare2CpuUsPerCall: cpu('bare2'),
      ratioVsBare2: round3(median(bare2Ratios)),
      bare2VsBare1: round3(median(bare2VsBare1)),
      ...(bare2Session && {
        bare2SessionCallsPerSec: Math.round(median(rates('bare2Session'))),
        bare2SessionCpuUsPerCall: cpu('bare2Session'),
        ratioVsBare2Session: round3(median(sessionRatios)),
        ratioVsBare2SessionRange: [round3(Math.min(...sessionRatios)), round3(Math.max(...sessionRatios))],
        bare2SessionProgressCallsPerSec: Math.round(median(rates('bare2SessionProgress'))),
        bare2SessionProgressCpuUsPerCall: cpu('bare2SessionProgress'),
        ratioVsSameRequest: round3(median(sameRequestRatios)),
        ratioVsSameRequestRange: [round3(Math.min(...sameRequestRatios)), round3(Math.max(...sameRequestRatios))],
      }),
      harnessRounds: rates('harness').map(Math.round),
      bareRounds: rates('bare').map(Math.round),
    };
    result[mode] = m;
    progress(`${transport} ${mode}: harness ${m.harnessCallsPerSec}/s (${m.harnessCpuUsPerCall} us CPU), bare ${m.bareCallsPerSec}/s (${m.bareCpuUsPerCall} us CPU), ratio ${m.ratio}; bare with progress token ${m.bareProgressCallsPerSec}/s, ratio ${m.sameWorkRatio}; bare 2.x ${m.bare2CallsPerSec}/s (${m.bare2CpuUsPerCall} us CPU), ratio ${m.ratioVsBare2}${m.bare2SessionCallsPerSec === undefined ? '' : `; bare 2.x, server in its own session ${m.bare2SessionCallsPerSec}/s, ratio ${m.ratioVsBare2Session}; the same with a progress token ${m.bare2SessionProgressCallsPerSec}/s, ratio ${m.ratioVsSameRequest}`}`);
  }
  return { calls: CALLS[transport], rounds: ROUNDS, ...result };
}

async function echoStdio() {
  const harness = await harnessEchoClient(fixtureEntry());
  const bare = await bareEchoClient(bareStdioTransport());
  const bareProgress = await bareEchoClient(bareStdioTransport(), true);
  const bare2 = await bare2EchoClient(bare2StdioTransport());
  const bare2Session = SETSID ? await bare2EchoClient(bare2StdioTransport(true), 'bare2Session') : undefined;
  const bare2SessionProgress = SETSID ? await bare2EchoClient(bare2StdioTransport(true), 'bare2SessionProgress', true) : undefined;
  try {
    return await compareEcho('stdio', harness, bare, bareProgress, bare2, bare2Session, bare2SessionProgress);
  } finally {
    await Promise.all([harness.close(), bare.close(), bareProgress.close(), bare2.close(), bare2Session?.close(), bare2SessionProgress?.close()]);
  }
}

/** A fixture serving Streamable HTTP in its own process group, killed as a group. */
async function startHttpFixture() {
  const child = spawn(process.execPath, [FIXTURE, '--http=0'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = own(async () => {
    for (const signal of ['SIGTERM', 'SIGKILL']) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        return; // the group is gone
      }
      if (await Promise.race([exited.then(() => true), sleep(2000).then(() => false)])) return;
    }
  });
  child.stderr.on('data', () => undefined);
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /listening (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    exited.then((code) => reject(new Error(`HTTP fixture exited with ${code} before listening`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

async function echoHttp() {
  const server = await startHttpFixture();
  try {
    const harness = await harnessEchoClient({ type: 'http', url: server.url });
    const bare = await bareEchoClient(new StreamableHTTPClientTransport(new URL(server.url)));
    const bareProgress = await bareEchoClient(new StreamableHTTPClientTransport(new URL(server.url)), true);
    const bare2 = await bare2EchoClient(new StreamableHTTPClientTransport2(new URL(server.url)));
    try {
      return await compareEcho('http', harness, bare, bareProgress, bare2);
    } finally {
      await Promise.all([harness.close(), bare.close(), bareProgress.close(), bare2.close()]);
    }
  } finally {
    await server.stop();
  }
}

/**
 * Ten servers that each take 1 s to answer initialize, started by one createHarness; against ten
 * bare SDK clients connecting (and listing tools) at once, which shows what the machine allows:
 * each server is a Node process that needs about half a CPU-second just to load.
 */
async function parallelStartup() {
  // Two kinds of server, both answering initialize after 1 s: a dependency-free one (loads in
  // milliseconds, so the figure shows the client's concurrency) and the SDK-based fixture (each
  // spends about 0.5 CPU-seconds loading the SDK, which alone fills 2 cores for 2.5 s).
  const minimal = await startupOf(MINIMAL);
  const sdk = await startupOf(FIXTURE);
  const result = { servers: SERVERS, initDelayMs: 1000, msUntilAllRunning: minimal.harness, bareSdkMs: minimal.bare, sdkServers: sdk, minimalServers: minimal };
  progress(`${SERVERS} servers x 1 s initialize: harness ${minimal.harness} ms (bare SDK ${minimal.bare} ms); SDK-based servers: harness ${sdk.harness} ms (bare ${sdk.bare} ms)`);
  return result;
}

const SERVERS = 10;

async function startupOf(script) {
  const args = [script, '--init-delay-ms=1000'];
  const entries = Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`slow${i}`, { command: process.execPath, args }]));
  const harnessRun = async () => {
    const started = performance.now();
    const { release } = await startHarness(entries);
    const ms = performance.now() - started;
    await release();
    return ms;
  };
  const bareRun = async () => {
    const started = performance.now();
    const clients = await Promise.all(Array.from({ length: SERVERS }, () => connectBare(stdioTransportFor(args))));
    const ms = performance.now() - started;
    await Promise.all(clients.map((c) => c.close()));
    return ms;
  };
  const times = { harness: [], bare: [] };
  for (let r = 0; r < 3; r++) {
    for (const [name, run] of r % 2 === 0 ? [['harness', harnessRun], ['bare', bareRun]] : [['bare', bareRun], ['harness', harnessRun]]) {
      times[name].push(await run());
    }
  }
  return { harness: Math.round(median(times.harness)), bare: Math.round(median(times.bare)), harnessRounds: times.harness.map(Math.round), bareRounds: times.bare.map(Math.round) };
}

function vmRssKb(pid) {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : NaN;
}

async function settledMemory() {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(100);
  }
  return process.memoryUsage();
}

/** Harness process memory before and after connecting N stdio servers, and the servers' own RSS. */
async function memoryPerConnection(n = 20) {
  const warm = await harnessEchoClient(fixtureEntry()); // load and compile everything first
  await warm.call('warm');
  await warm.close();
  const before = await settledMemory();
  const entries = Object.fromEntries(Array.from({ length: n }, (_, i) => [`fix${i}`, fixtureEntry()]));
  const { harness, release } = await startHarness(entries);
  try {
    for (let i = 0; i < n; i++) await harness.callTool(`mcp__fix${i}__echo`, { text: 'x' });
    const after = await settledMemory();
    const childKb = harness.snapshots().map((s) => vmRssKb(s.pid));
    const perConnection = (key) => round1((after[key] - before[key]) / n / 1024);
    const result = {
      connections: n,
      harnessRssKbPerConnection: perConnection('rss'),
      harnessHeapUsedKbPerConnection: perConnection('heapUsed'),
      harnessRssMbBefore: round1(before.rss / 2 ** 20),
      harnessRssMbAfter: round1(after.rss / 2 ** 20),
      childRssMbMedian: round1(median(childKb) / 1024),
      childRssMbTotal: round1(childKb.reduce((a, b) => a + b, 0) / 1024),
    };
    progress(`memory: ${result.harnessRssKbPerConnection} KB RSS per connection in the harness; each server ${result.childRssMbMedian} MB`);
    return result;
  } finally {
    await release();
  }
}

/** ToolRegistry with 100 servers x 100 tools: fill, list, then resolve and validate a sample. */
function registryAt10k() {
  const SERVERS = 100;
  const TOOLS = 100;
  const SAMPLE = 100;
  const listing = (s) =>
    Array.from({ length: TOOLS }, (_, t) => ({
      name: `tool_${t}`,
      description: `Tool ${t} of server ${s}`,
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, count: { type: 'integer', minimum: 0 }, recursive: { type: 'boolean' } },
        required: ['path'],
      },
    }));
  const runs = [];
  for (let r = 0; r < 3; r++) {
    // Parsed fresh each time, as a server's listing would be.
    const listings = Array.from({ length: SERVERS }, (_, s) => JSON.parse(JSON.stringify(listing(s))));
    const relisted = listings.map((l) => JSON.parse(JSON.stringify(l)));
    const t0 = performance.now();
    const registry = new ToolRegistry();
    listings.forEach((tools, s) => registry.setServerTools(`server${s}`, tools));
    const t1 = performance.now();
    const tools = registry.getTools();
    const t2 = performance.now();
    if (tools.length !== SERVERS * TOOLS) throw new Error(`registry lists ${tools.length} tools`);
    const sample = Array.from({ length: SAMPLE }, (_, i) => tools[i * Math.floor(tools.length / SAMPLE)].name);
    const check = () => {
      for (const name of sample) {
        const resolved = registry.resolve(name);
        if (!resolved) throw new Error(`cannot resolve ${name}`);
        const problem = registry.validateArguments(resolved.tool, { path: '/tmp', count: 1 });
        if (problem) throw new Error(problem);
      }
    };
    check();
    const t3 = performance.now();
    for (let i = 0; i < 10; i++) check();
    const t4 = performance.now();
    relisted.forEach((tools, s) => registry.setServerTools(`server${s}`, tools));
    const t5 = performance.now();
    registry.dispose();
    runs.push({ fill: t1 - t0, getTools: t2 - t1, firstCheckUs: ((t3 - t2) / SAMPLE) * 1000, warmCheckUs: ((t4 - t3) / (SAMPLE * 10)) * 1000, relist: t5 - t4 });
  }
  const med = (key) => round1(median(runs.map((x) => x[key])));
  const result = {
    tools: SERVERS * TOOLS,
    setServerToolsMs: med('fill'),
    getToolsMs: med('getTools'),
    resolveValidateFirstUsPerTool: med('firstCheckUs'),
    resolveValidateWarmUsPerTool: med('warmCheckUs'),
    relistUnchangedMs: med('relist'),
    sample: SAMPLE,
  };
  progress(`registry: fill ${result.setServerToolsMs} ms, getTools ${result.getToolsMs} ms`);
  return result;
}

function verdict(ok) {
  return ok ? 'PASS' : 'FAIL';
}

function printTable(r) {
  const lines = [];
  const widths = [40, 16, 18, 20, 22, 20];
  const row = (...cells) => lines.push(cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('').trimEnd());
  lines.push(`MCP Harness benchmark (Node ${process.version}, ${r.rounds} interleaved rounds, medians)`, '');
  row('echo calls/s (client CPU us/call)', 'harness', 'bare SDK', 'ratio', 'bare + progress token', 'ratio', `target >= ${TARGETS.echoRatio}`);
  for (const transport of Object.keys(r.echo)) {
    for (const [mode, m] of Object.entries(r.echo[transport]).filter(([, v]) => typeof v === 'object' && v.ratio !== undefined)) {
      const range = `(${m.ratioRange.map((x) => x.toFixed(2)).join('-')})`;
      row(
        `  ${transport} ${mode} x${r.echo[transport].calls}`,
        `${m.harnessCallsPerSec} (${m.harnessCpuUsPerCall})`,
        `${m.bareCallsPerSec} (${m.bareCpuUsPerCall})`,
        `${m.ratio.toFixed(3)} ${range}`,
        `${m.bareProgressCallsPerSec} (${m.bareProgressCpuUsPerCall})`,
        m.sameWorkRatio.toFixed(3),
        verdict(m.ratio >= TARGETS.echoRatio),
      );
    }
  }
  lines.push('');
  row('echo calls/s, SDK generations', 'harness (2.x)', 'bare 2.x SDK', 'harness / 2.x', 'bare 1.x SDK', '2.x / 1.x');
  for (const transport of Object.keys(r.echo)) {
    for (const [mode, m] of Object.entries(r.echo[transport]).filter(([, v]) => typeof v === 'object' && v.ratio !== undefined)) {
      row(
        `  ${transport} ${mode} x${r.echo[transport].calls}`,
        `${m.harnessCallsPerSec} (${m.harnessCpuUsPerCall})`,
        `${m.bare2CallsPerSec} (${m.bare2CpuUsPerCall})`,
        m.ratioVsBare2.toFixed(3),
        `${m.bareCallsPerSec} (${m.bareCpuUsPerCall})`,
        m.bare2VsBare1.toFixed(3),
      );
    }
  }
  const session = Object.entries(r.echo.stdio).filter(([, v]) => typeof v === 'object' && v.bare2SessionCallsPerSec !== undefined);
  if (session.length > 0) {
    lines.push('');
    row('stdio, server in its own session', 'harness (2.x)', 'bare 2.x, setsid', 'harness / that', '+ progress token', 'harness / that', `target >= ${TARGETS.sessionRatio}`);
    const range = (xs) => `(${xs.map((x) => x.toFixed(2)).join('-')})`;
    for (const [mode, m] of session) {
      row(
        `  stdio ${mode} x${r.echo.stdio.calls}`,
        `${m.harnessCallsPerSec} (${m.harnessCpuUsPerCall})`,
        `${m.bare2SessionCallsPerSec} (${m.bare2SessionCpuUsPerCall})`,
        `${m.ratioVsBare2Session.toFixed(3)} ${range(m.ratioVsBare2SessionRange)}`,
        `${m.bare2SessionProgressCallsPerSec} (${m.bare2SessionProgressCpuUsPerCall})`,
        `${m.ratioVsSameRequest.toFixed(3)} ${range(m.ratioVsSameRequestRange)}`,
        verdict(m.ratioVsSameRequest >= TARGETS.sessionRatio),
      );
    }
    lines.push('  (the target is the pipeline\'s cost: against a bare client sending the same request, progress token included)');
  }
  if (!r.parallelStartup) return console.log(lines.join('\n'));
  lines.push('');
  const s = r.parallelStartup;
  row('', 'harness', 'bare SDK', '', '', '', `target < ${TARGETS.parallelStartMs} ms`);
  row(`${s.servers} servers x 1 s init, all running`, `${s.msUntilAllRunning} ms`, `${s.bareSdkMs} ms`, '', '', '', verdict(s.msUntilAllRunning < TARGETS.parallelStartMs));
  row('  the same with SDK-based servers', `${s.sdkServers.harness} ms`, `${s.sdkServers.bare} ms`);
  const m = r.memory;
  row(`harness RSS per connection (${m.connections})`, `${m.harnessRssKbPerConnection} KB`, `heap ${m.harnessHeapUsedKbPerConnection} KB`);
  row('server process RSS (each, median)', `${m.childRssMbMedian} MB`, `total ${m.childRssMbTotal} MB`);
  const g = r.registry;
  row(`registry, ${g.tools} tools: setServerTools`, `${g.setServerToolsMs} ms`);
  row('  getTools (first)', `${g.getToolsMs} ms`);
  row('  resolve+validate, first (compiles)', `${g.resolveValidateFirstUsPerTool} us/tool`);
  row('  resolve+validate, warm', `${g.resolveValidateWarmUsPerTool} us/tool`);
  row('  re-list unchanged (100 servers)', `${g.relistUnchangedMs} ms`);
  console.log(lines.join('\n'));
}

async function main() {
  const results = { node: process.version, rounds: ROUNDS, inFlight: IN_FLIGHT, targets: TARGETS };
  const modes = ['sequential', `inFlight${IN_FLIGHT}`];
  const sessionRatios = () => modes.map((m) => results.echo.stdio[m].ratioVsSameRequest).filter((x) => x !== undefined);
  if (ONLY === 'stdio') {
    results.echo = { stdio: await echoStdio() };
    results.pass = { sessionRatio: sessionRatios().every((x) => x >= TARGETS.sessionRatio) };
    if (!jsonOnly) printTable(results);
    console.log(JSON.stringify(results));
    return;
  }
  results.memory = await memoryPerConnection();
  results.echo = { stdio: await echoStdio(), http: await echoHttp() };
  results.parallelStartup = await parallelStartup();
  results.registry = registryAt10k();
  const ratios = ['stdio', 'http'].flatMap((t) => modes.map((m) => results.echo[t][m].ratio));
  results.pass = {
    echoRatio: ratios.every((x) => x >= TARGETS.echoRatio),
    sessionRatio: sessionRatios().every((x) => x >= TARGETS.sessionRatio),
    parallelStartup: results.parallelStartup.msUntilAllRunning < TARGETS.parallelStartMs,
  };
  if (!jsonOnly) printTable(results);
  console.log(JSON.stringify(results));
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void cleanupAll().finally(() => process.exit(130)));
}
let code = 0;
try {
  await main();
} catch (err) {
  progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  code = 1;
} finally {
  await cleanupAll();
}
process.exit(code);
