#!/usr/bin/env node
// Where a stdio echo call spends its time, in the harness (the built dist/core.js) or in a bare
// 2.x SDK client, and a summary of the profile by source file and function (no GUI needed).
//
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile.mjs harness|bare2|bare2progress [calls] [inFlight]
//   node bench/profile.mjs --summary /tmp/prof/<file>.cpuprofile [rows]
//
// `CORE=path/to/core.js` profiles (and summarises by the source markers of) another build.
// `bare2progress` sends what the harness sends on every call (a progress token, so that progress
// resets the timeout). Self times are sampled wall time: a write to the server's pipe also counts
// the time the client waits for the CPU the woken server took. Compare clients by the
// "CPU us/call" line, which is this process's CPU time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const FIXTURE = fileURLToPath(new URL('../test/fixtures/servers/fixture.mjs', import.meta.url));
const CORE = process.env.CORE ?? fileURLToPath(new URL('../dist/core.js', import.meta.url));
const argv = process.argv.slice(2);

if (argv[0] === '--summary') summarise(argv[1], Number(argv[2] ?? 30));
else await drive(argv[0] ?? 'harness', Number(argv[1] ?? 20000), Number(argv[2] ?? 1));

async function drive(kind, calls, inFlight) {
  const client = kind === 'harness' ? await harnessClient() : await bareClient(kind === 'bare2progress');
  for (const round of ['warm-up', 'measured']) {
    let next = 0;
    const worker = async () => {
      while (next < calls) await client.call(`hello ${next++}`);
    };
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    console.log(`${kind} x${inFlight} ${round}: ${Math.round(calls / seconds)} calls/s, ${((used.user + used.system) / calls).toFixed(1)} CPU us/call`);
  }
  await client.close();
}

async function harnessClient() {
  const { createHarness } = createRequire(import.meta.url)(CORE);
  const harness = await createHarness({ userServers: { label: 'profile', jsonPath: 'servers', entries: { fix: { command: process.execPath, args: [FIXTURE] } } }, reconnectDelaysMs: [] });
  const call = async (text) => {
    const result = await harness.callTool('mcp__fix__echo', { text });
    if (result.isError) throw new Error(result.text);
  };
  return { call, close: () => harness.dispose() };
}

async function bareClient(withProgress) {
  // Loaded only here: a harness process should hold the bundled SDK alone, as a user's does.
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'profile-bare-2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' });
  transport.stderr.on('data', () => undefined); // unread stderr slows close()
  await client.connect(transport);
  await client.listTools();
  const options = withProgress ? { onprogress: () => undefined, resetTimeoutOnProgress: true } : undefined;
  const call = async (text) => {
    const result = await client.callTool({ name: 'echo', arguments: { text } }, options);
    if (result.isError) throw new Error('bare call failed');
  };
  return { call, close: () => client.close() };
}

/** Self time by source (bundle lines mapped back to their module by esbuild's `// path` markers) and by function. */
function summarise(file, rows) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const markers = [];
  readFileSync(CORE, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const m = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(line);
      if (m) markers.push([i + 1, m[1]]);
    });
  const coreUrl = pathToFileURL(CORE).href;
  const moduleAt = (line) => {
    let found = 'dist/core.js';
    for (const [start, name] of markers) {
      if (start > line) break;
      found = name;
    }
    return found;
  };
  const source = ({ url, lineNumber, functionName }) => {
    if (url === coreUrl) return moduleAt(lineNumber + 1);
    return url.replace(/^.*node_modules\//, 'node_modules/').replace(/^file:\/\/.*?\/(bench|test)\//, '$1/') || functionName;
  };
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const bySource = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (t === 0 || node.callFrame.functionName === '(idle)') continue;
    busy += t;
    const where = source(node.callFrame);
    bySource.set(where, (bySource.get(where) ?? 0) + t);
    const name = `${node.callFrame.functionName || '(anonymous)'}  ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + t);
  }
  const top = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([k, v]) => `${((100 * v) / busy).toFixed(1).padStart(6)}%  ${k}`)
      .join('\n');
  console.log(`busy ${Math.round(busy / 1000)} ms (idle left out)\n\nself time by source\n${top(bySource)}\n\nself time by function\n${top(byFunction)}`);
}
