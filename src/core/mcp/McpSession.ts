// Over 300 lines because the handshake is one sequence with its fallbacks (a probe answered, refused
// or unanswered; another kind of transport; a sign-in) and the live session's upkeep (relists,
// liveness probes, the list-change stream, closing once): both act on the same client and
// transport. Handlers, transports, error classification and OAuth live in their own files.
import {
  type Client,
  type CallToolResult,
  type Implementation,
  type JSONRPCMessage,
  type McpSubscription,
  type SubscriptionFilter,
  type ServerCapabilities,
  type VersionNegotiationMode,
  type RequestMethod,
  type ResultTypeMap,
} from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { isAuthFailure, type IMcpConnectAuth } from '../auth/types';
import type { McpTransportKind } from '../config/types';
import { Emitter, type Event } from '../base/event';
import type { McpLogEntry } from './McpServerSnapshot';
import { McpCallError } from './McpCallError';
import { CALL_TOOL_RESULT_SCHEMA } from './callToolResultSchema';
import { StdioTracingTransport, TracingTransport } from './TracingTransport';
import { McpLists, type McpListKind } from './McpLists';
import { describeError } from '../base/errors';
import { mapLogLevel, truncate } from './describe';
import { redactFormAnswers } from '../requests/redactAnswers';
import { clientCapabilities, registerClientHandlers, type IMcpClientHandlers } from './McpClientHandlers';
import { classifyCallError, explainStartFailure } from './mcpErrors';
import type { IMcpTransportFactory } from './McpTransportConnector';
import { McpTaskAwareClient } from '../tasks/McpTaskAwareClient';
import { McpTaskClient } from '../tasks/McpTaskClient';
import { McpClientTasks } from '../tasks/McpClientTasks';
import { createdTaskFrom, McpTaskWire, type McpCreatedTask } from '../tasks/McpTaskWire';
import { followTask } from '../tasks/McpTaskFollow';
import { answerTaskInput } from '../tasks/answerTaskInput';
import type { IMcpTaskHost, McpTaskCallContext } from '../tasks/taskHost';

export interface McpSessionOptions {
  readonly name: string;
  readonly clientInfo: Implementation;
  readonly handlers: IMcpClientHandlers;
  /** Time allowed for spawn or connect, initialize and the first listings. */
  readonly startupTimeoutMs: number;
  /** Makes this session's transports (a fresh one per handshake), given the OAuth of this connect. */
  transports(auth: IMcpConnectAuth | undefined): IMcpTransportFactory;
  /** Prepares OAuth for this connect (HTTP servers with a sign-in host); without it a 401 is an error with advice about headers. */
  auth?(): Promise<IMcpConnectAuth>;
  /** Whether the entry sends its own Authorization header (a refusal is then about that token). */
  readonly sendsAuthorization?: boolean;
  log(level: McpLogEntry['level'], source: McpLogEntry['source'], message: string): void;
  /** Whether JSON-RPC traffic should be logged (trace level). */
  traceEnabled(): boolean;
  /** Tail of the server's stderr, for exit reasons. */
  stderrTail(): readonly string[];
  /** Follows calls that come back as tasks and keeps the host's own tasks (default: followed by the call itself). */
  readonly tasks?: IMcpTaskHost;
  /** The server's task operations for a follow that outlives this session (default: this session's). */
  taskClient?(signal: AbortSignal): Promise<McpTaskClient>;
}

export interface McpCallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs: number;
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
  /** For a call that may become a task: where it came from, whether to wait for it, and its states. */
  readonly task?: McpTaskCallContext;
}

const LIST_DEBOUNCE_MS = 100;
const LIVENESS_TIMEOUT_MS = 5000;

