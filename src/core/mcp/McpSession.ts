import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type CallToolResult,
  type FetchLike,
  type CreateMessageRequest,
  type CreateMessageResult,
  type CreateMessageResultWithTools,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type JSONRPCMessage,
  type McpSubscription,
  type Root,
  type SubscriptionFilter,
  type ServerCapabilities,
  type Transport,
  type VersionNegotiationMode,
  type RequestMethod,
  type ResultTypeMap,
} from '@modelcontextprotocol/client';
import type { McpResolvedLaunch } from '../config';
import { McpHttpAuth } from '../auth/McpHttpAuth';
import { AUTH_REQUEST_TIMEOUT_MS } from '../auth/McpAuthFetchGuard';
import type { McpOAuthProvider } from '../auth/McpOAuthProvider';
import { McpAuthRequiredError, McpScopeRequiredError, type IMcpAuthHost } from '../auth/types';
import type { McpTransportKind } from '../config/types';
import { Emitter, type Event } from '../base/event';
import type { McpLogEntry } from './McpServerSnapshot';
import { McpCallError } from './McpCallError';
import { McpStdioTransport } from './McpStdioTransport';
import { StdioTracingTransport, TracingTransport } from './TracingTransport';
import { McpLists, type McpListKind } from './McpLists';
import { describeError, findCause, someCause } from '../base/errors';
import { formatSeconds, mapLogLevel, truncate } from './describe';
import { clientCapabilities } from '../requests/clientCapabilities';
import { redactFormAnswers } from '../requests/redactAnswers';

/** Answers that a server may ask of the client. Absent handlers mean the capability is not declared. */
export interface IMcpClientHandlers {
  /** Answers `elicitation/create` (form mode, and URL mode with `elicitUrl`). */
  elicit?(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  readonly elicitUrl?: boolean;
  /** Answers `sampling/createMessage` (with tools when `samplingTools`). */
  sample?(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult | CreateMessageResultWithTools>;
  readonly samplingTools?: boolean;
  /** Workspace roots offered through `roots/list`. */
  roots?(): readonly Root[];
}

export interface McpSessionOptions {
  readonly name: string;
  readonly launch: McpResolvedLaunch;
  readonly clientInfo: Implementation;
  readonly handlers: IMcpClientHandlers;
  /** Time allowed for spawn or connect, initialize and the first listings. */
  readonly startupTimeoutMs: number;
  readonly maxMessageBytes?: number;
  readonly shutdownGraceMs?: number;
  /** OAuth for HTTP servers; without it a 401 is an error with advice about headers. */
  readonly auth?: { readonly host: IMcpAuthHost; readonly interactive: boolean };
  log(level: McpLogEntry['level'], source: McpLogEntry['source'], message: string): void;
  /** Whether JSON-RPC traffic should be logged (trace level). */
  traceEnabled(): boolean;
  /** Tail of the server's stderr, for exit reasons. */
  stderrTail(): readonly string[];
}

export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs: number;
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
}

const LIST_DEBOUNCE_MS = 100;
const LIVENESS_TIMEOUT_MS = 5000;
/** A stdio server that does not answer `server/discover` within this is taken for a 2025-era server. */
const STDIO_PROBE_TIMEOUT_MS = 3000;
/**
 * The same over HTTP, where a 2025-era server may hold an unknown request open. Long enough for a
 * 2026-07-28 server on a loaded machine to answer (answering late only costs it the newer
 * revision, if it also speaks 2025-11-25); at most half the startup time, so `initialize` still fits.
 */
const HTTP_PROBE_TIMEOUT_MS = 10_000;

/**
 * One live connection to one server: a transport, an SDK client, and the server's lists.
 * Opening it runs the whole handshake; it ends once, and says why through `onDidClose`.
 */
export class McpSession {
  private readonly _onDidClose = new Emitter<string>();
  /** Fires with the reason when the connection ends without `close()` being called. */
  readonly onDidClose: Event<string> = this._onDidClose.event;
  private readonly _onDidChangeLists = new Emitter<McpListKind>();
  readonly onDidChangeLists: Event<McpListKind> = this._onDidChangeLists.event;
  private readonly _onDidUpdateResource = new Emitter<string>();
  /** A resource subscribed to with `resources/subscribe` changed (its URI, as the server knows it). */
  readonly onDidUpdateResource: Event<string> = this._onDidUpdateResource.event;

