import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { McpSession, type McpSessionOptions } from '../../../src/core/mcp/McpSession';
import type { IMcpTransportFactory } from '../../../src/core/mcp/McpTransportConnector';

/** Opens sessions with quiet defaults and remembers them, so a suite can close them all after each test. */
export function sessionOpener() {
  const opened: McpSession[] = [];
  function open(factory: IMcpTransportFactory, extra: Partial<McpSessionOptions> = {}, signal = new AbortController().signal) {
    const logs: string[] = [];
    const options: McpSessionOptions = {
      name: 'mem',
      clientInfo: { name: 'test-client', version: '1.0.0' },
      handlers: {},
      startupTimeoutMs: 5000,
      transports: () => factory,
      log: (level, source, message) => logs.push(`${level} ${source} ${message}`),
      traceEnabled: () => false,
      stderrTail: () => [],
      ...extra,
    };
    const session = McpSession.open(options, signal).then((s) => {
      opened.push(s);
      return s;
    });
    return { opened: session, logs };
  }
  const closeAll = () => Promise.all(opened.splice(0).map((s) => s.close()));
  return { open, closeAll };
}

/** What a scripted peer answers a request with: a result, or a JSON-RPC error. */
export type PeerAnswer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } };

/**
 * A 2025-era server written by hand, for answers the SDK's server would not give (tasks, odd
 * listings): `answer` decides each request by method; unknown methods (the revision probe among
 * them) get "method not found". Every message the client sends is kept in `received`.
 */
export function scriptedPeer(capabilities: Record<string, unknown>, answer: (method: string, params: Record<string, unknown>) => PeerAnswer | undefined) {
  const [client, peer] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  peer.onmessage = (m: JSONRPCMessage) => {
    received.push(m);
    if (!('id' in m) || !('method' in m)) return;
    const params = (m.params ?? {}) as Record<string, unknown>;
    const reply =
      m.method === 'initialize'
        ? { result: { protocolVersion: params.protocolVersion, capabilities, serverInfo: { name: 'scripted', version: '1' } } }
        : (answer(m.method, params) ?? { error: { code: -32601, message: 'Method not found' } });
    void peer.send({ jsonrpc: '2.0', id: m.id, ...reply } as JSONRPCMessage);
  };
  void peer.start();
  return { transport: client as Transport, received };
}

/** The params of each request of `method` among `messages`, in order. */
export function paramsOf(messages: readonly JSONRPCMessage[], method: string): Record<string, unknown>[] {
  return messages.filter((m) => 'method' in m && m.method === method).map((m) => ((m as { params?: Record<string, unknown> }).params ?? {}));
}
