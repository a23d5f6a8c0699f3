import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpHarness } from '../../../src/core/McpHarness';
import type { HookDefinition } from '../../../src/core/hooks';
import { HarnessMcpServer } from '../../../src/core/serve/HarnessMcpServer';
import { gatewayUriTemplate } from '../../../src/core/serve/ServeCatalog';
import { ServeOAuth } from '../../../src/core/serve/ServeOAuth';
import { memoryHarness } from '../../support/memoryHarness';
import { fixtureEntry, tempDir } from '../../support/servers';
import { serve } from './gatewayRig';
import { closers } from './listenerRig';
import { loopbackIssuer } from './loopbackIssuer';

async function connect(server: HarnessMcpServer, connection: Parameters<HarnessMcpServer['connect']>[1], name = 'named') {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide, connection);
  const client = new Client({ name, version: '1' });
  await client.connect(clientSide);
  closers.push(() => client.close());
  return client;
}

describe('serve relays progress', () => {
  it("passes a server's progress to the gateway client that asked for it, under the client's own token", async () => {
    const harness = new McpHarness({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { fix: fixtureEntry() } }, reconnectDelaysMs: [] });
    closers.push(() => harness.dispose());
    await harness.start();
    const server = new HarnessMcpServer(harness, { gateway: true });
    closers.push(() => server.dispose());
    const client = await connect(server, { transport: 'stdio' });
    const progress: Array<[number, number | undefined, string | undefined]> = [];
    const result = await client.callTool({ name: 'mcp__fix__slow', arguments: { steps: 3, stepMs: 5 } }, { onprogress: (p) => void progress.push([p.progress, p.total, p.message]) });
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([
      [1, 3, 'step 1'],
      [2, 3, 'step 2'],
      [3, 3, 'step 3'],
    ]);
    // A client that sent no progress token is sent no progress (which it could not match to its call).
    const errors: unknown[] = [];
    client.onerror = (err) => void errors.push(err);
    expect((await client.callTool({ name: 'mcp__fix__slow', arguments: { steps: 2, stepMs: 5 } })).isError).toBeFalsy();
    expect(errors).toEqual([]);
  });
});

describe('serve names a client to hooks', () => {
  it("by its MCP session when it has one, else by its transport, name and address", async () => {
    const { dir, cleanup } = tempDir();
    closers.push(cleanup);
    const seen = path.join(dir, 'seen.jsonl');
    const hook: HookDefinition = { id: 'h', event: 'PreToolUse', matcher: '', command: `cat >> '${seen}'; echo >> '${seen}'`, timeoutSec: 10, onError: 'block', origin: { source: 'user', file: 'settings.json', jsonPath: 'hooks' } };
    const rig = memoryHarness({ docs: { command: 'docs' } }, { docs: { tools: { search: 'found' } } }, { hooks: { definitions: [hook], permit: () => undefined } });
    closers.push(() => rig.harness.dispose());
    await rig.harness.start();
    const server = new HarnessMcpServer(rig.harness, { gateway: true });
    closers.push(() => server.dispose());
    for (const connection of [{ transport: 'http', sessionId: 's-9' }, { transport: 'stdio' }, { transport: 'http', remoteAddress: '10.1.2.3' }] as const) {
      const client = await connect(server, connection);
      expect((await client.callTool({ name: 'mcp__docs__search', arguments: {} })).isError).toBeFalsy();
    }
    const sessions = fs.readFileSync(seen, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { session_id: string }).session_id);
    expect(sessions).toEqual(['s-9', 'stdio:named:local', 'http:named:10.1.2.3']);
  });
});

describe('serve tells of list changes', () => {
  it('only sessions that are connected and initialized: nothing is sent to the others and nothing fails', async () => {
    const { connectClient, server, last, logs } = await serve();
    const { client } = await connectClient();
    const heard: string[] = [];
    client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('resources'));
    // Connected, never initialized: its peer must see no notification.
    const [peer, idle] = InMemoryTransport.createLinkedPair();
    const peerGot: JSONRPCMessage[] = [];
    peer.onmessage = (m) => void peerGot.push(m);
    await peer.start();
    await server.connect(idle, { transport: 'stdio' });
    // Made for a connection that never came: sending to it would fail (and be logged).
    server.createServer({ transport: 'http' }, true);
    last('docs').server.registerResource('extra', 'note://extra', {}, () => ({ contents: [{ uri: 'note://extra', text: 'extra' }] }));
    await expect.poll(() => heard).toEqual(['resources']);
    await new Promise((r) => setTimeout(r, 20));
    expect(peerGot).toEqual([]);
    expect(logs).toEqual([]);
  });
});

describe('serve catalog names', () => {
  it('numbers prompts whose names clash, in the order of their servers', async () => {
    const entries = { 'p.q': { command: 'docs' }, p_q: { command: 'docs' }, 'p q': { command: 'docs' } };
    const { connectClient } = await serve({ gateway: true }, entries);
    const { client } = await connectClient();
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['mcp__p_q__greet', 'mcp__p_q__greet_2', 'mcp__p_q__greet_3']);
  });

  it('encodes a closing brace that opens no expression in a URI template', () => {
    expect(gatewayUriTemplate('s', 'note://a}/{id}')).toBe('mcp-harness://s/note%3A%2F%2Fa%7D%2F{id}');
  });
});

describe('ServeOAuth key discovery', () => {
  it('goes on to the next metadata URL when one cannot be fetched at all', async () => {
    const idp = await loopbackIssuer('/tenant/');
    closers.push(() => idp.close());
    idp.documents.set('/tenant/.well-known/openid-configuration', { jwks_uri: idp.jwksUri });
    const urls: string[] = [];
    const verifier = new ServeOAuth({ issuer: idp.issuer }, (async (input: string | URL | Request, init?: RequestInit) => {
      urls.push(String(input));
      if (urls.length < 3) throw new TypeError('fetch failed');
      return fetch(input, init);
    }) as typeof fetch);
    const resource = 'http://127.0.0.1:8123/mcp';
    expect(await verifier.verify(await idp.sign({ aud: resource, sub: 'alice' }), resource)).toMatchObject({ ok: true, value: { subject: 'alice' } });
    expect(urls).toHaveLength(3);
  });
});