  private _client!: Client;
  private _transport!: TracingTransport;
  private _kind: McpTransportKind;
  private _closed = false;
  private _closeReason: string | undefined;
  private _probing = false;
  /** While a handshake runs, failures are the handshake's to report (no liveness probe, no close). */
  private _handshaking = false;
  /** Why the transport closed during a handshake that failed. */
  private _startFailure: string | undefined;
  /** The sign-in this session was opened with, while it can still reach the user. */
  private _auth: McpHttpAuth | undefined;
  private readonly _lists: McpLists;
  private readonly _relistTimers = new Map<McpListKind, NodeJS.Timeout>();
  /** The `subscriptions/listen` stream a 2026-07-28 server tells of list changes on. */
  private _subscription: McpSubscription | undefined;

  private constructor(private readonly _o: McpSessionOptions) {
    this._kind = _o.launch.type;
    this._lists = new McpLists(() => this._client, (m) => _o.log('warn', 'harness', m));
  }

  /** Connects, initializes and lists. Rejects with a message fit for a user when anything fails. */
  static async open(options: McpSessionOptions, signal: AbortSignal): Promise<McpSession> {
    const session = new McpSession(options);
    try {
      await session._connect(signal);
      await session._listAll(signal);
      if (signal.aborted) throw signal.reason;
      return session;
    } catch (err) {
      await session.close();
      throw signal.aborted ? signal.reason : session._explainStartFailure(err);
    }
  }

  /** The first listings; a server that now wants another sign-in (e.g. it moved) gets it here. */
  private async _listAll(signal: AbortSignal): Promise<void> {
    try {
      await this._lists.refreshAll(this.capabilities, signal);
    } catch (err) {
      if (!this._auth?.canStepUp || !isAuthFailure(err)) throw err;
      await this._auth.stepUp((callback) => (this._transport.inner as StreamableHTTPClientTransport).finishAuth(callback), signal);
      await this._lists.refreshAll(this.capabilities, signal);
    }
    if (this._client.getProtocolEra() === 'modern') this._listenForChanges(this._client);
  }

  get transportKind(): McpTransportKind {
    return this._kind;
  }
  get pid(): number | undefined {
    return this._transport.inner instanceof McpStdioTransport ? this._transport.inner.pid : undefined;
  }
  get serverInfo(): Implementation | undefined {
    return this._client.getServerVersion();
  }
  get capabilities(): ServerCapabilities {
    return this._client.getServerCapabilities() ?? {};
  }
  get instructions(): string | undefined {
    return this._client.getInstructions();
  }
  /** The revision this connection speaks: 2026-07-28 after `server/discover`, else what `initialize` agreed. */
  get protocolVersion(): string | undefined {
    return this._client.getNegotiatedProtocolVersion() ?? this._transport.protocolVersion;
  }
  get lists(): McpLists {
    return this._lists;
  }
  get closed(): boolean {
    return this._closed;
  }

  /** Calls a tool by its original name. Rejects with {@link McpCallError} when no result came back. */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    if (this._closed) throw new McpCallError('connection_closed', this._closeReason ?? 'connection closed');
    const stepUpsBefore = this._auth?.stepUpsDone;
    try {
      return await this._callOnce(name, args, options);
    } catch (err) {
      // A server asking for more scopes mid-session (step-up) after an interactive sign-in: the user
      // is asked again (once for all calls refused together), the browser opens once more, and the
      // call is made again with the new token.
      const auth = this._auth;
      const steppedUp = auth !== undefined && auth.stepUpsDone !== stepUpsBefore;
      if (!auth || !(steppedUp || auth.canStepUp) || options.signal?.aborted || !isAuthFailure(err)) throw this._classifyCallError(err, options);
      try {
        if (!steppedUp) await auth.stepUp((callback) => (this._transport.inner as StreamableHTTPClientTransport).finishAuth(callback), options.signal ?? new AbortController().signal);
        return await this._callOnce(name, args, options);
      } catch (again) {
        throw this._classifyCallError(again, options);
      }
    }
  }

