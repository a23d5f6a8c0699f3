import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { gatewayUri } from '../../../src/core/serve/ServeCatalog';
import { serve } from './gatewayRig';

describe('HarnessMcpServer as a gateway', () => {
  it('offers the tools, resources, templates and prompts of every server, under gateway names', async () => {
    const { connectClient } = await serve();
    const { client } = await connectClient();
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-harness', title: 'MCP Harness' });
    expect(client.getInstructions()).toMatch(/^MCP Harness: tools to read/);
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, resources: { listChanged: true, subscribe: true }, prompts: { listChanged: true } });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['mcp__docs__echo', 'mcp__docs__search', 'mcp__secret__echo', 'mcp__secret__peek']);
    expect((await client.listResources()).resources).toEqual([
      expect.objectContaining({ uri: gatewayUri('docs', 'note://readme'), name: 'mcp__docs__readme', title: 'readme' }),
      expect.objectContaining({ uri: gatewayUri('secret', 'note://readme'), name: 'mcp__secret__readme' }),
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['mcp-harness://docs/note%3A%2F%2F{id}', 'mcp-harness://secret/note%3A%2F%2F{id}']);
    expect((await client.listPrompts()).prompts.map((p) => [p.name, p.title])).toEqual([
      ['mcp__docs__greet', 'greet'],
      ['mcp__secret__greet', 'greet'],
    ]);
  });

  it('calls a tool for the client, recording who called, and makes an unknown or denied tool look the same', async () => {
    const { connectClient, audit, started } = await serve({ gateway: true, deny: ['mcp__secret__peek'] });
    const { client } = await connectClient('agent-x');
    expect(await client.callTool({ name: 'mcp__docs__search', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'found it' }] });
    expect(audit.started[0]).toMatchObject({ tool: 'mcp__docs__search', client: { transport: 'stdio', name: 'agent-x', version: '2.1.0', protocolVersion: '2025-11-25' } });
    expect(audit.ended).toEqual(['1 ok']);
    const unknown = await client.callTool({ name: 'mcp__docs__nope', arguments: {} }).catch((e: unknown) => e);
    const denied = await client.callTool({ name: 'mcp__secret__peek', arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect((unknown as Error).message).toMatch(/unknown tool "mcp__docs__nope"/);
    expect((denied as Error).message).toMatch(/unknown tool "mcp__secret__peek"/);
    expect(started.find((s) => s.command === 'secret')!.calls).toEqual([]);
    expect((await client.callTool({ name: 'mcp__docs__echo', arguments: { text: 7 } })).isError).toBe(true);
  });

  it('neither lists nor calls a tool only MCP Apps may call', async () => {
    const { connectClient, started } = await serve({ gateway: true }, { ui: { command: 'ui' } });
    const { client } = await connectClient();
    expect((await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('mcp__ui__'))).toEqual(['mcp__ui__echo', 'mcp__ui__show']);
    const refused = await client.callTool({ name: 'mcp__ui__refresh_view', arguments: {} }).catch((e: unknown) => e);
    expect((refused as Error).message).toMatch(/unknown tool "mcp__ui__refresh_view"/);
    expect(started.find((s) => s.command === 'ui')!.calls).toEqual([]);
  });

  it('reads resources by gateway URI (listed, or made from a template), with the URIs rewritten', async () => {
    const { connectClient } = await serve();
    const { client } = await connectClient();
    expect(await client.readResource({ uri: gatewayUri('docs', 'note://readme') })).toEqual({ contents: [{ uri: gatewayUri('docs', 'note://readme'), text: 'readme of docs' }] });
    expect((await client.readResource({ uri: gatewayUri('docs', 'note://42') })).contents).toEqual([{ uri: gatewayUri('docs', 'note://42'), text: 'note 42' }]);
    await expect(client.readResource({ uri: 'note://readme' })).rejects.toThrow(/unknown resource "note:\/\/readme"/);
    await expect(client.readResource({ uri: gatewayUri('nobody', 'x://y') })).rejects.toThrow(/unknown resource/);
    expect(await client.getPrompt({ name: 'mcp__docs__greet', arguments: { name: 'Ada' } })).toMatchObject({ messages: [{ content: { text: 'Hello, Ada' } }] });
    await expect(client.getPrompt({ name: 'greet' })).rejects.toThrow(/unknown prompt "greet"/);
  });

  it('hides every resource and prompt of a denied server, and refuses them by URI too', async () => {
    const { connectClient, started } = await serve({ gateway: true, deny: ['mcp__secret'] });
    const { client } = await connectClient();
    expect((await client.listResources()).resources.map((r) => r.name)).toEqual(['mcp__docs__readme']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['mcp__docs__greet']);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['mcp__docs__echo', 'mcp__docs__search']);
    await expect(client.readResource({ uri: gatewayUri('secret', 'note://readme') })).rejects.toThrow();
    expect(started.find((s) => s.command === 'secret')!.calls).toEqual([]);
  });

  it('relays subscriptions: one upstream subscription, updates under the gateway URI, dropped when the client leaves', async () => {
    const { connectClient, last } = await serve();
    const a = await connectClient('a');
    const b = await connectClient('b');
    const heard: string[] = [];
    a.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(`a ${n.params.uri}`));
    b.client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(`b ${n.params.uri}`));
    const uri = gatewayUri('docs', 'note://readme');
    await a.client.subscribeResource({ uri });
    await b.client.subscribeResource({ uri });
    expect(last('docs').calls.filter((c) => c.startsWith('subscribe'))).toEqual(['subscribe note://readme']);
    await last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' });
    await expect.poll(() => [...heard].sort()).toEqual([`a ${uri}`, `b ${uri}`]);
    await b.client.unsubscribeResource({ uri });
    expect(last('docs').calls.filter((c) => c.startsWith('unsubscribe'))).toEqual([]);
    await a.client.close();
    await expect.poll(() => last('docs').calls.filter((c) => c.startsWith('unsubscribe'))).toEqual(['unsubscribe note://readme']);
  });

  it('tells live clients and 2026-07-28 listeners when the tools change, and forgets a listener disposed', async () => {
    const { connectClient, harness, server } = await serve();
    const { client } = await connectClient();
    let listChanged = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => void listChanged++);
    const told: string[] = [];
    const notifier = server.addNotifier({ toolsChanged: () => told.push('tools'), promptsChanged: () => told.push('prompts'), resourcesChanged: () => told.push('resources'), resourceUpdated: () => undefined });
    expect(server.sessionCount).toBe(1);
    await harness.stopServer('secret');
    await expect.poll(() => listChanged).toBe(1);
    expect([...told].sort()).toEqual(['prompts', 'resources', 'tools']);
    notifier.dispose();
    await harness.startServer('secret');
    await expect.poll(() => listChanged).toBe(2);
    expect(told).toHaveLength(3);
  });

  it('cancels the calls of a client whose request went away', async () => {
    const { connectClient, started } = await serve({ gateway: true }, { docs: { command: 'docs' } });
    const { client, session } = await connectClient();
    const upstream = started[0].server;
    const cancelled: string[] = [];
    upstream.registerTool('hang', { description: 'Waits' }, (ctx) => new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => {
      cancelled.push('hang');
      resolve({ content: [] });
    })));
    await expect.poll(async () => (await client.listTools()).tools.some((t) => t.name === 'mcp__docs__hang')).toBe(true);
    const pending = client.callTool({ name: 'mcp__docs__hang', arguments: {} }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    session.cancelRequests([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await expect.poll(() => cancelled).toEqual(['hang']);
    session.dispose();
    await pending;
  });
});

