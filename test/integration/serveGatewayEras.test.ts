import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, freePort, referenceServers, tempDir, writeJson } from '../support/servers';
import { auditLines, cli, requireBuiltCli, startHttpServe } from './serveSupport';

// The gateway as each generation of client sees it. The SDK's 1.x client speaks 2025-11-25 and
// nothing newer, so it initializes and (over HTTP) gets a session of its own; the 2.x client pinned
// to 2026-07-28 sends its identity with every request and hears of changes on subscriptions/listen.
const tag = processTag();
const tmp = tempDir('serve-gateway-legacy-');
const ws = path.join(tmp.dir, 'ws');
const audit = path.join(tmp.dir, 'audit.jsonl');
const TOKEN = 'gateway-legacy-token-0123';

beforeAll(() => {
  requireBuiltCli();
  writeJson(ws, '.harness/mcp.json', {
    servers: {
      everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
      fix: fixtureEntry([], { env: tag.env }),
    },
    serve: { deny: ['mcp__everything__get-env'] },
  });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe.each(['stdio', 'http'] as const)('a 2025-era client of the gateway over %s', (transport) => {
  const client = new Client({ name: 'legacy-client', version: '1.2.3' });
  const updates: string[] = [];
  let listChanged = 0;
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const args = ['--gateway', '--workspace', ws, '--audit-log', audit];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    if (transport === 'stdio') {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', ...args], env: { ...process.env, ...tag.env } as Record<string, string>, stderr: 'ignore' }));
    } else {
      const serve = await startHttpServe(['--http', String(await freePort()), ...args], { ...tag.env, MCP_HARNESS_TOKEN: TOKEN });
      stop = serve.stop;
      await client.connect(new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    }
  });

  afterAll(async () => {
    await client.close();
    await stop?.();
  });

  it('is served 2025-11-25, with the same tools and the deny rule applied', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true, subscribe: true } });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'mcp__everything__echo', 'mcp__fix__echo']));
    expect(names).not.toContain('mcp__everything__get-env');
    const echo = await client.callTool({ name: 'mcp__everything__echo', arguments: { message: 'old school' } });
    expect(echo.content).toEqual([{ type: 'text', text: 'Echo: old school' }]);
    await expect(client.callTool({ name: 'mcp__everything__get-env', arguments: {} })).rejects.toThrow('unknown tool "mcp__everything__get-env"');
    const find = () => auditLines(audit).find((l) => l.event === 'end' && l.tool === 'mcp__everything__echo' && (l.client as { transport: string }).transport === transport);
    // The log is written behind the answer.
    await waitFor(() => find() !== undefined, 'the audit line');
    const line = find();
    expect(line?.client).toMatchObject({ name: 'legacy-client', version: '1.2.3', protocolVersion: '2025-11-25' });
    if (transport === 'http') expect(line?.client).toMatchObject({ sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), remoteAddress: '127.0.0.1' });
  });

  it('hears tools/list_changed unasked', async () => {
    const before = listChanged;
    await client.callTool({ name: 'mcp__fix__add_tool', arguments: { name: `legacy_${transport}` } });
    await waitFor(() => listChanged > before, 'tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(`mcp__fix__legacy_${transport}`);
  });

  it('subscribes to a resource through the gateway and hears its updates under the gateway URI', async () => {
    const resource = (await client.listResources()).resources.find((r) => r.uri.startsWith('mcp-harness://everything/'));
    expect(resource).toBeDefined();
    await client.subscribeResource({ uri: resource!.uri });
    // server-everything sends an update at once and then every few seconds, for what was subscribed.
    await client.callTool({ name: 'mcp__everything__toggle-subscriber-updates', arguments: {} });
    await waitFor(() => updates.includes(resource!.uri), `notifications/resources/updated for ${resource!.uri}`);
    expect(updates.every((u) => u.startsWith('mcp-harness://everything/'))).toBe(true);
    await client.unsubscribeResource({ uri: resource!.uri });
    // Off again: its timer would keep server-everything alive past a killed gateway.
    await client.callTool({ name: 'mcp__everything__toggle-subscriber-updates', arguments: {} });
    const subscriptions = () => auditLines(audit).filter((l) => l.event === 'end' && l.method === 'resources/subscribe' && (l.client as { transport: string }).transport === transport);
    await waitFor(() => subscriptions().length > 0, 'the audit line');
    const subscribed = subscriptions();
    expect(subscribed).toEqual([expect.objectContaining({ tool: resource!.uri, server: 'everything', outcome: 'ok', client: expect.objectContaining({ name: 'legacy-client' }) })]);
    await expect(client.subscribeResource({ uri: 'mcp-harness://nowhere/x' })).rejects.toThrow('unknown resource');
  });
});

describe.each(['stdio', 'http'] as const)('a 2026-07-28 client of the gateway over %s', (transport) => {
  const client = new ModernClient({ name: 'modern-client', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const updates: string[] = [];
  let stop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const args = ['--gateway', '--workspace', ws, '--audit-log', audit];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    if (transport === 'stdio') {
      await client.connect(new ModernStdioTransport({ command: process.execPath, args: [cli, 'serve', ...args], env: { ...process.env, ...tag.env } as Record<string, string>, stderr: 'ignore' }));
    } else {
      const serve = await startHttpServe(['--http', String(await freePort()), ...args], { ...tag.env, MCP_HARNESS_TOKEN: TOKEN });
      stop = serve.stop;
      await client.connect(new ModernHttpTransport(new URL(serve.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    }
  });

  afterAll(async () => {
    await client.close();
    await stop?.();
  });

  it('listens for a resource through the gateway and hears its updates under the gateway URI', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true } });
    const resource = (await client.listResources()).resources.find((r) => r.uri.startsWith('mcp-harness://everything/'));
    expect(resource).toBeDefined();
    const subscription = await client.listen({ resourceSubscriptions: [resource!.uri] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [resource!.uri] });
    // The upstream subscribe is on its way once the stream is acknowledged: wait for the audit line.
    const subscribed = () => auditLines(audit).find((l) => l.event === 'end' && l.method === 'resources/subscribe' && (l.client as { name?: string }).name === 'modern-client' && (l.client as { transport: string }).transport === transport);
    await waitFor(() => subscribed() !== undefined, 'the upstream subscription');
    expect(subscribed()).toMatchObject({ tool: resource!.uri, server: 'everything', outcome: 'ok', client: { protocolVersion: '2026-07-28' } });
    await client.callTool({ name: 'mcp__everything__toggle-subscriber-updates', arguments: {} });
    try {
      await waitFor(() => updates.includes(resource!.uri), `notifications/resources/updated for ${resource!.uri}`);
    } finally {
      await client.callTool({ name: 'mcp__everything__toggle-subscriber-updates', arguments: {} });
      await subscription.close();
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