/**
 * One live connection to one server, protocol only: the handshake (with the revision probe and its
 * fallbacks), the client's handlers, the server's lists and the calls. Its transports come from the
 * factory it is given. It ends once, and says why through `onDidClose`.
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
  private _transport: TracingTransport | undefined;
  private _factory!: IMcpTransportFactory;
  private _closed = false;
  private _closeReason: string | undefined;
  private _probing = false;
  /** While a handshake runs, failures are the handshake's to report (no liveness probe, no close). */
  private _handshaking = false;
  /** Why the transport closed during a handshake that failed. */
  private _startFailure: string | undefined;
  /** The sign-in this session was opened with, while it can still reach the user. */
  private _auth: IMcpConnectAuth | undefined;
  private readonly _lists: McpLists;
  private readonly _relistTimers = new Map<McpListKind, NodeJS.Timeout>();
  /** The `subscriptions/listen` stream a 2026-07-28 server tells of list changes on. */
  private _subscription: McpSubscription | undefined;
  private readonly _finishAuth = (callback: URLSearchParams) => this._factory.finishAuth(callback);
  private _skills: SkillsClient | undefined;
  /** What the current transport saw of tasks, and this session's task operations over it. */
  private _taskWire: McpTaskWire | undefined;
  private _tasks!: McpTaskClient;
  /** Servers' task-augmented requests, run as tasks of ours while this session lives. */
  private readonly _clientTasks: McpClientTasks;

  private constructor(private readonly _o: McpSessionOptions) {
    this._lists = new McpLists(() => this._client, (m) => _o.log('warn', 'harness', m));
    this._clientTasks = _o.tasks?.clientTasks(_o.name) ?? new McpClientTasks(_o.name);
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
      throw signal.aborted
        ? signal.reason
        : explainStartFailure(err, {
            transportEnd: session._startFailure ?? session._closeReason,
            startupTimeoutMs: options.startupTimeoutMs,
            sendsAuthorization: options.sendsAuthorization ?? false,
          });
    }
  }

  /** The first listings; a server that now wants another sign-in (e.g. it moved) gets it here. */
  private async _listAll(signal: AbortSignal): Promise<void> {
    const list = () => this._lists.refreshAll(this.capabilities, signal);
    await (this._auth ? this._auth.withStepUp(list, this._finishAuth, signal) : list());
    if (this._client.getProtocolEra() === 'modern') this._listenForChanges(this._client);
  }

  get transportKind(): McpTransportKind {
    return this._factory.kind;
  }
  get pid(): number | undefined {
    return this._transport && this._factory.pid(this._transport.inner);
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
    return this._client.getNegotiatedProtocolVersion();
  }
  get lists(): McpLists {
    return this._lists;
  }
  /** The Skills extension on this connection: `skills/list`, `skills/get`, verified file reads. */
  get skills(): SkillsClient {
    return (this._skills ??= new SkillsClient(this._client, { skipInvalid: true }));
  }
  get closed(): boolean {
    return this._closed;
  }
  /** The task operations of this session (`tasks/get`, `tasks/update`, `tasks/cancel`, ...), in its revision's vocabulary. */
  get tasks(): McpTaskClient {
    return this._tasks;
  }

  /** Calls a tool by its original name. Rejects with {@link McpCallError} when no result came back. */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    if (this._closed) throw new McpCallError('connection_closed', this._closeReason!);
    try {
      // A server asking for more scopes mid-session (step-up) after an interactive sign-in: the user
      // is asked again (once for all calls refused together) and the call is made again.
      const attempt = () => this._callOnce(name, args, options);
      return await (this._auth ? this._auth.withStepUp(attempt, this._finishAuth, options.signal) : attempt());
    } catch (err) {
      const created = createdTaskFrom(err);
      if (created) return this._followTask(name, created, options);
      throw this._callFailed(err, options);
    }
  }

  /** A call that came back as a task: followed to its result (by the host's tasks when there are any), checked like any result. */
  private async _followTask(name: string, created: McpCreatedTask, options: McpCallOptions): Promise<CallToolResult> {
    const client = this._o.taskClient ?? (async () => this._tasks);
    const tool = this._lists.tools.find((t) => t.name === name);
    const call = { server: this._o.name, tool: name, title: tool?.title ?? tool?.annotations?.title ?? name, created, client, signal: options.signal, timeoutMs: options.timeoutMs, onProgress: options.onProgress, context: options.task };
    const result = this._o.tasks
      ? await this._o.tasks.follow(call)
      : await followTask({ server: this._o.name, created, client, signal: options.signal, requestTimeoutMs: options.timeoutMs, onProgress: options.onProgress });
    if (!options.task?.detach) this._checkOutput(name, result);
    return result;
  }

  /**
   * Sends any other request (`resources/read`, `prompts/get`, ...); the SDK validates the answer by
   * method. Used by hosts that pass requests on, such as a gateway. Rejects with {@link McpCallError}.
   */
  async request<M extends RequestMethod>(
    request: { method: M; params?: Record<string, unknown> },
    options: McpCallOptions,
  ): Promise<ResultTypeMap[M]> {
    if (this._closed) throw new McpCallError('connection_closed', this._closeReason!);
    try {
      return await this._client.request(request, {
        signal: options.signal,
        timeout: options.timeoutMs,
        maxTotalTimeout: options.maxTotalTimeoutMs,
      });
    } catch (err) {
      throw this._callFailed(err, options);
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
    if (this._client.getProtocolEra() === 'modern') return this._checked(name, await this._client.callTool(params, requestOptions));
    // A 2025-11-25 server runs a tool that allows tasks as one when asked to (`task`); the server alone decides on 2026-07-28.
    const asTask = McpTaskClient.serverSupports(this.capabilities, false) && McpTaskClient.allowsTask(this._lists.tools.find((t) => t.name === name));
    return this._checked(name, await this._client.request({ method: 'tools/call', params: asTask ? { ...params, task: {} } : params }, CALL_TOOL_RESULT_SCHEMA, requestOptions));
  }

  private _checked(name: string, result: CallToolResult): CallToolResult {
    this._checkOutput(name, result);
    return result;
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

  /**
   * `notifications/roots/list_changed` to a 2025-era server. The SDK sends it only where it means
   * something: not when no roots were declared, not to a 2026-07-28 server (which asks for roots
   * with each request), not once the connection closed.
   */
  notifyRootsChanged(): void {
    void this._client.sendRootsListChanged().catch(() => undefined);
  }

  /** Ends the connection (for stdio: stdin closed, then SIGTERM and SIGKILL to the process group). */
  async close(): Promise<void> {
    this._markClosed(undefined);
    await this._transport?.close().catch(() => undefined);
  }

  /** The caller's error for a failed call, acting on what the failure says about the session. */
  private _callFailed(err: unknown, options: McpCallOptions): McpCallError {
    const failure = classifyCallError(err, {
      aborted: options.signal?.aborted === true,
      timeoutMs: options.timeoutMs,
      closeReason: this._closeReason,
      usesOAuth: this._o.auth !== undefined,
    });
    if (failure.session === 'end') {
      // The tokens are gone or no longer accepted: end the session, so the connection says "sign-in required".
      this._markClosed('the sign-in is no longer valid');
      void this._transport?.close();
    } else if (failure.session === 'probe') {
      this._checkLiveness();
    }
    return failure.error;
  }

  private async _connect(signal: AbortSignal): Promise<void> {
    const auth = this._o.auth ? await this._o.auth() : undefined;
    this._factory = this._o.transports(auth);
    if (!auth) return this._handshake(signal);
    try {
      // After the browser step the failed transport redeems the code, then a fresh one connects.
      await auth.run(() => this._handshake(signal), this._finishAuth, signal);
    } catch (err) {
      auth.dispose();
      throw err;
    }
    // Kept while the session lives when the user signed in now: a step-up can ask again.
    if (auth.keepsForSession) this._auth = auth;
    else auth.dispose();
  }

  /** The handshake, once more on another kind of transport when the factory says the first kind was wrong. */
  private async _handshake(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        return await this._negotiate(signal);
      } catch (err) {
        const switched = signal.aborted ? undefined : this._factory.fallBack(err);
        if (switched === undefined) throw err;
        this._o.log('info', 'harness', switched);
        await this._transport?.close().catch(() => undefined);
      }
    }
  }

  /**
   * Probes with `server/discover` where the transport allows it. A 2025-era server that fails the
   * probe the way such servers do (it hangs up, or never answers) is greeted with `initialize`
   * alone on a fresh transport.
   */
  private async _negotiate(signal: AbortSignal): Promise<void> {
    const probeTimeoutMs = this._factory.probeTimeoutMs(this._o.startupTimeoutMs);
    if (probeTimeoutMs === undefined) return this._connectWith('legacy', signal);
    try {
      await this._connectWith('auto', signal, probeTimeoutMs);
    } catch (err) {
      const why = signal.aborted ? undefined : this._factory.probeFallback(err, probeTimeoutMs);
      if (why === undefined) throw err;
      this._o.log('info', 'harness', why);
      await this._transport?.close().catch(() => undefined);
      await this._connectWith('legacy', signal);
    }
  }

  /**
   * A transport that closes before the handshake ends does not end the session: the caller may try
   * again (a legacy retry, a connect after signing in). Its reason is kept for the error.
   */
  private async _connectWith(mode: VersionNegotiationMode, signal: AbortSignal, probeTimeoutMs?: number): Promise<void> {
    const inner = this._factory.create();
    this._client = this._createClient(mode, probeTimeoutMs);
    const trace = (dir: 'send' | 'receive', msg: JSONRPCMessage) => this._traceMessage(dir, msg);
    this._taskWire?.dispose();
    const wire = (this._taskWire = new McpTaskWire());
    this._tasks = new McpTaskClient(this._client, wire, (request, signal) => answerTaskInput(this._o.handlers, this._o.name, request, signal));
    // The SDK tells a local pipe from HTTP by the transport's shape (`pid`, `stderr`).
    const transport =
      this._factory.kind === 'stdio' ? new StdioTracingTransport(inner, this._o.traceEnabled, trace, wire) : new TracingTransport(inner, this._o.traceEnabled, trace, wire);
    this._transport = transport;
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
    const onAbort = () => void transport.close();
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

  private _createClient(mode: VersionNegotiationMode, probeTimeoutMs: number | undefined): Client {
    const client = new McpTaskAwareClient(this._o.clientInfo, {
      capabilities: clientCapabilities(this._o.handlers),
      versionNegotiation: { mode, probe: probeTimeoutMs === undefined ? undefined : { timeoutMs: probeTimeoutMs } },
    });
    client.attachTasks(this._clientTasks);
    registerClientHandlers(client, this._o.name, this._o.handlers, {
      listChanged: (kind) => this._scheduleRelist(kind),
      resourceUpdated: (uri) => {
        this._onDidUpdateResource.fire(uri); // a no-op once closed: the emitter is disposed
      },
      serverLog: (level, text) => this._o.log(mapLogLevel(level), 'server', text),
    });
    return client;
  }

  private _scheduleRelist(kind: McpListKind): void {
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
    if (this._factory.kind === 'stdio' || this._probing || this._closed || this._handshaking) return;
    this._probing = true;
    // 2026-07-28 has no ping; server/discover is the cheap request there.
    const probe = this._client.getProtocolEra() === 'modern' ? this._client.discover({ timeout: LIVENESS_TIMEOUT_MS }) : this._client.ping({ timeout: LIVENESS_TIMEOUT_MS });
    probe
      .catch((err) => {
        if (this._closed) return;
        this._markClosed(`the server stopped answering: ${describeError(err)}`);
        void this._transport?.close();
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
    this._clientTasks.dispose();
    this._closeReason = reason ?? 'connection closed';
    for (const timer of this._relistTimers.values()) clearTimeout(timer);
    this._relistTimers.clear();
    if (reason !== undefined) this._onDidClose.fire(reason);
    this._onDidClose.dispose();
    this._onDidChangeLists.dispose();
    this._onDidUpdateResource.dispose();
  }

  private _describeTransportEnd(): string {
    return this._factory.describeEnd(this._transport!.inner, this._o.stderrTail());
  }

  private _traceMessage(direction: 'send' | 'receive', message: JSONRPCMessage): void {
    this._o.log('trace', 'rpc', `${direction === 'send' ? '→' : '←'} ${truncate(JSON.stringify(redactFormAnswers(message)), 4000)}`);
  }
}
