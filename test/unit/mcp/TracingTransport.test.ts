import { describe, expect, it } from 'vitest';
import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { StdioTracingTransport, TracingTransport, type ITransportTap } from '../../../src/core/mcp/TracingTransport';

const progress = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } });
const response = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { content: [] } });

async function linked(enabled: () => boolean) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const traced: Array<[string, JSONRPCMessage]> = [];
  const transport = new TracingTransport(clientSide, enabled, (direction, message) => traced.push([direction, message]));
  const received: JSONRPCMessage[] = [];
  transport.onmessage = (message) => received.push(message);
  await transport.start();
  await serverSide.start();
  return { transport, serverSide, received, traced };
}

describe('TracingTransport', () => {
  it('delivers a response one microtask late, with what follows it, in arrival order, batch after batch', async () => {
    const { serverSide, received } = await linked(() => false);
    await serverSide.send(progress(1)); // a notification with nothing held goes straight through
    expect(received).toEqual([progress(1)]);

    for (const batch of [
      [response(1), progress(2), response(2)],
      [response(3), progress(3)],
    ]) {
      received.length = 0;
      for (const message of batch) void serverSide.send(message);
      expect(received).toEqual([]);
      await Promise.resolve();
      await Promise.resolve();
      expect(received).toEqual(batch);
    }
  });

  it('traces both directions only while enabled', async () => {
    let enabled = false;
    const { transport, serverSide, traced } = await linked(() => enabled);
    await serverSide.send(progress(1));
    await transport.send(response(7));
    expect(traced).toEqual([]);
    enabled = true;
    await serverSide.send(progress(2));
    await transport.send(response(8));
    expect(traced).toEqual([
      ['receive', progress(2)],
      ['send', response(8)],
    ]);
  });
});

describe('TracingTransport, passing things on', () => {
  it('delivers a server request at once, and a close after the responses held back', async () => {
    const { transport, serverSide, received } = await linked(() => false);
    const request: JSONRPCMessage = { jsonrpc: '2.0', id: 9, method: 'roots/list' };
    void serverSide.send(request);
    expect(received).toEqual([request]);
    received.length = 0;
    const events: string[] = [];
    transport.onmessage = () => events.push('message');
    transport.onclose = () => events.push('close');
    void serverSide.send(response(1));
    void serverSide.close();
    await new Promise((r) => setTimeout(r, 0));
    expect(events).toEqual(['message', 'close']);
  });

  it('closes at once when nothing is held, and passes errors on', async () => {
    const { transport, serverSide } = await linked(() => false);
    const events: string[] = [];
    transport.onclose = () => events.push('close');
    transport.onerror = (e) => events.push(`error ${e.message}`);
    (transport.inner as { onerror?: (e: Error) => void }).onerror?.(new Error('broken pipe'));
    await serverSide.close();
    expect(events).toEqual(['error broken pipe', 'close']);
  });

  it('shows the inner transport\'s session, stream kind and process, and tells it the protocol version', () => {
    const seen: string[] = [];
    const inner = { sessionId: 's-1', hasPerRequestStream: true, pid: 42, start: async () => undefined, send: async () => undefined, close: async () => undefined, setProtocolVersion: (v: string) => void seen.push(v) };
    const transport = new StdioTracingTransport(inner, () => false, () => undefined);
    expect([transport.sessionId, transport.hasPerRequestStream, transport.pid, transport.stderr]).toEqual(['s-1', true, 42, null]);
    transport.setProtocolVersion('2025-11-25');
    expect(seen).toEqual(['2025-11-25']);
  });
});

describe('TracingTransport, a close that comes with a response', () => {
  it('delivers the response before telling of the close', async () => {
    const { transport, serverSide } = await linked(() => false);
    const events: string[] = [];
    transport.onmessage = () => events.push('message');
    transport.onclose = () => events.push('close');
    void serverSide.send(response(5));
    (transport.inner as { onclose?: () => void }).onclose?.();
    expect(events).toEqual([]);
    await Promise.resolve();
    await Promise.resolve();
    expect(events).toEqual(['message', 'close']);
  });
});

/** A transport that only records what it is asked to send; the test plays its peer through its handlers. */
function bareInner() {
  const sent: JSONRPCMessage[] = [];
  const inner: Transport = { start: async () => undefined, send: async (m) => void sent.push(m), close: async () => undefined };
  const peer = inner as Required<Pick<Transport, 'onclose' | 'onerror' | 'onmessage'>>;
  return { inner, peer, sent };
}

describe('TracingTransport, its tap', () => {
  it('shows the tap what is sent, and delivers what the tap gives back for each message received, or nothing', async () => {
    const { inner, peer, sent } = bareInner();
    const tapped: JSONRPCMessage[] = [];
    const tap: ITransportTap = {
      sent: (m) => void tapped.push(m),
      received: (m) => ('method' in m && m.method === 'notifications/tasks/status' ? undefined : m),
    };
    const transport = new TracingTransport(inner, () => false, () => undefined, tap);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.send(response(1));
    expect([tapped, sent]).toEqual([[response(1)], [response(1)]]);
    peer.onmessage({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 't1' } });
    peer.onmessage(progress(1));
    expect(received).toEqual([progress(1)]);
  });
});

describe('TracingTransport, timing', () => {
  it('tells of a close at once when nothing is held back', () => {
    const { inner, peer } = bareInner();
    const transport = new TracingTransport(inner, () => false, () => undefined);
    const events: string[] = [];
    transport.onclose = () => events.push('close');
    peer.onclose();
    expect(events).toEqual(['close']);
  });

  it('delivers a response that arrives during a delivery one microtask later, after the batch it interrupted', async () => {
    const { inner, peer } = bareInner();
    const transport = new TracingTransport(inner, () => false, () => undefined);
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (m) => {
      received.push(m);
      // The SDK answering a response by sending something that brings another response at once.
      if (m === first) peer.onmessage(third);
    };
    const [first, second, third] = [response(1), response(2), response(3)];
    peer.onmessage(first);
    peer.onmessage(second);
    await Promise.resolve();
    expect(received).toEqual([first, second]);
    await Promise.resolve();
    expect(received).toEqual([first, second, third]);
  });

  it('fails nothing when no one listens', async () => {
    const { inner, peer } = bareInner();
    new TracingTransport(inner, () => false, () => undefined);
    expect(() => peer.onerror(new Error('broken pipe'))).not.toThrow();
    expect(() => peer.onmessage(progress(1))).not.toThrow();
    expect(() => peer.onclose()).not.toThrow();
    // Held back, then delivered and closed to no one a microtask later.
    peer.onmessage(response(1));
    peer.onclose();
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

  it('leaves an inner transport that cannot be told the protocol version alone', () => {
    const { inner } = bareInner();
    const transport = new TracingTransport(inner, () => false, () => undefined);
    expect(() => transport.setProtocolVersion('2025-11-25')).not.toThrow();
  });
});
