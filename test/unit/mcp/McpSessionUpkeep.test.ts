import { StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { linkedTo, modernEndpoint, tapSends, TestTransportFactory } from '../../support/memoryTransports';
import { paramsOf, sessionOpener } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };

function echoServer(capabilities: Record<string, unknown> = {}): McpServer {
  const server = new McpServer({ name: 'echo-server', version: '2.0.0' }, { capabilities: { tools: {}, ...capabilities } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

/** `transport`, with every message the client sends kept in `sent`. */
function keeping(transport: Transport, sent: JSONRPCMessage[]): Transport {
  return tapSends(transport, (m) => void sent.push(m));
}

/** A 2026-07-28 server in memory (the SDK's HTTP handler behind a `fetch`), keeping the headers of each `tools/call`. */
function modernWithHeaders(makeServer: () => Server) {
  const handler = createMcpHandler(() => makeServer(), { legacy: 'stateless' });
  const callHeaders: Headers[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === 'POST' && (JSON.parse(await request.clone().text()) as { method?: string }).method === 'tools/call') callHeaders.push(request.headers);
    return handler.fetch(request);
  };
  return { callHeaders, transport: () => new StreamableHTTPClientTransport(new URL('http://in-memory.test/mcp'), { fetch }) };
}

describe('McpSession with a 2026-07-28 server, more', () => {
  it('asks the listen stream for every kind of list change the server announces', async () => {
    const sent: JSONRPCMessage[] = [];
    const endpoint = modernEndpoint(() => echoServer({ tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } }));
    await open(new TestTransportFactory({ make: () => keeping(endpoint.transport(), sent) })).opened;
    await expect.poll(() => paramsOf(sent, 'subscriptions/listen').map((p) => p.notifications)).toEqual([
      { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
    ]);
  });

  it('does not warn about a listen stream that ends because the session was closed', async () => {
    const endpoint = modernEndpoint(() => echoServer({ tools: { listChanged: true } }));
    let listening = false;
    const make = () => {
      const transport = endpoint.transport();
      const send = transport.send.bind(transport);
      // The stream is never acknowledged: it is still opening when the session closes.
      transport.send = async (m, o) => {
        if ('method' in m && m.method === 'subscriptions/listen') listening = true;
        else return send(m, o);
      };
      return transport;
    };
    const { opened, logs } = open(new TestTransportFactory({ make }));
    const session = await opened;
    await expect.poll(() => listening).toBe(true);
    await session.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(logs.filter((l) => l.includes('list changes will not be seen'))).toEqual([]);
  });

  it('calls a tool through the SDK, which mirrors its declared parameters into Mcp-Param headers', async () => {
    const tools = [{ name: 'regional', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }];
    const endpoint = modernWithHeaders(() => {
      const server = new Server({ name: 'raw', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({ tools }) as never);
      server.setRequestHandler('tools/call', () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    });
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() })).opened;
    expect(session.protocolVersion).toBe('2026-07-28');
    await session.callTool('regional', { region: 'eu-west' }, call);
    expect(endpoint.callHeaders.map((h) => h.get('mcp-param-region'))).toEqual(['eu-west']);
  });
});

describe('McpSession failed calls and the liveness probe', () => {
  it('does not ask a server whether it is there after it answered a request with an error', async () => {
    const sent: JSONRPCMessage[] = [];
    const session = await open(new TestTransportFactory({ make: () => keeping(linkedTo(echoServer()), sent) })).opened;
    await expect(session.request({ method: 'prompts/get', params: { name: 'none' } }, call)).rejects.toMatchObject({ kind: 'protocol' });
    await session.callTool('echo', { text: 'next' }, call);
    expect(paramsOf(sent, 'ping')).toEqual([]);
  });

  it('takes progress on a call whose caller does not listen for it without a transport error', async () => {
    const server = echoServer();
    server.registerTool('noisy', { description: 'Reports progress' }, async (ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const sent: JSONRPCMessage[] = [];
    const { opened, logs } = open(new TestTransportFactory({ make: () => keeping(linkedTo(server), sent) }));
    const session = await opened;
    expect(await session.callTool('noisy', {}, call)).toMatchObject({ content: [{ text: 'done' }] });
    await session.callTool('echo', { text: 'next' }, call);
    expect(logs.filter((l) => l.includes('transport:'))).toEqual([]);
    expect(paramsOf(sent, 'ping')).toEqual([]);
  });
});
