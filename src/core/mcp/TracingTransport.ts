import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

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
