import { describe, expect, it } from 'vitest';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioTracingTransport, TracingTransport } from '../../../src/core/mcp/TracingTransport';

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
