import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, McpHarness, type McpLogEntry } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { minimalServer, referenceServers, repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const modernServer = repoPath('test/fixtures/servers/modern.mjs');
const probeServer = repoPath('test/fixtures/servers/probeHttp.mjs');

// A 2026-07-28 server (SDK 2.x, stateless) and the 2025-era reference servers in one harness:
// each is spoken to in its own revision, and each snapshot says which.
describe('protocol revisions side by side', () => {
  const tag = processTag();
  const tmp = tempDir();
  const stops: Array<() => Promise<void>> = [];
  const elicited: Array<{ server: string; message: string }> = [];
  let harness: McpHarness;

  beforeAll(async () => {
    const modern = await startProcess(process.execPath, [modernServer, '--http=0'], { env: tag.env, ready: /listening \d+/ });
    stops.push(modern.stop);
    const modernPort = /listening (\d+)/.exec(modern.output())![1];
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        'modern-http': { type: 'http', url: `http://127.0.0.1:${modernPort}/mcp` },
        'modern-stdio': { command: process.execPath, args: [modernServer], env: tag.env },
        'everything-stdio': { command: process.execPath, args: [referenceServers.everything], env: tag.env },
        memory: { command: process.execPath, args: [referenceServers.memory], env: { ...tag.env, MEMORY_FILE_PATH: path.join(tmp.dir, 'memory.jsonl') } },
      },
    });
    harness = await createHarness({
      configFiles: [path.join(tmp.dir, 'ws/.vscode/mcp.json')],
      handlers: {
        elicit: async (server, params) => {
          elicited.push({ server, message: params.message });
          return { action: 'accept', content: { ok: true } };
        },
      },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
    await Promise.all(stops.map((s) => s()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('runs every server and names the revision each one speaks', () => {
    const rows = Object.fromEntries(harness.servers().map((s) => [s.name, s]));
    for (const s of Object.values(rows)) expect({ name: s.name, state: s.state, error: s.error }).toEqual({ name: s.name, state: 'running', error: undefined });
    expect(rows['modern-http'].protocolVersion).toBe('2026-07-28');
    expect(rows['modern-http'].serverInfo?.name).toBe('modern');
    expect(rows['everything-stdio'].protocolVersion).toBe('2025-11-25');
    expect(rows.memory.protocolVersion).toBe('2025-11-25');
    // The snapshot the tree renders carries the same revision.
    const snapshots = Object.fromEntries(harness.snapshots().map((s) => [s.name, s]));
    expect(snapshots['modern-http'].protocolVersion).toBe('2026-07-28');
    expect(snapshots['everything-stdio'].protocolVersion).toBe('2025-11-25');
    // The SDK's 2.x server over stdio refuses server/discover: the probe falls back to initialize.
    expect(snapshots['modern-stdio'].protocolVersion).toBe('2025-11-25');
  });

  it('calls tools on both generations', async () => {
    expect((await harness.callTool('mcp__modern-http__echo', { text: 'new' })).text).toBe('new');
    expect((await harness.callTool('mcp__modern-http__add', { a: 2, b: 40 })).text).toBe('42');
    expect((await harness.callTool('mcp__modern-stdio__echo', { text: 'pipe' })).text).toBe('pipe');
    expect((await harness.callTool('mcp__everything-stdio__echo', { message: 'old' })).text).toBe('Echo: old');
  });

  it('answers an input_required round with the elicitation handler and retries the call', async () => {
    const result = await harness.callTool('mcp__modern-http__confirm', { question: 'Deploy now?' });
    expect(result).toMatchObject({ isError: false, text: 'confirmed' });
    expect(elicited).toContainEqual({ server: 'modern-http', message: 'Deploy now?' });
    expect((await harness.callTool('mcp__modern-stdio__confirm', { question: 'Over the pipe?' })).text).toBe('confirmed');
    expect(elicited).toContainEqual({ server: 'modern-stdio', message: 'Over the pipe?' });
  });

  it('passes progress from a 2026-07-28 server', async () => {
    const progress: number[] = [];
    const result = await harness.callTool('mcp__modern-http__slow', { steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
    expect(result.text).toBe('done');
    expect(progress).toEqual([1, 2, 3]);
  });
});

// stdio servers that do not survive the version probe or never answer it are 2025-era servers.
describe('version probe on stdio', () => {
  const tag = processTag();
  const tmp = tempDir();
  let harness: McpHarness;

  afterAll(async () => {
    await harness?.dispose();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('starts a server that exits on server/discover again and greets it with initialize alone', async () => {
    const file = writeJson(tmp.dir, 'probe.json', {
      mcpServers: {
        exits: { command: process.execPath, args: [minimalServer, '--exit-before-initialize'], env: tag.env },
        silent: { command: process.execPath, args: [minimalServer, '--silent-before-initialize'], env: tag.env },
      },
    });
    const logs: McpLogEntry[] = [];
    harness = new McpHarness({ configFiles: [file] });
    harness.onDidLog((e) => logs.push(e));
    await harness.start();
    const rows = Object.fromEntries(harness.servers().map((s) => [s.name, s]));
    // The silent one never answers the probe; after its time the SDK greets it with initialize.
    expect(logs.filter((e) => e.server === 'silent' && e.source === 'harness').map((e) => e.message)).toContain(
      'the server did not take server/discover (a 2025-era server): connected with initialize, protocol 2025-11-25',
    );
    for (const name of ['exits', 'silent']) {
      expect({ name, state: rows[name].state, error: rows[name].error, protocolVersion: rows[name].protocolVersion }).toEqual({
        name,
        state: 'running',
        error: undefined,
        protocolVersion: '2025-11-25',
      });
      expect((await harness.callTool(`mcp__${name}__echo`, { text: name })).text).toBe(name);
    }
    // The retry is a fresh start, not a reconnect after a failure.
    expect(rows.exits.restartCount).toBe(0);
  });
});

// HTTP servers that answer the version probe in each way deployed servers do. A 2025-era server
// that leaves server/discover unanswered (or answers it too late) is greeted with initialize once
// the probe times out; a 2026-07-28 server that answers slowly, but within the probe's time, keeps
// its revision. Each server's startup time is 6 s, so its probe waits 3 s; the late one answers
// after 4.5 s, the slow modern one after 0.3 s of its 10 s.
describe('version probe over HTTP', () => {
  const tag = processTag();
  const tmp = tempDir();
  const stops: Array<() => Promise<void>> = [];
  const logs: McpLogEntry[] = [];
  const ports: Record<string, string> = {};
  let harness: McpHarness;

  const start = async (name: string, args: string[]) => {
    const server = await startProcess(process.execPath, args, { env: tag.env, ready: /listening \d+/ });
    stops.push(server.stop);
    ports[name] = /listening (\d+)/.exec(server.output())![1];
  };
  const logOf = (name: string) => logs.filter((e) => e.server === name && e.source === 'harness').map((e) => e.message);
  /** The server fell back and runs on 2025-11-25 over Streamable HTTP, without an error. */
  const expectRunningOn2025 = (name: string) => {
    const row = harness.servers().find((s) => s.name === name)!;
    expect({ name, state: row.state, error: row.error, protocolVersion: row.protocolVersion, transport: row.transport }).toEqual({
      name,
      state: 'running',
      error: undefined,
      protocolVersion: '2025-11-25',
      transport: 'http',
    });
  };
  const probeStats = async (name: string) => (await fetch(`http://127.0.0.1:${ports[name]}/test/stats`)).json() as Promise<{ discover: number; initialize: number }>;

  beforeAll(async () => {
    await start('modern-target', [modernServer, '--http=0']);
    const legacy: Record<string, string> = {
      drops: 'drop',
      late: 'delay:4500',
      accepted: 'accepted',
      'method-not-found': 'answer',
      'status-400': 'status:400',
      'status-404': 'status:404',
      'status-405': 'status:405',
    };
    await Promise.all([
      ...Object.entries(legacy).map(([name, mode]) => start(name, [probeServer, `--discover=${mode}`])),
      start('modern-slow', [probeServer, '--discover=delay:300', `--target=http://127.0.0.1:${ports['modern-target']}/mcp`]),
    ]);
    const servers = Object.fromEntries(
      [...Object.keys(legacy), 'modern-slow'].map((name) => [name, { type: 'http', url: `http://127.0.0.1:${ports[name]}/mcp`, startupTimeoutMs: name === 'modern-slow' ? 30_000 : 6000 }]),
    );
    const file = writeJson(tmp.dir, 'probe-http.json', { servers });
    harness = new McpHarness({ configFiles: [file] });
    harness.onDidLog((e) => logs.push(e));
    await harness.start();
  });

  afterAll(async () => {
    await harness?.dispose();
    await Promise.all(stops.map((s) => s()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('falls back to initialize when the probe is never answered, answered late, or answered 202 without a body', async () => {
    for (const name of ['drops', 'late', 'accepted']) {
      expectRunningOn2025(name);
      expect(logOf(name)).toContain('no answer to server/discover within 3 s: taking it for a 2025-era server that ignores unknown requests, trying initialize');
      expect(await probeStats(name)).toEqual({ discover: 1, initialize: 1 });
      expect((await harness.callTool(`mcp__${name}__echo`, { text: name })).text).toBe(name);
    }
  });

  it('takes -32601 and HTTP 400, 404 and 405 to the probe for a 2025-era server at once', async () => {
    for (const name of ['method-not-found', 'status-400', 'status-404', 'status-405']) {
      expectRunningOn2025(name);
      expect(logOf(name)).toContain('the server did not take server/discover (a 2025-era server): connected with initialize, protocol 2025-11-25');
      expect(logOf(name).some((m) => m.startsWith('no answer to server/discover'))).toBe(false);
      expect(await probeStats(name)).toEqual({ discover: 1, initialize: 1 });
      expect((await harness.callTool(`mcp__${name}__echo`, { text: name })).text).toBe(name);
    }
  });

  it('keeps 2026-07-28 with a server that answers the probe slowly but in time', async () => {
    const row = harness.servers().find((s) => s.name === 'modern-slow')!;
    expect({ state: row.state, error: row.error, protocolVersion: row.protocolVersion }).toEqual({ state: 'running', error: undefined, protocolVersion: '2026-07-28' });
    expect(logOf('modern-slow').some((m) => m.includes('server/discover'))).toBe(false);
    expect((await harness.callTool('mcp__modern-slow__echo', { text: 'slow' })).text).toBe('slow');
  });
});
