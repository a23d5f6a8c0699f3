import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/client';

/** Sees every message below the SDK; may keep an incoming one from it (see `McpTaskWire`). */
export interface ITransportTap {
  sent(message: JSONRPCMessage): void;
  /** What to deliver to the SDK, or undefined to deliver nothing. */
  received(message: JSONRPCMessage): JSONRPCMessage | undefined;
}

/**
 * Passes everything through to another transport, reporting each JSON-RPC message while
 * `enabled()` says so (a log at trace level). Costs one call per message when off.
 */
export class TracingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  private _held: Array<[JSONRPCMessage, MessageExtraInfo | undefined]> = [];

  constructor(
    readonly inner: Transport,
    private readonly _enabled: () => boolean,
    private readonly _trace: (direction: 'send' | 'receive', message: JSONRPCMessage) => void,
    private readonly _tap?: ITransportTap,
  ) {
    // After any response still held back (see _receive), so it is not lost to the close.
    inner.onclose = () => (this._held.length > 0 ? queueMicrotask(() => this.onclose?.()) : this.onclose?.());
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if (this._enabled()) this._trace('receive', message);
      const delivered = this._tap ? this._tap.received(message) : message;
      if (delivered) this._receive(delivered, extra);
    };
  }

  /**
   * The SDK handles notifications a microtask late but responses at once, so a final progress
   * notification read together with its response found its request gone and was dropped. A
   * response (and whatever follows it) is delivered one microtask later, in arrival order.
   */
  private _receive(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    const isResponse = 'id' in message && !('method' in message);
    if (!isResponse && this._held.length === 0) {
      this.onmessage?.(message, extra);
      return;
    }
    this._held.push([message, extra]);
    if (this._held.length === 1) queueMicrotask(this._deliverHeld);
  }

  /** One function for every response, not a closure each. */
  private readonly _deliverHeld = (): void => {
    const held = this._held;
    this._held = [];
    for (const [m, e] of held) this.onmessage?.(m, e);
  };

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
    this._tap?.sent(message);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }
}

/**
 * The stdio flavour: exposes `pid` and `stderr` as the SDK's own stdio transport does, which is how
 * the SDK tells a local pipe (silence on `server/discover` means a 2025-era server) from HTTP.
 */
export class StdioTracingTransport extends TracingTransport {
  declare readonly inner: Transport & { readonly pid?: number };

  get pid(): number | undefined {
    return this.inner.pid;
  }

  /** Stderr is read line by line by the inner transport; nothing else may consume it. */
  get stderr(): null {
    return null;
  }
}
