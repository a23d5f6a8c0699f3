#!/usr/bin/env node
// Memory per `serve --http` session: the heap a 2025-era client's session holds once it has
// initialized (the SDK's transport and server, our session state), measured after a full GC.
// The listener runs in this process (through the built library, dist/core.js) so the heap can be
// read exactly; the clients are raw HTTP requests whose answers are read and dropped.
//
//   node --expose-gc bench/serveSessions.mjs [--sessions N] [--json]
//
// Needs dist/ (npm run build). Prints the heap before and after, the figure per session, and a
// JSON line last. It also checks the cap: the session past --max-sessions is answered 503.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';

const require = createRequire(import.meta.url);
const { McpHarness, HarnessMcpServer, ServeHttpListener } = require('../dist/core.js');

const argv = process.argv.slice(2);
const jsonOnly = argv.includes('--json');
const count = Number(argv[argv.indexOf('--sessions') + 1]) || 2000;
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc bench/serveSessions.mjs\n');
  process.exit(1);
}
const TOKEN = 'bench-sessions-token-0123456789';
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

function post(url, body, session) {
  return new Promise((resolve, reject) => {
    const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...(session ? { 'Mcp-Session-Id': session } : {}) };
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, session: res.headers['mcp-session-id'] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function heap() {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}

const workspace = mkdtempSync(join(tmpdir(), 'bench-sessions-'));
const harness = new McpHarness({ workspaceFolder: workspace, autoStart: false });
await harness.start();
const mcp = new HarnessMcpServer(harness, { gateway: false, expose: [], deny: [] });
const listener = new ServeHttpListener(mcp, { port: 0, token: TOKEN, maxSessions: count });
const url = await listener.listen();
try {
  // Warm up (code paths compiled, lazy singletons made), then drop those sessions from the count.
  for (let i = 0; i < 20; i++) {
    const { session } = await post(url, INIT);
    await post(url, INITIALIZED, session);
  }
  const before = await heap();
  const base = listener.sessionCount;
  const started = Date.now();
  for (let i = base; i < count; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, count - i) }, async () => {
        const { status, session } = await post(url, INIT);
        if (status !== 200) throw new Error(`initialize answered ${status}`);
        await post(url, INITIALIZED, session);
      }),
    );
  }
  const made = listener.sessionCount - base;
  const after = await heap();
  const refused = await post(url, INIT);
  const perSession = (after - before) / made;
  const result = { sessions: made, heapBeforeMB: +(before / 2 ** 20).toFixed(1), heapAfterMB: +(after / 2 ** 20).toFixed(1), bytesPerSession: Math.round(perSession), overCapStatus: refused.status, seconds: (Date.now() - started) / 1000 };
  if (!jsonOnly) {
    process.stdout.write(`${made} initialized sessions: heap ${result.heapBeforeMB} MB -> ${result.heapAfterMB} MB after GC, ${(perSession / 1024).toFixed(1)} KB per session\n`);
    process.stdout.write(`session ${count + 1}: HTTP ${refused.status} (cap ${count})\n`);
  }
  process.stdout.write(JSON.stringify(result) + '\n');
  if (refused.status !== 503) process.exitCode = 1;
} finally {
  await listener.close();
  mcp.dispose();
  await harness.dispose();
  agent.destroy();
  rmSync(workspace, { recursive: true, force: true });
}
