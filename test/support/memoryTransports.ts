import { InMemoryTransport, StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { createMcpHandler, type McpServer, type Server } from '@modelcontextprotocol/server';
import type { McpTransportKind } from '../../src/core/config/types';
import type { IMcpTransportFactory } from '../../src/core/mcp/McpTransportConnector';

/** A client transport linked in memory to `server` (a 2025-era peer: the 2.x server refuses `server/discover` on it). */
export function linkedTo(server: McpServer | Server): InMemoryTransport {
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  void server.connect(serverSide);
  return client;
}

/**
 * A 2026-07-28 server in memory: the SDK's HTTP handler answering a Streamable HTTP client through
 * its `fetch` (no socket). `notify` publishes list changes to open `subscriptions/listen` streams.
 */
export function modernEndpoint(makeServer: () => McpServer | Server, options: { legacy?: 'stateless' | 'reject' } = {}) {
  const handler = createMcpHandler(() => makeServer(), { legacy: options.legacy ?? 'stateless' });
  const methods: string[] = [];
  let down = false;
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (down) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1') });
    const request = new Request(input, init);
    if (request.method === 'POST') methods.push((JSON.parse(await request.clone().text()) as { method?: string }).method ?? 'response');
    return handler.fetch(request);
  };
  return {
    handler,
    /** The methods of every POST, in order. */
    methods,
    transport: () => new StreamableHTTPClientTransport(new URL('http://in-memory.test/mcp'), { fetch }),
    /** While true, every request fails as a refused connection does. */
    setDown: (value: boolean) => (down = value),
  };
}

/** Watches (and may refuse) what a client sends on `transport`. */
export function tapSends(transport: Transport, onSend: (message: JSONRPCMessage) => Error | void): Transport {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const refusal = onSend(message);
    if (refusal) throw refusal;
    return send(message, options);
  };
  return transport;
}

export interface TestFactoryOptions {
  readonly kind?: McpTransportKind;
  /** Makes the n-th transport (0-based). */
  make(index: number): Transport;
  /** Default 1 s, none for SSE. */
  probeTimeoutMs?(startupTimeoutMs: number): number | undefined;
  probeFallback?(err: unknown): string | undefined;
  /** When it returns a line, the next transport is of kind `switchTo`. */
  fallBack?(err: unknown): string | undefined;
  readonly switchTo?: McpTransportKind;
  readonly pid?: number;
  readonly endReason?: string;
}

/** An {@link IMcpTransportFactory} whose transports and failure readings the test decides. */
export class TestTransportFactory implements IMcpTransportFactory {
  readonly created: Transport[] = [];
  readonly finished: URLSearchParams[] = [];
  private _kind: McpTransportKind;

  constructor(private readonly _o: TestFactoryOptions) {
    this._kind = _o.kind ?? 'http';
  }

  get kind(): McpTransportKind {
    return this._kind;
  }

  create(): Transport {
    const transport = this._o.make(this.created.length);
    this.created.push(transport);
    return transport;
  }

  probeTimeoutMs(startupTimeoutMs: number): number | undefined {
    if (this._o.probeTimeoutMs) return this._o.probeTimeoutMs(startupTimeoutMs);
    return this._kind === 'sse' ? undefined : Math.min(1000, startupTimeoutMs);
  }

  probeFallback(err: unknown): string | undefined {
    return this._o.probeFallback?.(err);
  }

  fallBack(err: unknown): string | undefined {
    const line = this._o.fallBack?.(err);
    if (line !== undefined && this._o.switchTo) this._kind = this._o.switchTo;
    return line;
  }

  describeEnd(_transport: Transport, stderrTail: readonly string[]): string {
    const last = stderrTail.at(-1);
    return this._o.endReason ?? (last ? `the test server went away: ${last}` : 'the test server went away');
  }

  pid(): number | undefined {
    return this._o.pid;
  }

  async finishAuth(callback: URLSearchParams): Promise<void> {
    this.finished.push(callback);
  }
}
