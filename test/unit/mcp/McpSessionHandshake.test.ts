import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import type { IMcpConnectAuth } from '../../../src/core/auth/types';
import { linkedTo, tapSends, TestTransportFactory } from '../../support/memoryTransports';
import { sessionOpener } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };

function echoServer(name = 'echo-server'): McpServer {
  const server = new McpServer({ name, version: '2.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

/** `transport`, with the method of each request it sends added to `methods`. */
function recording(transport: Transport, methods: string[]): Transport {
  return tapSends(transport, (m) => void ('method' in m && methods.push(m.method)));
}

/** A transport whose start fails, as a connection refused does. */
function refusing(): Transport {
  const transport = linkedTo(echoServer('never'));
  transport.start = async () => Promise.reject(new Error('connection refused'));
  return transport;
}

/** Makes transports whose first one cannot be made (it throws `why`), the next to a server named `name`. */
function failingFirst(why: string, name: string): () => Transport {
  let made = 0;
  return () => {
    if (made++ === 0) throw new Error(why);
    return linkedTo(echoServer(name));
  };
}

/** A transport to a server that never answers the revision probe (it drops `server/discover`). */
function unansweredProbe(sent?: () => void): Transport {
  const transport = linkedTo(echoServer());
  const send = transport.send.bind(transport);
  transport.send = async (m: JSONRPCMessage, o) => {
    if (!('method' in m) || m.method !== 'server/discover') return send(m, o);
    sent?.();
  };
  return transport;
}

describe('McpSession handshake attempts', () => {
  it('greets a server without a probe with initialize alone: no server/discover on the wire', async () => {
    const methods: string[] = [];
    const factory = new TestTransportFactory({ kind: 'sse', make: () => recording(linkedTo(echoServer()), methods) });
    await open(factory).opened;
    expect(methods[0]).toBe('initialize');
    expect(methods).not.toContain('server/discover');
  });

  it('does not probe again on the fresh transport after a probe fallback', async () => {
    const methods: string[][] = [[], []];
    const make = (i: number) => {
      const transport = recording(linkedTo(echoServer()), methods[i]);
      if (i > 0) return transport;
      return tapSends(transport, (m) => void ('method' in m && m.method === 'server/discover' && transport.close()));
    };
    await open(new TestTransportFactory({ kind: 'stdio', make, probeFallback: () => 'hung up on the probe' })).opened;
    expect(methods[0]).toEqual(['server/discover']);
    expect(methods[1][0]).toBe('initialize');
    expect(methods[1]).not.toContain('server/discover');
  });

  it('takes an unanswered probe on a remote transport for a failure, not for a 2025-era server', async () => {
    const factory = new TestTransportFactory({ kind: 'http', probeTimeoutMs: () => 50, make: () => unansweredProbe() });
    await expect(open(factory).opened).rejects.toThrow('no answer to initialize within 5 s');
    expect(factory.created).toHaveLength(1);
  });

  it('falls back to another kind of transport when the first one could not even be made', async () => {
    const factory: TestTransportFactory = new TestTransportFactory({
      make: failingFirst('no such endpoint', 'sse-server'),
      fallBack: () => (factory.created.length === 0 ? 'trying SSE' : undefined),
      switchTo: 'sse',
    });
    const session = await open(factory).opened;
    expect(session.serverInfo?.name).toBe('sse-server');
  });

  it('falls back from the probe when the first transport could not even be made', async () => {
    const factory = new TestTransportFactory({
      make: failingFirst('spawn failed', 'second'),
      probeFallback: () => 'greeting with initialize',
    });
    const { opened, logs } = open(factory);
    expect((await opened).serverInfo?.name).toBe('second');
    expect(logs).toContain('info harness greeting with initialize');
  });

  it('keeps the session when the transport that failed to start is closed before the next attempt', async () => {
    const factory: TestTransportFactory = new TestTransportFactory({
      kind: 'http',
      probeTimeoutMs: () => undefined,
      make: (i) => (i === 0 ? refusing() : linkedTo(echoServer('sse-server'))),
      fallBack: () => (factory.created.length === 1 ? 'refused; trying SSE' : undefined),
      switchTo: 'sse',
    });
    const session = await open(factory).opened;
    expect(factory.created).toHaveLength(2);
    expect(session.closed).toBe(false);
    expect(await session.callTool('echo', { text: 'still here' }, call)).toMatchObject({ content: [{ text: 'still here' }] });
  });

  it('takes no notice of errors from the transport of an earlier attempt', async () => {
    const factory: TestTransportFactory = new TestTransportFactory({
      probeTimeoutMs: () => undefined,
      make: (i) => (i === 0 ? refusing() : linkedTo(echoServer())),
      fallBack: () => (factory.created.length === 1 ? 'refused; trying again' : undefined),
    });
    const { opened, logs } = open(factory);
    const session = await opened;
    (factory.created[0] as { onerror?: (e: Error) => void }).onerror?.(new Error('late news from the first attempt'));
    (factory.created[1] as { onerror?: (e: Error) => void }).onerror?.(new Error('news from the live one'));
    expect(logs.filter((l) => l.includes('transport:'))).toEqual(['warn harness transport: news from the live one']);
    expect(session.closed).toBe(false);
  });

  it('takes no notice of transport errors once closed', async () => {
    const factory = new TestTransportFactory({ make: () => linkedTo(echoServer()) });
    const { opened, logs } = open(factory);
    const session = await opened;
    await session.close();
    (factory.created[0] as { onerror?: (e: Error) => void }).onerror?.(new Error('after the end'));
    expect(logs.filter((l) => l.includes('transport:'))).toEqual([]);
  });
});

describe('McpSession opening, cancelled', () => {
  it('stops a handshake waiting on the probe as soon as it is aborted, by closing its transport', async () => {
    const controller = new AbortController();
    const factory = new TestTransportFactory({
      probeTimeoutMs: () => 60_000,
      make: () => unansweredProbe(() => controller.abort(new Error('stopped by the user'))),
    });
    await expect(open(factory, { startupTimeoutMs: 60_000 }, controller.signal).opened).rejects.toThrow('stopped by the user');
  });

  it('leaves an open session alone when the signal it was opened with aborts later', async () => {
    const controller = new AbortController();
    const session = await open(new TestTransportFactory({ make: () => linkedTo(echoServer()) }), {}, controller.signal).opened;
    controller.abort();
    expect(session.closed).toBe(false);
    expect(await session.callTool('echo', { text: 'after' }, call)).toMatchObject({ content: [{ text: 'after' }] });
  });

  it('gives up an open aborted while the first lists came in, with the abort reason', async () => {
    const controller = new AbortController();
    const auth: IMcpConnectAuth = {
      provider: undefined,
      keepsForSession: true,
      fetch: () => {
        throw new Error('not used in memory');
      },
      run: (connect) => connect(),
      // The listing completes, and the user cancels right then.
      withStepUp: async (attempt) => {
        const result = await attempt();
        controller.abort(new Error('cancelled while listing'));
        return result;
      },
      dispose: () => undefined,
    };
    const factory = new TestTransportFactory({ make: () => linkedTo(echoServer()) });
    await expect(open(factory, { auth: async () => auth }, controller.signal).opened).rejects.toThrow('cancelled while listing');
  });
});
