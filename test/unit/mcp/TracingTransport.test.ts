import { describe, expect, it } from 'vitest';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { TracingTransport } from '../../../src/core/mcp/TracingTransport';

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