  /**
   * Sends any other request (`resources/read`, `prompts/get`, ...); the SDK validates the answer by
   * method. Used by hosts that pass requests on, such as a gateway. Rejects with {@link McpCallError}.
   */
  async request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options: McpCallOptions,
  ): Promise<ResultTypeMap[M]> {
    if (this._closed) throw new McpCallError('connection_closed', this._closeReason ?? 'connection closed');
    try {
      return await this._client.request(request, {
        signal: options.signal,
        timeout: options.timeoutMs,
        maxTotalTimeout: options.maxTotalTimeoutMs,
      });
    } catch (err) {
      throw this._classifyCallError(err, options);
    }
  }

  private async _callOnce(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const requestOptions = {
      signal: options.signal,
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: options.maxTotalTimeoutMs,
      onprogress: (p: { progress: number; total?: number; message?: string }) => options.onProgress?.(p),
    };
    const params = { name, arguments: args };
    // On 2026-07-28 the SDK's callTool adds the tool's Mcp-Param-* headers (from its listing).
    const result =
      this._client.getProtocolEra() === 'modern'
        ? await this._client.callTool(params, requestOptions)
        : await this._client.request({ method: 'tools/call', params }, requestOptions);
    this._checkOutput(name, result as CallToolResult);
    return result as CallToolResult;
  }

  /** Checks structured output against the tool's output schema, as the SDK's own client would. */
  private _checkOutput(name: string, result: CallToolResult): void {
    const validate = this._lists.outputValidator(name);
    if (!validate || result.isError) return;
    if (result.structuredContent === undefined) {
      throw new McpCallError('protocol', `tool "${name}" declares an output schema but returned no structured content`);
    }
    const check = validate(result.structuredContent);
    if (!check.valid) {
      throw new McpCallError('protocol', `tool "${name}" returned structured content that does not match its output schema: ${check.errorMessage}`);
    }
  }

  /** `notifications/roots/list_changed` to a 2025-era server (a 2026-07-28 one asks for roots with each request). */
  notifyRootsChanged(): void {
    if (!this._closed && this._o.handlers.roots && this._client.getProtocolEra() !== 'modern') void this._client.sendRootsListChanged().catch(() => undefined);
  }

  /** Ends the connection (for stdio: stdin closed, then SIGTERM and SIGKILL to the process group). */
  async close(): Promise<void> {
    this._markClosed(undefined);
    await this._transport?.close().catch(() => undefined);
  }

  private _classifyCallError(err: unknown, options: McpCallOptions): McpCallError {
    if (err instanceof McpCallError) return err;
    if (options.signal?.aborted) return new McpCallError('cancelled', 'the call was cancelled');
    const scopeRequired = findCause(err, McpScopeRequiredError);
    if (scopeRequired) {
      // The saved sign-in still works for the rest: the session stays; this call needs another sign-in.
      return new McpCallError('unavailable', scopeRequired.message);
    }
    if (this._o.auth && isAuthFailure(err)) {
      // The tokens are gone or no longer accepted: end the session, so the connection says "sign-in required".
      this._markClosed('the sign-in is no longer valid');
      void this._transport.close();
      return new McpCallError('unavailable', 'sign-in required: the saved sign-in is no longer valid, sign in again');
    }
    if (err instanceof ProtocolError) {
      return new McpCallError('protocol', `server error ${err.code}: ${err.message.replace(/^MCP error -?\d+: /, '')}`, err.code);
    }
    if (err instanceof SdkError) {
      if (err.code === SdkErrorCode.RequestTimeout) {
        return new McpCallError('timeout', `no answer within ${formatSeconds(options.timeoutMs)}`, REQUEST_TIMEOUT_CODE);
      }
      if (err.code === SdkErrorCode.ConnectionClosed) {
        return new McpCallError('connection_closed', this._closeReason ?? 'the server closed the connection', CONNECTION_CLOSED_CODE);
      }
      if (err.code === SdkErrorCode.InvalidResult) {
        // The SDK validates answers against the MCP schema; this one did not fit.
        return new McpCallError('protocol', `the server's answer is not a valid tool result: ${err.message}`);
      }
      if (err.code === SdkErrorCode.InputRequiredRoundsExceeded) {
        return new McpCallError('protocol', `the server kept asking for input: ${err.message}`);
      }
      if (!(err instanceof SdkHttpError)) return new McpCallError('protocol', err.message);
    }
    // Anything else failed below JSON-RPC: the request could not be sent or the stream broke.
    this._checkLiveness();
    return new McpCallError('connection_closed', `could not reach the server: ${describeError(err)}`);
  }

  private async _connect(signal: AbortSignal): Promise<void> {
    const { launch } = this._o;
    if (launch.type === 'stdio') return this._connectStdio(signal);
    const url = new URL(launch.url!);
    const requestInit = { headers: { ...launch.headers } };
    const auth = this._o.auth
      ? await McpHttpAuth.create({
          server: this._o.name,
          serverUrl: launch.url!,
          host: this._o.auth.host,
          interactive: this._o.auth.interactive,
          preregistered: launch.oauth,
          hasAuthorizationHeader: hasAuthorizationHeader(launch.headers),
          // Inside the handshake's own time, so a silent authorization server is named as the cause.
          requestTimeoutMs: Math.min(AUTH_REQUEST_TIMEOUT_MS, Math.floor(this._o.startupTimeoutMs / 2)),
          log: (message) => this._o.log('info', 'harness', message),
        })
      : undefined;
    const authProvider = auth?.provider;
    if (!auth) return this._connectHttp(url, requestInit, undefined, undefined, signal);
    const authFetch = auth.fetch(undefined, requestInit);
    try {
      // After the browser step the failed transport redeems the code, then a fresh one connects.
      await auth.run(
        () => this._connectHttp(url, requestInit, authProvider, authFetch, signal),
        (callback) => (this._transport.inner as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(callback),
        signal,
      );
    } catch (err) {
      auth.dispose();
      throw err;
    }
    // Kept while the session lives when the user signed in now: a step-up can ask again.
    if (auth.provider?.interactive) this._auth = auth;
    else auth.dispose();
  }

  private async _connectHttp(
    url: URL,
    requestInit: RequestInit,
    authProvider: McpOAuthProvider | undefined,
    fetch: FetchLike | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    if (this._kind === 'sse') return this._connectWith(new SSEClientTransport(url, { requestInit, authProvider, fetch }), 'legacy', signal);
    try {
      await this._connectStreamable(() => new StreamableHTTPClientTransport(url, { requestInit, authProvider, fetch, maxStepUpRetries: 2 }), signal);
    } catch (err) {
      // The spec's backwards-compatibility rule: a 4xx to the first POST means a legacy SSE server.
      // Authorization failures are not that; they are reported as they are.
      const status = err instanceof SdkHttpError ? err.status : undefined;
      if (signal.aborted || status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) throw err;
      this._o.log('info', 'harness', `Streamable HTTP answered ${status}; trying the legacy SSE transport`);
      this._kind = 'sse';
      await this._connectWith(new SSEClientTransport(url, { requestInit, authProvider, fetch }), 'legacy', signal);
    }
  }

  /**
   * Probes with `server/discover`. The SDK takes an HTTP server that does not answer the probe for
   * a broken one; a 2025-era server that ignores unknown requests is like that, so a probe that
   * times out is followed by `initialize` alone on a fresh transport. An answer of 4xx or
   * -32601 the SDK already takes for a 2025-era server.
   */
  private async _connectStreamable(transport: () => StreamableHTTPClientTransport, signal: AbortSignal): Promise<void> {
    const probeTimeoutMs = Math.min(HTTP_PROBE_TIMEOUT_MS, Math.floor(this._o.startupTimeoutMs / 2));
    try {
      await this._connectWith(transport(), 'auto', signal, probeTimeoutMs);
    } catch (err) {
      if (signal.aborted || !isProbeTimeout(err, probeTimeoutMs)) throw err;
      this._o.log(
        'info',
        'harness',
        `no answer to server/discover within ${formatSeconds(probeTimeoutMs)}: taking it for a 2025-era server that ignores unknown requests, trying initialize`,
      );
      await this._transport.close().catch(() => undefined);
      await this._connectWith(transport(), 'legacy', signal);
    }
  }

  /**
   * Probes with `server/discover` on the server process itself. A 2025-era server that ends the
   * connection on the unknown request is started again and greeted with `initialize` alone.
   */
  private async _connectStdio(signal: AbortSignal): Promise<void> {
    try {
      await this._connectWith(this._stdioTransport(), 'auto', signal, Math.min(STDIO_PROBE_TIMEOUT_MS, this._o.startupTimeoutMs));
    } catch (err) {
      if (signal.aborted || !(err instanceof SdkError) || err.code !== SdkErrorCode.EraNegotiationFailed) throw err;
      this._o.log('info', 'harness', 'the server ended the connection on server/discover; starting it again for initialize');
      await this._transport.close().catch(() => undefined);
      await this._connectWith(this._stdioTransport(), 'legacy', signal);
    }
  }

  /**
   * A transport that closes before the handshake ends does not end the session: the caller may try
   * again (a legacy retry, a connect after signing in). Its reason is kept for the error.
   */
  private async _connectWith(inner: Transport, mode: VersionNegotiationMode, signal: AbortSignal, probeTimeoutMs?: number): Promise<void> {
    this._client = this._createClient(mode, probeTimeoutMs);
    const trace = (dir: 'send' | 'receive', msg: JSONRPCMessage) => this._traceMessage(dir, msg);
    this._transport =
      inner instanceof McpStdioTransport
        ? new StdioTracingTransport(inner, this._o.traceEnabled, trace)
        : new TracingTransport(inner, this._o.traceEnabled, trace);
    const transport = this._transport;
    const client = this._client;
    let closedWhileHandshaking = false;
    // A transport whose handshake failed is the caller's to retry or report; its close ends nothing.
    let handshakeFailed = false;
    this._handshaking = true;
    transport.onclose = () => {
      if (this._transport !== transport || handshakeFailed) return;
      if (this._handshaking) closedWhileHandshaking = true;
      else this._onTransportClosed();
    };
    client.onerror = (err) => {
      if (this._client === client) this._onProtocolError(err);
    };
    const onAbort = () => void this._transport.close();
    signal.addEventListener('abort', onAbort);
    try {
      await client.connect(transport, { signal, timeout: this._o.startupTimeoutMs });
    } catch (err) {
      handshakeFailed = true;
      if (closedWhileHandshaking) this._startFailure = this._describeTransportEnd();
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      this._handshaking = false;
    }
    if (closedWhileHandshaking) this._onTransportClosed();
    else if (mode === 'auto' && client.getProtocolEra() !== 'modern') {
      this._o.log('info', 'harness', `the server did not take server/discover (a 2025-era server): connected with initialize, protocol ${this.protocolVersion ?? 'unknown'}`);
    }
  }

  private _stdioTransport(): McpStdioTransport {
    const { launch } = this._o;
    return new McpStdioTransport({
      launch: { command: launch.command!, args: launch.args, env: launch.env, cwd: launch.cwd },
      maxMessageBytes: this._o.maxMessageBytes,
      shutdownGraceMs: this._o.shutdownGraceMs,
      onStderrLine: (line) => this._o.log('info', 'stderr', line),
      onStdoutNoise: (line) => this._o.log('warn', 'stdout', `skipped a stdout line that is not JSON-RPC: ${truncate(line, 300)}`),
    });
  }

  /**
   * The same handlers answer a 2025-era server's own requests and the `input_required` rounds of a
   * 2026-07-28 server (the SDK retries the original request with the answers).
   */
  private _createClient(mode: VersionNegotiationMode, probeTimeoutMs: number | undefined): Client {
    const { handlers, name } = this._o;
    const capabilities = clientCapabilities(handlers);
    const client = new Client(this._o.clientInfo, {
      capabilities,
      versionNegotiation: { mode, probe: probeTimeoutMs === undefined ? undefined : { timeoutMs: probeTimeoutMs } },
    });
    if (handlers.roots) {
      const roots = handlers.roots;
      client.setRequestHandler('roots/list', () => ({ roots: [...roots()] }));
    }
    if (handlers.elicit) {
      const elicit = handlers.elicit;
      client.setRequestHandler('elicitation/create', (request, ctx) => elicit(name, request.params as ElicitRequest['params'], ctx.mcpReq.signal));
    }
    const sample = handlers.sample;
    if (sample) client.setRequestHandler('sampling/createMessage', (request, ctx) => sample(name, request.params, ctx.mcpReq.signal));
    client.setNotificationHandler('notifications/tools/list_changed', () => this._scheduleRelist('tools'));
    client.setNotificationHandler('notifications/resources/list_changed', () => this._scheduleRelist('resources'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => this._scheduleRelist('prompts'));
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      if (!this._closed) this._onDidUpdateResource.fire(n.params.uri);
    });
    client.setNotificationHandler('notifications/message', (n) => {
      const { level, logger, data } = n.params;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      this._o.log(mapLogLevel(level), 'server', logger ? `[${logger}] ${text}` : text);
    });
    return client;
  }

  private _scheduleRelist(kind: McpListKind): void {
    if (this._closed) return;
    clearTimeout(this._relistTimers.get(kind));
    this._relistTimers.set(
      kind,
      setTimeout(() => {
        this._relistTimers.delete(kind);
        void this._lists.refresh(kind, this.capabilities).then((changed) => {
          if (changed && !this._closed) this._onDidChangeLists.fire(kind);
        });
      }, LIST_DEBOUNCE_MS),
    );
  }

  private _onProtocolError(err: Error): void {
    if (this._closed) return;
    this._o.log('warn', 'harness', `transport: ${describeError(err)}`);
    // A refused token is the call's to handle (step-up, "sign-in required"), not a dead server.
    if (isAuthFailure(err)) return;
    this._checkLiveness();
  }

  /** HTTP transports do not close when the server dies; a failed ping is how we find out. */
  private _checkLiveness(): void {
    if (this._kind === 'stdio' || this._probing || this._closed || this._handshaking) return;
    this._probing = true;
    // 2026-07-28 has no ping; server/discover is the cheap request there.
    const probe = this._client.getProtocolEra() === 'modern' ? this._client.discover({ timeout: LIVENESS_TIMEOUT_MS }) : this._client.ping({ timeout: LIVENESS_TIMEOUT_MS });
    probe
      .catch((err) => {
        if (this._closed) return;
        this._markClosed(`the server stopped answering: ${describeError(err)}`);
        void this._transport.close();
      })
      .finally(() => (this._probing = false));
  }

  /** A 2026-07-28 server tells of list changes only on a `subscriptions/listen` stream; a 2025-era one sends them unasked. */
  private _listenForChanges(client: Client): void {
    const caps = this.capabilities;
    const filter: SubscriptionFilter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (Object.keys(filter).length === 0) return;
    client.listen(filter, { timeout: LIVENESS_TIMEOUT_MS }).then(
      (subscription) => {
        if (this._closed) void subscription.close().catch(() => undefined);
        else this._subscription = subscription;
      },
      (err: unknown) => {
        if (!this._closed) this._o.log('warn', 'harness', `list changes will not be seen: subscriptions/listen failed: ${describeError(err)}`);
      },
    );
  }

  private _onTransportClosed(): void {
    this._markClosed(this._describeTransportEnd());
  }

  private _markClosed(reason: string | undefined): void {
    if (this._closed) return;
    this._closed = true;
    void this._subscription?.close().catch(() => undefined);
    this._subscription = undefined;
    this._auth?.dispose();
    this._auth = undefined;
    this._closeReason = reason ?? 'connection closed';
    for (const timer of this._relistTimers.values()) clearTimeout(timer);
    this._relistTimers.clear();
    if (reason !== undefined) this._onDidClose.fire(reason);
    this._onDidClose.dispose();
    this._onDidChangeLists.dispose();
    this._onDidUpdateResource.dispose();
  }

  private _describeTransportEnd(): string {
    const inner = this._transport.inner;
    if (!(inner instanceof McpStdioTransport)) return 'the server closed the connection';
    if (inner.failure) return inner.failure;
    const exit = inner.exit;
    const how = !exit
      ? 'the server closed its output'
      : exit.signal
        ? `the server process was killed by ${exit.signal}`
        : `the server process exited with code ${exit.code}`;
    const last = this._o.stderrTail().at(-1);
    return last ? `${how}: ${truncate(last, 300)}` : how;
  }

  private _explainStartFailure(err: unknown): Error {
    if (err instanceof McpAuthRequiredError) return err;
    if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed && (this._startFailure ?? this._closeReason)) {
      return new Error(this._startFailure ?? this._closeReason);
    }
    if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
      return new Error(`no answer to initialize within ${formatSeconds(this._o.startupTimeoutMs)}`);
    }
    const status = err instanceof SdkHttpError ? err.status : err instanceof SseError ? err.code : undefined;
    if (status === 401 || status === 403) {
      if (hasAuthorizationHeader(this._o.launch.headers)) {
        return new Error(
          `the server refused the connection (HTTP ${status}): the "Authorization" header was sent and rejected. ` +
            `Check that the token is valid, not expired and allowed to use this server, or remove the header to sign in with OAuth`,
        );
      }
      return new Error(
        `the server refused the connection (HTTP ${status}): it needs credentials. Add an "Authorization" header ` +
          `to its entry, e.g. "headers": { "Authorization": "Bearer \${input:token}" }`,
      );
    }
    return new Error(describeError(err));
  }

  private _traceMessage(direction: 'send' | 'receive', message: JSONRPCMessage): void {
    this._o.log('trace', 'rpc', `${direction === 'send' ? '→' : '←'} ${truncate(JSON.stringify(redactFormAnswers(message)), 4000)}`);
  }
}

/** Whether `headers` carries an Authorization header (names are case-insensitive). */
export function hasAuthorizationHeader(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/** JSON-RPC codes the 1.x line used for a local timeout and a closed connection; kept on {@link McpCallError}. */
const REQUEST_TIMEOUT_CODE = -32001;
const CONNECTION_CLOSED_CODE = -32000;


/**
 * Whether a connect failed because the version probe went unanswered. The SDK's timeout carries
 * the time it waited; the probe's is shorter than `initialize`'s (the startup time), so the two
 * cannot be mistaken for each other.
 */
function isProbeTimeout(err: unknown, probeTimeoutMs: number): boolean {
  if (!(err instanceof SdkError) || err.code !== SdkErrorCode.RequestTimeout) return false;
  const data = err.data as { timeout?: unknown } | undefined;
  return data?.timeout === probeTimeoutMs;
}

/** A failure that only signing in (again) can fix. */
function isAuthFailure(err: unknown): boolean {
  return someCause(err, (e) => e instanceof McpAuthRequiredError || e instanceof UnauthorizedError || (e instanceof SdkHttpError && e.status === 401));
}
