import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { McpStdioTransport } from './McpStdioTransport';

/**
 * Passes everything through to another transport, noting the negotiated protocol version and reporting each JSON-RPC message while
 * `enabled()` says so (a log at trace level). Costs one call per message when off.
 */
export class TracingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The protocol version the client negotiated (the SDK reports it to the transport). */
  protocolVersion: string | undefined;

  constructor(
    readonly inner: Transport,
    private readonly _enabled: () => boolean,
    private readonly _trace: (direction: 'send' | 'receive', message: JSONRPCMessage) => void,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (this._enabled()) this._trace('receive', message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Streamable HTTP opens one request per message; the SDK cancels by closing it on 2026-07-28. */
  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this._enabled()) this._trace('send', message);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.inner.setProtocolVersion?.(version);
  }
}

/**
 * The stdio flavour: exposes `pid` and `stderr` as the SDK's own stdio transport does, which is how
 * the SDK tells a local pipe (silence on `server/discover` means a 2025-era server) from HTTP.
 */
export class StdioTracingTransport extends TracingTransport {
  declare readonly inner: McpStdioTransport;

  get pid(): number | undefined {
    return this.inner.pid;
  }

  /** Stderr is read line by line by the inner transport; nothing else may consume it. */
  get stderr(): null {
    return null;
  }
}
