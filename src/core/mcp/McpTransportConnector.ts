import { SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client';
import type { IMcpConnectAuth } from '../auth/types';
import type { McpResolvedLaunch } from '../config';
import type { McpTransportKind } from '../config/types';
import { formatSeconds, truncate } from './describe';
import { isProbeRefused, isProbeTimeout } from './mcpErrors';
import { McpStdioTransport } from './McpStdioTransport';

/** A stdio server that does not answer `server/discover` within this is taken for a 2025-era server. */
const STDIO_PROBE_TIMEOUT_MS = 3000;
/**
 * The same over HTTP, where a 2025-era server may hold an unknown request open. Long enough for a
 * 2026-07-28 server on a loaded machine to answer (answering late only costs it the newer
 * revision, if it also speaks 2025-11-25); at most half the startup time, so `initialize` still fits.
 */
const HTTP_PROBE_TIMEOUT_MS = 10_000;

/**
 * Makes the transports of one session, a fresh one per handshake, and knows what their failures
 * mean. The session runs the protocol over whatever this gives it (tests give it linked in-memory
 * pairs).
 */
export interface IMcpTransportFactory {
  /** What the next `create()` makes (an HTTP server may turn out to be SSE). */
  readonly kind: McpTransportKind;
  create(): Transport;
  /** How long the `server/discover` probe may take on this kind; undefined: greet with `initialize` alone. */
  probeTimeoutMs(startupTimeoutMs: number): number | undefined;
  /**
   * When a probe failed the way a 2025-era server fails it on this kind (it hung up, or never
   * answered), the line to log before greeting it with `initialize` on a fresh transport.
   */
  probeFallback(err: unknown, probeTimeoutMs: number): string | undefined;
  /** When a failed handshake means another kind of transport (a 4xx to Streamable HTTP: SSE), switches and says so. */
  fallBack(err: unknown): string | undefined;
  /** Why `transport` (one this made) ended: the process's exit and its last stderr line, for stdio. */
  describeEnd(transport: Transport, stderrTail: readonly string[]): string;
  /** The server process behind `transport`, if there is one. */
  pid(transport: Transport): number | undefined;
  /** Redeems an authorization redirect on the last transport made (HTTP only). */
  finishAuth(callback: URLSearchParams): Promise<void>;
}

export interface McpTransportConnectorOptions {
  readonly launch: McpResolvedLaunch;
  /** OAuth for the HTTP transports of this connect. */
  readonly auth?: IMcpConnectAuth;
  readonly maxMessageBytes?: number;
  readonly shutdownGraceMs?: number;
  /** Sends the HTTP transports' requests (default: the global `fetch`). */
  readonly fetch?: FetchLike;
  onStderrLine(line: string): void;
  onStdoutNoise(line: string): void;
}

/** The real transports: a supervised process for stdio, Streamable HTTP with the spec's fallback to SSE. */
export class McpTransportConnector implements IMcpTransportFactory {
  private _kind: McpTransportKind;
  private _last: Transport | undefined;

  constructor(private readonly _o: McpTransportConnectorOptions) {
    this._kind = _o.launch.type;
  }

  get kind(): McpTransportKind {
    return this._kind;
  }

  create(): Transport {
    this._last = this._create();
    return this._last;
  }

  private _create(): Transport {
    const { launch, auth } = this._o;
    if (this._kind === 'stdio') {
      return new McpStdioTransport({
        launch: { command: launch.command!, args: launch.args, env: launch.env, cwd: launch.cwd },
        maxMessageBytes: this._o.maxMessageBytes,
        shutdownGraceMs: this._o.shutdownGraceMs,
        onStderrLine: (line) => this._o.onStderrLine(line),
        onStdoutNoise: (line) => this._o.onStdoutNoise(truncate(line, 300)),
      });
    }
    const url = new URL(launch.url!);
    const requestInit = { headers: { ...launch.headers } };
    const authProvider = auth?.provider;
    const fetch = auth?.fetch(this._o.fetch, requestInit) ?? this._o.fetch;
    if (this._kind === 'sse') return new SSEClientTransport(url, { requestInit, authProvider, fetch });
    return new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch, maxStepUpRetries: 2 });
  }

  probeTimeoutMs(startupTimeoutMs: number): number | undefined {
    if (this._kind === 'sse') return undefined;
    return this._kind === 'stdio' ? Math.min(STDIO_PROBE_TIMEOUT_MS, startupTimeoutMs) : Math.min(HTTP_PROBE_TIMEOUT_MS, Math.floor(startupTimeoutMs / 2));
  }

  probeFallback(err: unknown, probeTimeoutMs: number): string | undefined {
    if (this._kind === 'stdio') {
      return isProbeRefused(err) ? 'the server ended the connection on server/discover; starting it again for initialize' : undefined;
    }
    // The SDK takes an HTTP server that does not answer the probe for a broken one; a 2025-era
    // server that ignores unknown requests is like that. A 4xx or -32601 the SDK already handles.
    return isProbeTimeout(err, probeTimeoutMs)
      ? `no answer to server/discover within ${formatSeconds(probeTimeoutMs)}: taking it for a 2025-era server that ignores unknown requests, trying initialize`
      : undefined;
  }

  fallBack(err: unknown): string | undefined {
    if (this._kind !== 'http') return undefined;
    // The spec's backwards-compatibility rule: a 4xx to the first POST means a legacy SSE server.
    // Authorization failures are not that; they are reported as they are.
    const status = err instanceof SdkHttpError ? err.status : undefined;
    if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) return undefined;
    this._kind = 'sse';
    return `Streamable HTTP answered ${status}; trying the legacy SSE transport`;
  }

  describeEnd(transport: Transport, stderrTail: readonly string[]): string {
    if (!(transport instanceof McpStdioTransport)) return 'the server closed the connection';
    if (transport.failure) return transport.failure;
    const exit = transport.exit;
    const how = !exit
      ? 'the server closed its output'
      : exit.signal
        ? `the server process was killed by ${exit.signal}`
        : `the server process exited with code ${exit.code}`;
    const last = stderrTail.at(-1);
    return last ? `${how}: ${truncate(last, 300)}` : how;
  }

  pid(transport: Transport): number | undefined {
    return transport instanceof McpStdioTransport ? transport.pid : undefined;
  }

  finishAuth(callback: URLSearchParams): Promise<void> {
    const last = this._last;
    if (last instanceof StreamableHTTPClientTransport || last instanceof SSEClientTransport) return last.finishAuth(callback);
    return Promise.reject(new Error('no HTTP transport to finish signing in on'));
  }
}
