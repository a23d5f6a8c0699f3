import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, freePort, referenceServers, tempDir, writeJson } from '../support/servers';
import { auditLines, auditLinesWhen, cli, harnessFor, rawClientFor, requireBuiltCli, serverStderr, startHttpServe, whenHarness } from './serveSupport';

const tag = processTag();
const tmp = tempDir('serve-gateway-');
const ws = path.join(tmp.dir, 'ws');
const audit = path.join(tmp.dir, 'audit.jsonl');
const TOKEN = 'gateway-test-token-abcdef';
const opts = { timeoutMs: 15_000 };

beforeAll(() => {
  requireBuiltCli();
  // harness (client) -> gateway (mcp-harness serve --gateway) -> real reference servers.
  writeJson(ws, '.harness/mcp.json', {
    servers: {
      everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
      memory: { command: process.execPath, args: [referenceServers.memory], env: { ...tag.env, MEMORY_FILE_PATH: path.join(tmp.dir, 'memory.jsonl') } },
      fix: fixtureEntry([], { env: tag.env }),
    },
    serve: { deny: ['mcp__everything__get-env', 'mcp__memory__delete_*'] },
  });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe.each(['stdio', 'http'] as const)('gateway over %s', (transport) => {
  let harness: McpHarness;
  let stop: (() => Promise<void>) | undefined;
  let serveOutput: () => string;
  let entry: Record<string, unknown>;
  const names = () => harness.tools().map((t) => t.name);

  beforeAll(async () => {
    const args = ['--gateway', '--workspace', ws, '--deny', 'mcp__memory__create_relations', '--audit-log', audit];
    if (transport === 'stdio') {
      entry = { command: process.execPath, args: [cli, 'serve', ...args], env: tag.env };
      harness = await harnessFor(entry);
      serveOutput = () => serverStderr(harness);
    } else {
      const serve = await startHttpServe(['--http', String(await freePort()), ...args], { ...tag.env, MCP_HARNESS_TOKEN: TOKEN });
      stop = serve.stop;
      serveOutput = serve.output;
      entry = { url: serve.url, headers: { Authorization: `Bearer ${TOKEN}` } };
      harness = await harnessFor(entry);
    }
  });

  afterAll(async () => {
    await harness?.dispose();
    await stop?.();
  });

  it('offers every configured server under its mcp__ name, read-only built-ins included, denied ones left out', () => {
    const offered = names();
    expect(offered).toEqual(expect.arrayContaining(['mcp__h__read_file', 'mcp__h__mcp__everything__echo', 'mcp__h__mcp__memory__read_graph', 'mcp__h__mcp__fix__echo']));
    expect(offered).not.toContain('mcp__h__write_file');
    for (const denied of ['mcp__everything__get-env', 'mcp__memory__delete_entities', 'mcp__memory__delete_observations', 'mcp__memory__create_relations']) {
      expect(harness.tools().some((t) => t.originalName === denied)).toBe(false);
    }
  });

  it('passes calls through to the real servers and back', async () => {
    expect((await harness.callTool('mcp__h__mcp__everything__echo', { message: 'through the gateway' })).text).toBe('Echo: through the gateway');
    expect((await harness.callTool('mcp__h__mcp__everything__get-sum', { a: 2, b: 40 })).text).toContain('42');
    const entity = `gateway-${transport}`;
    const created = await harness.callTool('mcp__h__mcp__memory__create_entities', { entities: [{ name: entity, entityType: 'test', observations: ['seen'] }] });
    expect(created.isError).toBe(false);
    const graph = await harness.callTool('mcp__h__mcp__memory__read_graph', {});
    expect(graph.text).toContain(entity);
  });

  it('refuses a denied tool called by name, without running it', async () => {
    // Straight to the gateway, past our own client's registry: the gateway must refuse it itself.
    const raw = await rawClientFor(entry);
    try {
      await expect(raw.callTool({ name: 'mcp__memory__delete_entities', arguments: { entityNames: [`gateway-${transport}`] } })).rejects.toMatchObject({
        message: expect.stringContaining('unknown tool "mcp__memory__delete_entities"'),
      });
    } finally {
      await raw.close();
    }
    expect((await harness.callTool('mcp__h__mcp__memory__read_graph', {})).text).toContain(`gateway-${transport}`);
    const denied = await auditLinesWhen(audit, (l) => l.event === 'denied' && l.tool === 'mcp__memory__delete_entities' && (l.client as { transport: string }).transport === transport, 'the denied call');
    expect(denied[0]).toMatchObject({ reason: 'not offered', client: { transport } });
  });

  it('records calls with the client identity and the server they went to', async () => {
    const ends = await auditLinesWhen(audit, (l) => l.event === 'end' && l.tool === 'mcp__everything__echo' && (l.client as { transport: string }).transport === transport, 'the echo call');
    const mine = ends[0];
    // Our own client speaks 2026-07-28: no session, its identity comes with every request.
    expect(mine).toMatchObject({ server: 'everything', outcome: 'ok', method: 'tools/call', client: { name: 'mcp-harness', transport, protocolVersion: '2026-07-28' } });
    expect(harness.servers()[0].protocolVersion).toBe('2026-07-28');
    if (transport === 'http') expect(mine!.client).toMatchObject({ remoteAddress: '127.0.0.1' });
  });

  it('passes tools/list_changed on, live', async () => {
    const tool = `added_${transport}`;
    expect((await harness.callTool('mcp__h__mcp__fix__add_tool', { name: tool })).text).toBe(`added ${tool}`);
    await whenHarness(harness, () => names().includes(`mcp__h__mcp__fix__${tool}`), `${tool} to reach the client`);
    await harness.callTool('mcp__h__mcp__fix__remove_tool', { name: tool });
    await whenHarness(harness, () => !names().includes(`mcp__h__mcp__fix__${tool}`), `${tool} to leave the client`);
  });

  it('offers resources, resource templates and prompts, namespaced, and relays reads', async () => {
    const snapshot = harness.snapshots()[0];
    const resource = snapshot.resources.find((r) => r.name.startsWith('mcp__everything__'));
    expect(resource?.uri).toMatch(/^mcp-harness:\/\/everything\//);
    const read = await harness.readResource('h', resource!.uri, opts);
    expect(read.contents[0].uri).toBe(resource!.uri);
    const template = snapshot.resourceTemplates.find((t) => t.uriTemplate.includes('dynamic%2Ftext%2F{resourceId}'));
    expect(template?.uriTemplate).toMatch(/^mcp-harness:\/\/everything\//);
    const expanded = template!.uriTemplate.replace('{resourceId}', '7');
    const fromTemplate = await harness.readResource('h', expanded, opts);
    expect(fromTemplate.contents[0]).toMatchObject({ uri: expanded, text: expect.stringContaining('7') });
    const prompt = snapshot.prompts.find((p) => p.name.startsWith('mcp__everything__') && !p.arguments?.some((a) => a.required));
    expect(prompt).toBeDefined();
    const got = await harness.getPrompt('h', prompt!.name, {}, opts);
    expect(got.messages.length).toBeGreaterThan(0);
  });

  it('cancels the upstream call when the client cancels', async () => {
    const controller = new AbortController();
    const call = harness.callTool('mcp__h__mcp__fix__hang', {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect((await call).errorKind).toBe('cancelled');
    await waitFor(() => /\[fix\] \[fixture\] request \d+ was cancelled by the client/.test(serveOutput()), 'the fixture to see the cancel');
  });
});

describe('a client that disconnects mid-call', () => {
  it('cancels its call (stdio: the client closes stdin)', async () => {
    const own = path.join(tmp.dir, 'stdio-leaver.jsonl');
    const harness = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', ws, '--audit-log', own], env: tag.env });
    const call = harness.callTool('mcp__h__mcp__fix__hang', {});
    await waitFor(() => auditLines(own).some((l) => l.event === 'start' && l.tool === 'mcp__fix__hang'), 'the call to start');
    await harness.dispose();
    expect((await call).isError).toBe(true);
    await waitFor(() => auditLines(own).some((l) => l.event === 'end' && l.tool === 'mcp__fix__hang' && l.outcome === 'cancelled'), 'the call to end cancelled');
  });

  it('cancels its call on the upstream server (HTTP)', async () => {
    const serve = await startHttpServe(['--http', String(await freePort()), '--gateway', '--workspace', ws, '--audit-log', audit], { ...tag.env, MCP_HARNESS_TOKEN: TOKEN });
    try {
      const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
      const init = await fetch(serve.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'leaver', version: '1' } } }),
      });
      const session = init.headers.get('mcp-session-id')!;
      await init.text();
      const withSession = { ...headers, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-11-25' };
      await fetch(serve.url, { method: 'POST', headers: withSession, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const controller = new AbortController();
      const hanging = fetch(serve.url, {
        method: 'POST',
        headers: withSession,
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'mcp__fix__hang', arguments: {} } }),
        signal: controller.signal,
      }).then((r) => r.text());
      await waitFor(() => auditLines(audit).some((l) => l.event === 'start' && (l.client as { name?: string }).name === 'leaver'), 'the call to start');
      controller.abort();
      await expect(hanging).rejects.toThrow();
      await waitFor(() => /request \d+ was cancelled by the client/.test(serve.output()), 'the upstream cancel');
      await waitFor(
        () => auditLines(audit).some((l) => l.event === 'end' && l.outcome === 'cancelled' && (l.client as { name?: string }).name === 'leaver'),
        'the audit entry to end cancelled',
      );
      const leaver = auditLines(audit).find((l) => l.event === 'end' && (l.client as { name?: string }).name === 'leaver');
      expect(leaver?.client).toEqual({ transport: 'http', sessionId: session, remoteAddress: '127.0.0.1', name: 'leaver', version: '1', protocolVersion: '2025-11-25' });
    } finally {
      await serve.stop();
    }
  });
});

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