describe('HarnessMcpServer without the gateway', () => {
  it('offers only read-only built-ins (and what is exposed), and no resources or prompts', async () => {
    const { connectClient, harness } = await serve({ expose: ['write_note'] });
    harness.registerBuiltin({ name: 'read_note', description: 'Reads', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, invoke: async () => ({ isError: false, text: 'note', content: [{ type: 'text', text: 'note' }] }) });
    harness.registerBuiltin({ name: 'write_note', description: 'Writes', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: 'written', content: [{ type: 'text', text: 'written' }] }) });
    harness.registerBuiltin({ name: 'delete_note', description: 'Deletes', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: 'gone', content: [] }) });
    const { client } = await connectClient();
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true } });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read_note', 'write_note']);
    expect(await client.callTool({ name: 'read_note', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'note' }] });
    await expect(client.callTool({ name: 'delete_note', arguments: {} })).rejects.toThrow(/unknown tool/);
  });

  it('subscribes nothing for a listener when there is no gateway', async () => {
    const { server, started } = await serve({});
    server.listenResources({ resourceUpdated: () => undefined }, [gatewayUri('docs', 'note://readme')], { transport: 'http' }).dispose();
    await new Promise((r) => setTimeout(r, 20));
    expect(started.flatMap((s) => s.calls)).toEqual([]);
  });
});

