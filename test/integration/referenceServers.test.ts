import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { formatByteSize } from '../../src/core/tools/formatToolResult';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureServer, freePort, referenceServers, startProcess, tempDir, writeJson } from '../support/servers';

// The published reference servers, installed as devDependencies and started with node, over each
// transport the harness speaks.
describe('reference servers', () => {
  const tag = processTag();
  const tmp = tempDir();
  const stops: Array<() => Promise<void>> = [];
  let harness: McpHarness;
  let memoryFile: string;
  let sharedDir: string;

  beforeAll(async () => {
    const ssePort = await freePort();
    const httpPort = await freePort();
    const ready = /listening|running|started|port/i;
    const sse = await startProcess(process.execPath, [referenceServers.everything, 'sse'], { env: { ...tag.env, PORT: String(ssePort) }, ready });
    const http = await startProcess(process.execPath, [referenceServers.everything, 'streamableHttp'], { env: { ...tag.env, PORT: String(httpPort) }, ready });
    const legacy = await startProcess(process.execPath, [fixtureServer, '--sse=0'], { env: tag.env, ready: /listening \d+/ });
    stops.push(sse.stop, http.stop, legacy.stop);
    const legacyPort = /listening (\d+)/.exec(legacy.output())![1];

    memoryFile = path.join(tmp.dir, 'memory.jsonl');
    sharedDir = path.join(tmp.dir, 'shared');
    fs.mkdirSync(sharedDir);
    fs.writeFileSync(path.join(sharedDir, 'hello.txt'), 'hello from the filesystem server\n');
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        'everything-stdio': { type: 'stdio', command: process.execPath, args: [referenceServers.everything], env: tag.env },
        'everything-sse': { type: 'sse', url: `http://127.0.0.1:${ssePort}/sse` },
        'everything-http': { type: 'http', url: `http://127.0.0.1:${httpPort}/mcp` },
        // Declared as Streamable HTTP but only speaks the legacy protocol: the harness falls back.
        'legacy-as-http': { url: `http://127.0.0.1:${legacyPort}/sse` },
        filesystem: { command: process.execPath, args: [referenceServers.filesystem, sharedDir], env: tag.env },
        memory: { command: process.execPath, args: [referenceServers.memory], env: { ...tag.env, MEMORY_FILE_PATH: memoryFile } },
      },
    });
    // No workspace roots: the filesystem server keeps the directory from its command line.
    harness = await createHarness({ configFiles: [path.join(tmp.dir, 'ws/.vscode/mcp.json')] });
  });

  afterAll(async () => {
    await harness?.dispose();
    await Promise.all(stops.map((s) => s()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('connects every server over its transport', () => {
    const rows = Object.fromEntries(harness.servers().map((s) => [s.name, s]));
    for (const s of Object.values(rows)) expect({ name: s.name, state: s.state, error: s.error }).toEqual({ name: s.name, state: 'running', error: undefined });
    expect(rows['everything-stdio'].transport).toBe('stdio');
    expect(rows['everything-sse'].transport).toBe('sse');
    expect(rows['everything-http'].transport).toBe('http');
    expect(rows['legacy-as-http'].transport).toBe('sse');
    expect(rows['everything-stdio'].serverInfo?.name).toContain('everything');
    expect(rows['everything-stdio'].protocolVersion).toBe('2025-11-25');
    expect(rows['everything-stdio'].tools.length).toBeGreaterThanOrEqual(10);
  });

  it.each(['everything-stdio', 'everything-sse', 'everything-http'])('calls echo and get-sum on %s', async (server) => {
    expect((await harness.callTool(`mcp__${server}__echo`, { message: 'ping' })).text).toBe('Echo: ping');
    const sum = await harness.callTool(`mcp__${server}__get-sum`, { a: 2, b: 40 });
    expect(sum.isError).toBe(false);
    expect(sum.text).toContain('42');
  });

  it('rejects invalid arguments before they reach the server, naming the argument', async () => {
    const result = await harness.callTool('mcp__everything-stdio__get-sum', { a: 'two', b: 40 });
    expect(result).toMatchObject({ isError: true, errorKind: 'invalid_arguments' });
    expect(result.text).toContain('"a"');
  });

  it('keeps images and summarizes them in text', async () => {
    const result = await harness.callTool('mcp__everything-http__get-tiny-image', {});
    const image = result.content.find((c) => c.type === 'image') as { data: string; mimeType: string } | undefined;
    expect(image?.mimeType).toBe('image/png');
    expect(result.text).toContain(`[image image/png, ${formatByteSize(Buffer.from(image!.data, 'base64').length)}]`);
  });

  it('returns structured content', async () => {
    const result = await harness.callTool('mcp__everything-stdio__get-structured-content', { location: 'New York' });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toBeTypeOf('object');
  });

  it('reports progress from a long-running operation', async () => {
    const progress: number[] = [];
    const result = await harness.callTool(
      'mcp__everything-stdio__trigger-long-running-operation',
      { duration: 1, steps: 3 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(result.isError).toBe(false);
    expect(progress).toEqual([1, 2, 3]);
  });

  it('reads files through the filesystem server', async () => {
    const result = await harness.callTool('mcp__filesystem__read_text_file', { path: path.join(sharedDir, 'hello.txt') });
    expect(result.text).toContain('hello from the filesystem server');
    const outside = await harness.callTool('mcp__filesystem__read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
  });

  it('stores entities through the memory server in the configured file', async () => {
    const created = await harness.callTool('mcp__memory__create_entities', {
      entities: [{ name: 'harness', entityType: 'project', observations: ['speaks MCP'] }],
    });
    expect(created.isError).toBe(false);
    const graph = await harness.callTool('mcp__memory__read_graph', {});
    expect(graph.text).toContain('speaks MCP');
    expect(fs.readFileSync(memoryFile, 'utf8')).toContain('harness');
  });

  it('lists resources and prompts only for servers that declare them', () => {
    const everything = harness.snapshots().find((s) => s.name === 'everything-stdio')!;
    expect(everything.resources.length + everything.resourceTemplates.length).toBeGreaterThan(0);
    expect(everything.prompts.length).toBeGreaterThan(0);
    const memory = harness.snapshots().find((s) => s.name === 'memory')!;
    expect(memory.prompts).toEqual([]);
  });
});
