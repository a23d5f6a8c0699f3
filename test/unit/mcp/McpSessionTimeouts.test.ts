import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/v4';
import { linkedTo, TestTransportFactory } from '../../support/memoryTransports';
import { sessionOpener } from './McpSessionFixtures';

// The session's own waits (the liveness probe, the listen stream's acknowledgement) run on the
// SDK's request timers; fake timers stand in for the clock so that a wait is a step, not a sleep.
const { open, closeAll } = sessionOpener();
afterEach(async () => {
  vi.useRealTimers();
  await closeAll();
});

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };
const LIVENESS_MS = 5000;
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

function echoServer(capabilities: Record<string, unknown> = {}): McpServer {
  const server = new McpServer({ name: 'echo-server', version: '2.0.0' }, { capabilities: { tools: {}, ...capabilities } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

/**
 * A 2026-07-28 server in memory (the SDK's HTTP handler behind a `fetch`). Once `stopAnswering`
 * is called, calls cannot reach it and `server/discover` never comes back; `dropped` methods are
 * never answered at all.
 */
function modernServer(capabilities: Record<string, unknown> = {}, dropped: readonly string[] = []) {
  const handler = createMcpHandler(() => echoServer(capabilities), { legacy: 'stateless' });
  let answering = true;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const method = request.method === 'POST' ? (JSON.parse(await request.clone().text()) as { method?: string }).method : undefined;
    if (dropped.includes(method ?? '') || (!answering && method === 'server/discover')) return new Promise<Response>(() => undefined);
    if (!answering) throw new TypeError('fetch failed');
    return handler.fetch(request);
  };
  return {
    transport: (): Transport => new StreamableHTTPClientTransport(new URL('http://in-memory.test/mcp'), { fetch }),
    stopAnswering: () => (answering = false),
  };
}

describe('McpSession waits', () => {
  it('closes a 2025-era remote session whose server leaves the liveness ping unanswered for five seconds', async () => {
    let answering = true;
    const factory = new TestTransportFactory({
      make: () => {
        const transport = linkedTo(echoServer());
        const send = transport.send.bind(transport);
        transport.send = async (m, o) => {
          if (answering) return send(m, o);
          if ('method' in m && m.method === 'tools/call') throw new Error('socket hang up');
        };
        return transport;
      },
    });
    const session = await open(factory).opened;
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    fakeClock();
    answering = false;
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed' });
    await vi.advanceTimersByTimeAsync(LIVENESS_MS);
    expect(session.closed).toBe(true);
    expect(await closed).toMatch(/^the server stopped answering: /);
  });

  it('closes a 2026-07-28 session whose server leaves server/discover unanswered for five seconds', async () => {
    const endpoint = modernServer();
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() })).opened;
    expect(session.protocolVersion).toBe('2026-07-28');
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    fakeClock();
    endpoint.stopAnswering();
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed' });
    await vi.advanceTimersByTimeAsync(LIVENESS_MS);
    expect(session.closed).toBe(true);
    expect(await closed).toMatch(/^the server stopped answering: /);
  });

  it('warns after five seconds when the listen stream is never acknowledged', async () => {
    fakeClock();
    const endpoint = modernServer({ tools: { listChanged: true } }, ['subscriptions/listen']);
    const { opened, logs } = open(new TestTransportFactory({ make: () => endpoint.transport() }));
    await opened;
    await vi.advanceTimersByTimeAsync(LIVENESS_MS);
    expect(logs.filter((l) => l.includes('list changes will not be seen'))).toEqual([
      'warn harness list changes will not be seen: subscriptions/listen failed: subscriptions/listen ack timed out',
    ]);
  });
});
