import { InMemoryTransport, ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { gatewayUri } from '../../../src/core/serve/ServeCatalog';
import { serve } from './gatewayRig';

describe('HarnessMcpServer sessions', () => {
  it('counts only servers that last a connection, and lets a session go when disposed', async () => {
    const { connectClient, server } = await serve();
    server.createServer({ transport: 'http' }, false);
    expect(server.sessionCount).toBe(0);
    const { client, session } = await connectClient();
    expect(server.sessionCount).toBe(1);
    let closed = false;
    client.onclose = () => void (closed = true);
    session.dispose();
    await expect.poll(() => closed).toBe(true);
    expect(server.sessionCount).toBe(0);
  });

  it('closes every live session when disposed', async () => {
    const { connectClient, server } = await serve();
    const { client } = await connectClient();
    let closed = false;
    client.onclose = () => void (closed = true);
    server.dispose();
    await expect.poll(() => closed).toBe(true);
    expect(server.sessionCount).toBe(0);
  });

  it('records the session a connection names and who the caller is', async () => {
    const { server, audit } = await serve();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide, { transport: 'http', sessionId: 's-9', user: 'alice', remoteAddress: '10.1.2.3' });
    const { Client } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'named', version: '4' });
    await client.connect(clientSide);
    await client.callTool({ name: 'mcp__docs__echo', arguments: { text: 'x' } });
    await client.readResource({ uri: gatewayUri('docs', 'note://readme') });
    await client.getPrompt({ name: 'mcp__docs__greet', arguments: { name: 'Ada' } });
    const who = { transport: 'http', sessionId: 's-9', user: 'alice', remoteAddress: '10.1.2.3', name: 'named', version: '4', protocolVersion: '2025-11-25' };
    expect(audit.started.map((s) => [s.tool, s.client])).toEqual([
      ['mcp__docs__echo', who],
      [gatewayUri('docs', 'note://readme'), who],
      ['mcp__docs__greet', who],
    ]);
    await client.close();
  });
});

describe('HarnessMcpServer relaying', () => {
  it('passes on the error a server answered, with its code', async () => {
    const { connectClient } = await serve();
    const { client } = await connectClient();
    const failed = await client.getPrompt({ name: 'mcp__docs__greet', arguments: {} }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ProtocolError);
    expect((failed as ProtocolError).code).toBe(-32602);
    expect((failed as Error).message).toMatch(/name/);
  });

  it('logs a listen subscription it cannot make, and lets go of the ones it made when disposed', async () => {
    const { server, logs, last } = await serve();
    const missing = gatewayUri('nobody', 'x://y');
    const listen = server.listenResources({ resourceUpdated: () => undefined }, [missing, gatewayUri('docs', 'note://readme')], { transport: 'http' });
    await expect.poll(() => logs).toEqual([`subscriptions/listen: could not subscribe to ${missing}: unknown resource "${missing}"`]);
    await expect.poll(() => last('docs').calls).toContain('subscribe note://readme');
    listen.dispose();
    await expect.poll(() => last('docs').calls).toContain('unsubscribe note://readme');
  });

  it('tells live clients which list changed, and only clients that finished initializing', async () => {
    const { connectClient, server, last } = await serve();
    const { client } = await connectClient();
    const heard: string[] = [];
    for (const kind of ['tools', 'resources', 'prompts'] as const) client.setNotificationHandler(`notifications/${kind}/list_changed`, () => void heard.push(kind));
    const told: string[] = [];
    server.addNotifier({ toolsChanged: () => told.push('tools'), promptsChanged: () => told.push('prompts'), resourcesChanged: () => told.push('resources'), resourceUpdated: () => undefined });
    // A server connected but never initialized is told nothing (and nothing fails).
    const [, idle] = InMemoryTransport.createLinkedPair();
    await server.connect(idle, { transport: 'stdio' });
    last('docs').server.registerResource('extra', 'note://extra', {}, () => ({ contents: [{ uri: 'note://extra', text: 'extra' }] }));
    await expect.poll(() => heard).toEqual(['resources']);
    expect(told).toEqual(['resources']);
    last('docs').server.registerPrompt('farewell', {}, () => ({ messages: [] }));
    await expect.poll(() => heard).toEqual(['resources', 'prompts']);
    expect(told).toEqual(['resources', 'prompts']);
  });

  it('keeps telling the clients still subscribed when another unsubscribes or leaves', async () => {
    const { connectClient, last, logs } = await serve();
    const uri = gatewayUri('docs', 'note://readme');
    const heard: string[] = [];
    const clients = await Promise.all(['a', 'b', 'c'].map(async (name) => {
      const { client } = await connectClient(name);
      client.setNotificationHandler('notifications/resources/updated', () => void heard.push(name));
      await client.subscribeResource({ uri });
      return client;
    }));
    expect(await clients[1].unsubscribeResource({ uri: gatewayUri('docs', 'note://other') })).toEqual({});
    await clients[1].unsubscribeResource({ uri });
    await last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' });
    await expect.poll(() => [...heard].sort()).toEqual(['a', 'c']);
    await clients[2].close();
    heard.length = 0;
    await last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' });
    await expect.poll(() => heard).toEqual(['a']);
    // The client that left is told nothing (telling it would fail, and be logged).
    await new Promise((r) => setTimeout(r, 50));
    expect(logs).toEqual([]);
  });
});
