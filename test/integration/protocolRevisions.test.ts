import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { minimalServer, referenceServers, repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const modernServer = repoPath('test/fixtures/servers/modern.mjs');

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
    harness = await createHarness({ configFiles: [file] });
    const rows = Object.fromEntries(harness.servers().map((s) => [s.name, s]));
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
