// Over 300 lines because lifecycle and readiness share one state: start, stop, restart, sign-in and
// reconnect all bump one generation and publish one snapshot, and a call waits on the same pending
// start. The reconnect policy (reconnectPolicy.ts), the session and its transports are apart.
import type { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { CallToolResult, Implementation, RequestMethod, ResultTypeMap } from '@modelcontextprotocol/client';
import { Disposable, DisposableStore } from '../base/lifecycle';
import { Emitter, type Event } from '../base/event';
import type { McpServerDefinition } from '../config/types';
import type { McpLaunchResolution, McpResolvedLaunch } from '../config';
import { LineRing } from '../process/LineRing';
import { McpCallError } from './McpCallError';
import { describeUnavailable, initialSnapshot, restingState, snapshotsEqual, type McpConnectionState, type McpLogEntry, type McpServerSnapshot } from './McpServerSnapshot';
import { describeError } from '../base/errors';
import { formatSeconds } from './describe';
import { McpSession, type McpCallOptions } from './McpSession';
import type { IMcpClientHandlers } from './McpClientHandlers';
import { McpTransportConnector, type IMcpTransportFactory } from './McpTransportConnector';
import { hasAuthorizationHeader } from './mcpErrors';
import { attemptsAfterDrop, gaveUpMessage, maxReconnects, nextReconnect, type ReconnectPolicy } from './reconnectPolicy';
import { McpAuthRequiredError, type IMcpConnectAuth, type IMcpServerAuth } from '../auth/types';
import type { IMcpTaskHost } from '../tasks/taskHost';
import type { McpTaskClient } from '../tasks/McpTaskClient';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_RECONNECT_DELAYS_MS: readonly number[] = [1000, 2000, 4000];
/** Longest wait between reconnect attempts of a remote server, which never runs out of attempts. */
export const DEFAULT_RECONNECT_MAX_DELAY_MS = 30_000;
/** Uptime after which a drop is no longer part of a crash loop. */
export const DEFAULT_STABLE_AFTER_MS = 30_000;
/** Time a sign-in may take, the browser step included. */
export const SIGN_IN_TIMEOUT_MS = 5 * 60_000;
const STDERR_LINES_KEPT = 200;
const STDERR_LINES_IN_SNAPSHOT = 20;

export interface McpConnectionOptions {
  readonly definition: McpServerDefinition;
  readonly clientInfo: Implementation;
  readonly handlers: IMcpClientHandlers;
  /** Substitutes variables and builds the environment at each start. */
  resolveLaunch(definition: McpServerDefinition): Promise<McpLaunchResolution>;
  /** Decides whether a server may start; a string is the reason it may not (e.g. untrusted workspace). */
  checkStart?(definition: McpServerDefinition): Promise<string | undefined>;
  /** The organisation's server policy: a string is why it may not start; checked before `checkStart`, so nobody is asked to approve it. */
  checkPolicy?(definition: McpServerDefinition): string | undefined;
  /**
   * Waits before each reconnect attempt after a running server drops. For stdio servers its length
   * is the attempt count; HTTP and SSE servers keep trying, doubling the last wait up to
   * `reconnectMaxDelayMs`. Empty: never reconnect.
   */
  readonly reconnectDelaysMs?: readonly number[];
  /** Cap on the wait between attempts of HTTP and SSE servers (default 30 s). */
  readonly reconnectMaxDelayMs?: number;
  /** Uptime after which a server that drops gets its reconnect attempts back (default 30 s). */
  readonly stableAfterMs?: number;
  readonly defaultStartupTimeoutMs?: number;
  readonly shutdownGraceMs?: number;
  readonly maxMessageBytes?: number;
  /** Whether to log this server's JSON-RPC traffic. */
  traceEnabled(server: string): boolean;
  /** Time and waiting, for reconnect backoff (default: the system clock and timers). */
  readonly clock?: IMcpClock;
  /** Makes a session's transports; default {@link McpTransportConnector} (a process, or HTTP with its SSE fallback). */
  createTransports?(launch: McpResolvedLaunch, auth: IMcpConnectAuth | undefined, sink: McpTransportLogSink): IMcpTransportFactory;
  /** OAuth sign-in for HTTP servers (asking the user, the redirect, the token store); see `McpServerAuth`. */
  readonly auth?: IMcpServerAuth;
  /** The harness's tasks: follows calls that come back as tasks (across reconnects), keeps the host's own. */
  readonly tasks?: IMcpTaskHost;
}

/** Where a transport's own output goes: the server's stderr lines, and stdout lines that are not JSON-RPC. */
export interface McpTransportLogSink {
  onStderrLine(line: string): void;
  onStdoutNoise(line: string): void;
}

/** The clock a connection schedules reconnects by. */
export interface IMcpClock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** The system clock and timers. */
export const systemClock: IMcpClock = { now: () => Date.now(), sleep: (ms, signal) => sleep(ms, signal) };

/**
 * Keeps one server connected: a state machine over {@link McpSession}s that starts, stops,
 * restarts, and reconnects with backoff when a running server drops. Every change is published as
 * a new immutable snapshot, and only when something changed.
 */
export class McpConnection extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<McpServerSnapshot>());
  readonly onDidChange: Event<McpServerSnapshot> = this._onDidChange.event;
  private readonly _onDidLog = this._register(new Emitter<McpLogEntry>());
  readonly onDidLog: Event<McpLogEntry> = this._onDidLog.event;
  private readonly _onDidUpdateResource = this._register(new Emitter<string>());
  /** The server said a subscribed resource changed (`notifications/resources/updated`; its own URI). */
  readonly onDidUpdateResource: Event<string> = this._onDidUpdateResource.event;

  private _definition: McpServerDefinition;
  private _snapshot: McpServerSnapshot;
  private _session: McpSession | undefined;
  private readonly _sessionStore = this._register(new DisposableStore());
  private readonly _stderr = new LineRing(STDERR_LINES_KEPT);
  /** Bumped by every start and stop; async work from an older generation abandons itself. */
  private _generation = 0;
  private _pending: { generation: number; controller: AbortController; done: Promise<void> } | undefined;
  private _started = false;
  /** Reconnect attempts spent since the server last stayed up for `stableAfterMs`. */
  private _reconnectsUsed = 0;
  /** While a reconnect waits: cuts the wait short, and the outcome of the attempt that follows. */
  private _nextAttempt: { wake: () => void; done: Promise<void> } | undefined;
  /** Settles once the session being opened is installed, or closed again with its process gone. */
  private _opening: Promise<void> | undefined;
  private readonly _clock: IMcpClock;

  constructor(private readonly _o: McpConnectionOptions) {
    super();
    this._definition = _o.definition;
    this._clock = _o.clock ?? systemClock;
    this._snapshot = initialSnapshot(this._definition);
  }

  get name(): string {
    return this._definition.name;
  }
  get definition(): McpServerDefinition {
    return this._definition;
  }
  get snapshot(): McpServerSnapshot {
    return this._snapshot;
  }
  get state(): McpConnectionState {
    return this._snapshot.state;
  }

  /** Replaces the definition; takes effect at the next start. */
  setDefinition(definition: McpServerDefinition): void {
    this._definition = definition;
    this._update({ definition });
  }

  /**
   * Starts the server unless it runs or is starting. Resolves when it runs or has failed. While
   * reconnecting it makes the next attempt at once and resolves when that attempt is over.
   */
  start(): Promise<void> {
    const kind = this.state.kind;
    if (kind === 'running') return Promise.resolve();
    if (kind === 'reconnecting') return this.retryNow();
    if (this._pending) return this._pending.done;
    return this._begin((c) => this._startFresh(c, this._started));
  }

  /** Stops the server and waits until its process is gone. */
  async stop(): Promise<void> {
    this._generation++;
    const opening = this._opening;
    this._pending?.controller.abort();
    this._pending = undefined;
    // A session being opened ends itself once aborted; wait for its process to be gone too.
    await Promise.all([this._closeSession(), opening]);
    this._update({ state: this._restingState(), tools: [], resources: [], resourceTemplates: [], prompts: [] });
  }

  /**
   * Signs in to an HTTP server that asks for it: after the host's confirmation the browser opens,
   * and the server starts once the redirect is back. Resolves when it runs or has failed.
   */
  async signIn(): Promise<void> {
    await this.stop();
    return this._begin((c) => this._startFresh(c, false, true));
  }

  /** Forgets the server's tokens and client registrations, then starts it again (now "sign-in required"). */
  async signOut(): Promise<void> {
    await this.stop();
    const resolved = await this._o.resolveLaunch(this._definition);
    if (resolved.ok && resolved.value.url !== undefined) await this._o.auth?.signOut(resolved.value.url);
    if (this._started) await this.start();
  }

  /** Stops, then starts again (counted as a restart). */
  async restart(): Promise<void> {
    await this.stop();
    return this._begin((c) => this._startFresh(c, true));
  }

  /**
   * While reconnecting, skips the rest of the wait and tries now; resolves when that attempt is
   * over. Does nothing in any other state.
   */
  retryNow(): Promise<void> {
    const next = this._nextAttempt;
    if (this.state.kind !== 'reconnecting' || !next) return Promise.resolve();
    next.wake();
    return next.done;
  }

  /** Whether reconnect attempts never run out: remote servers come and go, a crashing process does not heal. */
  get retriesWithoutLimit(): boolean {
    return this._snapshot.transport !== 'stdio';
  }

  /**
   * Resolves once the connection is not starting or reconnecting. An HTTP or SSE server that stays
   * down keeps reconnecting, so for one this waits until it is back or stopped.
   */
  async whenSettled(): Promise<void> {
    while (this._pending) await this._pending.done;
  }

  /** The stderr lines kept for this server, oldest first. */
  stderrTail(count?: number): string[] {
    return this._stderr.tail(count);
  }

  /**
   * Calls a tool by its original name. Waits for a starting or reconnecting server (within the
   * call's own timeout). Rejects with {@link McpCallError} when no result came back.
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const session = this._readySession() ?? (await this._sessionForCall(options));
    return session.callTool(name, args, options);
  }

  /** Sends another request (`resources/read`, `prompts/get`, ...) to the server, waiting for it like {@link callTool}. */
  /** Tells the running session's server that the roots changed. */
  notifyRootsChanged(): void {
    this._session?.notifyRootsChanged();
  }

  async request<M extends RequestMethod>(request: { method: M; params?: Record<string, unknown> }, options: McpCallOptions): Promise<ResultTypeMap[M]> {
    const session = this._readySession() ?? (await this._sessionForCall(options));
    return session.request(request, options);
  }

  /** The Skills extension of the server's session, waiting for a starting server like {@link request}. */
  async skills(options: McpCallOptions): Promise<SkillsClient> {
    return (this._readySession() ?? (await this._sessionForCall(options))).skills;
  }

  /** The task operations of the server's session now, waiting for a starting or reconnecting server (up to `timeoutMs`). */
  async taskClient(signal: AbortSignal, timeoutMs = DEFAULT_STARTUP_TIMEOUT_MS): Promise<McpTaskClient> {
    return (this._readySession() ?? (await this._sessionForCall({ signal, timeoutMs, maxTotalTimeoutMs: timeoutMs }))).tasks;
  }

  override dispose(): void {
    void this.stop();
    super.dispose();
  }

  private _begin(run: (controller: AbortController) => Promise<void>): Promise<void> {
    const generation = ++this._generation;
    const controller = new AbortController();
    const pending = { generation, controller, done: Promise.resolve() };
    this._pending = pending;
    pending.done = run(controller).finally(() => {
      if (this._pending === pending) this._pending = undefined;
    });
    return pending.done;
  }

  private async _startFresh(controller: AbortController, isRestart: boolean, signIn = false): Promise<void> {
    const generation = this._generation;
    const def = this._definition;
    if (def.disabled) return this._update({ state: { kind: 'disabled' } });
    if (def.problem) return this._update({ state: { kind: 'error', message: def.problem }, lastError: def.problem });
    const refused = this._o.checkPolicy?.(def);
    if (refused !== undefined) return this._update({ state: { kind: 'blocked', reason: refused, policy: true } });
    const blocked = await this._o.checkStart?.(def);
    if (generation !== this._generation) return;
    if (blocked !== undefined) return this._update({ state: { kind: 'blocked', reason: blocked } });
    this._started = true;
    this._reconnectsUsed = 0;
    this._update({ state: { kind: 'starting' }, restartCount: this._snapshot.restartCount + (isRestart ? 1 : 0) });
    const outcome = await this._openSession(generation, controller, signIn);
    if (outcome !== undefined && generation === this._generation) this._fail(outcome);
  }

  /** Opens a session and installs it. Resolves an error message, or undefined on success or when superseded. */
  private async _openSession(generation: number, controller: AbortController, signIn = false): Promise<string | undefined> {
    const def = this._definition;
    const resolved = await this._o.resolveLaunch(def);
    if (generation !== this._generation) return undefined;
    if (!resolved.ok) return resolved.error;
    const timeoutMs = def.startupTimeoutMs ?? this._o.defaultStartupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const opening = this._connect(generation, controller, def, resolved.value, timeoutMs, signIn);
    // stop() waits for this part only: it owns a process. Waiting for a prompt (approval, an input) would hang it.
    const tracked = opening.then(() => undefined);
    this._opening = tracked;
    try {
      return await opening;
    } finally {
      if (this._opening === tracked) this._opening = undefined;
    }
  }

  private async _connect(
    generation: number,
    controller: AbortController,
    def: McpServerDefinition,
    launch: McpResolvedLaunch,
    timeoutMs: number,
    signIn: boolean,
  ): Promise<string | undefined> {
    // Signing in waits for the user in the browser, which takes longer than a server's start.
    const budgetMs = signIn ? Math.max(SIGN_IN_TIMEOUT_MS, timeoutMs) : timeoutMs;
    const timer = setTimeout(() => controller.abort(new Error(`did not finish starting within ${formatSeconds(budgetMs)}`)), budgetMs);
    try {
      const auth = this._o.auth;
      const sendsAuthorization = hasAuthorizationHeader(launch.headers);
      const session = await McpSession.open(
        {
          name: def.name,
          clientInfo: this._o.clientInfo,
          handlers: this._o.handlers,
          startupTimeoutMs: timeoutMs,
          transports: (connectAuth) => this._transports(launch, connectAuth),
          auth:
            auth && launch.type !== 'stdio' && auth.appliesTo(launch.oauth)
              ? () =>
                  auth.begin({
                    server: def.name,
                    serverUrl: launch.url!,
                    interactive: signIn,
                    preregistered: launch.oauth,
                    hasAuthorizationHeader: sendsAuthorization,
                    startupTimeoutMs: timeoutMs,
                    log: (message) => this._log('info', 'harness', message),
                  })
              : undefined,
          sendsAuthorization,
          log: (level, source, message) => this._log(level, source, message),
          traceEnabled: () => this._o.traceEnabled(def.name),
          stderrTail: () => this._stderr.tail(),
          tasks: this._o.tasks,
          taskClient: (signal) => this.taskClient(signal),
        },
        controller.signal,
      );
      if (generation !== this._generation) {
        await session.close();
        return undefined;
      }
      this._install(session);
      return undefined;
    } catch (err) {
      if (!(err instanceof McpAuthRequiredError) || generation !== this._generation) return describeError(err);
      // Expected, so a state rather than a failure: reconnecting stops here too.
      this._log('info', 'harness', err.message);
      this._update({ state: { kind: 'auth_required', reason: err.message }, tools: [], resources: [], resourceTemplates: [], prompts: [] });
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private _transports(launch: McpResolvedLaunch, auth: IMcpConnectAuth | undefined): IMcpTransportFactory {
    const sink: McpTransportLogSink = {
      onStderrLine: (line) => this._log('info', 'stderr', line),
      onStdoutNoise: (line) => this._log('warn', 'stdout', `skipped a stdout line that is not JSON-RPC: ${line}`),
    };
    if (this._o.createTransports) return this._o.createTransports(launch, auth, sink);
    return new McpTransportConnector({ launch, auth, maxMessageBytes: this._o.maxMessageBytes, shutdownGraceMs: this._o.shutdownGraceMs, ...sink });
  }

  private _install(session: McpSession): void {
    this._session = session;
    this._sessionStore.add(session.onDidClose((reason) => this._onDropped(reason)));
    this._sessionStore.add(session.onDidChangeLists(() => this._update(this._listsOf(session))));
    this._sessionStore.add(session.onDidUpdateResource((uri) => this._onDidUpdateResource.fire(uri)));
    this._update({
      state: { kind: 'running' },
      transport: session.transportKind,
      serverInfo: session.serverInfo,
      protocolVersion: session.protocolVersion,
      instructions: session.instructions,
      capabilities: session.capabilities,
      startedAt: this._clock.now(),
      pid: session.pid,
      ...this._listsOf(session),
    });
    this._log('info', 'harness', `connected over ${session.transportKind}: ${describeServer(session.serverInfo)}, protocol ${session.protocolVersion ?? 'unknown'}, ${session.lists.tools.length} tools`);
  }

  private _listsOf(session: McpSession): Partial<McpServerSnapshot> {
    const { tools, resources, resourceTemplates, prompts } = session.lists;
    return { tools, resources, resourceTemplates, prompts };
  }

  private _onDropped(reason: string): void {
    // Only the current session's listeners are registered: a replaced session's were disposed with it.
    const now = this._clock.now();
    const upFor = now - (this._snapshot.startedAt ?? now);
    this._session = undefined;
    this._sessionStore.clear();
    this._log('warn', 'harness', `connection lost: ${reason}`);
    // A server that stayed up a while earns a fresh set of attempts; one that keeps dying does not.
    this._reconnectsUsed = attemptsAfterDrop(this._reconnectPolicy(), this._reconnectsUsed, upFor);
    void this._begin((c) => this._reconnect(c, reason));
  }

  private _reconnectPolicy(): ReconnectPolicy {
    return {
      delaysMs: this._o.reconnectDelaysMs ?? DEFAULT_RECONNECT_DELAYS_MS,
      unlimited: this.retriesWithoutLimit,
      maxDelayMs: this._o.reconnectMaxDelayMs ?? DEFAULT_RECONNECT_MAX_DELAY_MS,
      stableAfterMs: this._o.stableAfterMs ?? DEFAULT_STABLE_AFTER_MS,
    };
  }

  private async _reconnect(controller: AbortController, reason: string): Promise<void> {
    const generation = this._generation;
    const policy = this._reconnectPolicy();
    const maxAttempts = maxReconnects(policy);
    let lastFailure: string | undefined;
    for (let next = nextReconnect(policy, this._reconnectsUsed); next; next = nextReconnect(policy, this._reconnectsUsed)) {
      const { attempt, waitMs } = next;
      this._reconnectsUsed = attempt;
      const why = lastFailure ?? reason;
      this._update({
        state: { kind: 'reconnecting', attempt, maxAttempts, reason: why, nextAttemptAt: this._clock.now() + waitMs },
        lastError: why,
        restartCount: this._snapshot.restartCount + 1,
      });
      let attemptOver!: () => void;
      const wake = new AbortController();
      const onStop = () => wake.abort();
      controller.signal.addEventListener('abort', onStop, { once: true });
      this._nextAttempt = { wake: () => wake.abort(), done: new Promise((resolve) => (attemptOver = resolve)) };
      try {
        await this._clock.sleep(waitMs, wake.signal);
        if (generation !== this._generation) return;
        this._update({ state: { kind: 'reconnecting', attempt, maxAttempts, reason: why } });
        const failure = await this._openSession(generation, controller);
        if (generation !== this._generation || failure === undefined) return;
        lastFailure = failure;
        this._log('warn', 'harness', `reconnect attempt ${maxAttempts ? `${attempt} of ${maxAttempts}` : attempt} failed: ${failure}`);
      } finally {
        controller.signal.removeEventListener('abort', onStop);
        this._nextAttempt = undefined;
        attemptOver();
      }
    }
    this._fail(gaveUpMessage(policy, reason, lastFailure));
  }

  private _fail(message: string): void {
    this._log('error', 'harness', message);
    this._update({
      state: { kind: 'error', message },
      lastError: message,
      tools: [],
      resources: [],
      resourceTemplates: [],
      prompts: [],
      pid: undefined,
      startedAt: undefined,
    });
  }

  /** The open session, if there is one: most calls find it and skip the wait below (one promise less per call). */
  private _readySession(): McpSession | undefined {
    const session = this._session;
    return session && !session.closed ? session : undefined;
  }

  private async _sessionForCall(options: McpCallOptions): Promise<McpSession> {
    const deadline = Date.now() + options.timeoutMs;
    while (!this._session || this._session.closed) {
      // Only a start or reconnect in progress is worth waiting for.
      if (!this._pending) throw new McpCallError('unavailable', this.describeUnavailable());
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted) {
        throw options.signal?.aborted
          ? new McpCallError('cancelled', 'the call was cancelled')
          : new McpCallError('timeout', `server "${this.name}" did not become ready within ${formatSeconds(options.timeoutMs)}`);
      }
      if (this.state.kind === 'reconnecting' && this.retriesWithoutLimit && this._nextAttempt) {
        // A remote server that may be back gets an attempt now, not at its next scheduled try.
        // The timer must not outlive the race: a CLI would wait for it before exiting.
        const bound = new AbortController();
        const stopBound = () => bound.abort();
        options.signal?.addEventListener('abort', stopBound, { once: true });
        try {
          await Promise.race([this.retryNow(), sleep(left, bound.signal)]);
        } finally {
          bound.abort();
          options.signal?.removeEventListener('abort', stopBound);
        }
        const state = this.state;
        if (!this._session && state.kind === 'reconnecting' && state.nextAttemptAt !== undefined) {
          throw new McpCallError('unavailable', this.describeUnavailable());
        }
      } else {
        await Promise.race([this._pending.done, sleep(Math.min(left, 250), options.signal)]);
      }
    }
    return this._session;
  }

  /** Why calls cannot reach this server now: its name, its state and the reason. */
  describeUnavailable(): string {
    return describeUnavailable(this._definition, this.state, this._clock.now());
  }

  private async _closeSession(): Promise<void> {
    const session = this._session;
    this._session = undefined;
    this._sessionStore.clear();
    await session?.close();
  }

  private _log(level: McpLogEntry['level'], source: McpLogEntry['source'], message: string): void {
    if (source === 'stderr') this._stderr.push(message);
    this._onDidLog.fire({ server: this.name, level, source, message, time: Date.now() });
  }

  private _update(patch: Partial<McpServerSnapshot>): void {
    const next: McpServerSnapshot = { ...this._snapshot, ...patch };
    if (patch.state !== undefined) {
      Object.assign(next, { stderrTail: this._stderr.tail(STDERR_LINES_IN_SNAPSHOT) });
      if (patch.state.kind !== 'running' && patch.state.kind !== 'reconnecting') Object.assign(next, { pid: undefined, startedAt: undefined });
    }
    if (snapshotsEqual(this._snapshot, next)) return;
    this._snapshot = next;
    this._onDidChange.fire(next);
  }

  private _restingState(): McpConnectionState {
    return restingState(this._definition);
  }
}

function describeServer(info: Implementation | undefined): string {
  return info ? `${info.name} ${info.version}` : 'unnamed server';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
