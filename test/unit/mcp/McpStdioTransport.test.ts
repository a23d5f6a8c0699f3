import { afterEach, describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { McpStdioTransport } from '../../../src/core/mcp/McpStdioTransport';

// Answers every request line with the number of the stdin read it arrived in and its size.
const ECHO_READS = `
let reads = 0, rest = '';
process.stdin.on('data', (chunk) => {
  reads++;
  const lines = (rest + chunk).split('\\n');
  rest = lines.pop();
  for (const line of lines) {
    const m = JSON.parse(line);
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { read: reads, size: line.length } }) + '\\n');
  }
});
`;

const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const transports: McpStdioTransport[] = [];

async function start(): Promise<{ transport: McpStdioTransport; replies: Map<number, { read: number; size: number }>; until(n: number): Promise<void> }> {
  const transport = new McpStdioTransport({ launch: { command: process.execPath, args: ['-e', ECHO_READS], env } });
  transports.push(transport);
  const replies = new Map<number, { read: number; size: number }>();
  const waiters: Array<() => void> = [];
  transport.onmessage = (message) => {
    if ('id' in message && 'result' in message) replies.set(Number(message.id), message.result as { read: number; size: number });
    waiters.splice(0).forEach((w) => w());
  };
  await transport.start();
  const until = async (n: number) => {
    while (replies.size < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { transport, replies, until };
}

const request = (id: number, text = 'x'): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

describe('McpStdioTransport send', () => {
  it('delivers many messages sent at once, in order, and later ones after them', async () => {
    const { transport, replies, until } = await start();
    await Promise.all(Array.from({ length: 20 }, (_, i) => transport.send(request(i))));
    await until(20);
    const reads = Array.from({ length: 20 }, (_, i) => replies.get(i)!.read);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));

    await transport.send(request(20));
    await until(21);
    expect(replies.get(20)!.read).toBeGreaterThan(reads[19]);
  });

  it('delivers a batch with a message far above the stream buffer, whole and in order', async () => {
    const { transport, replies, until } = await start();
    const big = 'y'.repeat(512 * 1024);
    const sent = [request(0), request(1, big), request(2)].map((m) => transport.send(m));
    await Promise.all(sent);
    await until(3);
    const sizes = [0, 1, 2].map((id) => replies.get(id)!.size);
    expect(sizes[1]).toBe(JSON.stringify(request(1, big)).length);
    expect(sizes[0]).toBe(sizes[2]);
  });

  it('refuses to send once the server has exited', async () => {
    const { transport } = await start();
    await transport.close();
    await expect(transport.send(request(0))).rejects.toThrow('server process is not running');
  });
});
