import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, type CallToolResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import { DisposableStore } from '../base/lifecycle';
import { McpCallError } from '../mcp/McpCallError';
import type { McpTaskClient } from './McpTaskClient';
import type { McpCreatedTask, McpTaskProgress } from './McpTaskWire';
import { isTerminalStatus, type McpTaskState } from './taskTypes';

/** Never poll faster than this, whatever a server asks for. */
export const MIN_POLL_MS = 100;
/** Between polls when the server names no interval. */
export const DEFAULT_POLL_MS = 500;
/** Backoff grows the wait while nothing changes, up to this (or the server's own interval, when longer). */
export const MAX_POLL_MS = 15_000;
const BACKOFF = 1.5;
/** Failures to reach the server in a row a call rides out before it gives up (a restored task waits longer). */
const MAX_UNREACHABLE = 5;
const RETRY_MAX_MS = 30_000;
const CANCEL_TIMEOUT_MS = 5_000;
/** How long one `tasks/result` may wait when the task's time to live is unknown. */
const RESULT_WAIT_MS = 60 * 60_000;

/** Time and waiting, injectable for tests. */
export interface ITaskClock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemTaskClock: ITaskClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    }),
};

/**
 * The wait before the next `tasks/get`: the server's interval (never below {@link MIN_POLL_MS}),
 * growing by half while the task does not change, up to {@link MAX_POLL_MS} (or the server's
 * interval when that is longer); back to the server's as soon as it changes.
 */
export function nextPollMs(serverMs: number | undefined, previousMs: number | undefined, changed: boolean): number {
  const base = Math.max(MIN_POLL_MS, serverMs ?? DEFAULT_POLL_MS);
  if (changed || previousMs === undefined) return base;
  return Math.max(base, Math.min(previousMs * BACKOFF, Math.max(MAX_POLL_MS, base)));
}

export interface FollowTaskOptions {
  readonly server: string;
  readonly created: McpCreatedTask;
  /** The task operations of the server's session now (a reconnect gives a new one). */
  client(signal: AbortSignal): Promise<McpTaskClient>;
  /** Aborted: the task is cancelled on the server (`tasks/cancel`), and the follow ends as cancelled. */
  readonly signal?: AbortSignal;
  /** Aborted: the follow ends and the task keeps running on the server (the host is closing). */
  readonly stop?: AbortSignal;
  /** Each state the server reported, the first included. */
  onState?(state: McpTaskState): void;
  onProgress?(progress: McpTaskProgress): void;
  /** Time allowed for each request (`tasks/get`, `tasks/update`). */
  readonly requestTimeoutMs: number;
  /** Keep trying while the server cannot be reached, until the task's time to live ran out (a restored task). */
  readonly waitForServer?: boolean;
  readonly clock?: ITaskClock;
}

/**
 * Follows a task to its end and resolves its result: polls `tasks/get` at the server's interval
 * with backoff, answers what it waits on (2026-07-28 `inputRequests` through the client's handlers
 * and `tasks/update`; 2025-11-25 through `tasks/result`, on whose stream the server asks), fetches
 * the result, and cancels it on the server when `signal` aborts. Rejects with {@link McpCallError}:
 * `cancelled`, `protocol` (failed, expired, malformed), `unavailable` (unreachable, or `stop`).
 */
export function followTask(options: FollowTaskOptions): Promise<CallToolResult> {
  return new McpTaskFollow(options).run();
}

class McpTaskFollow {
  private _state: McpTaskState;
  private _client: McpTaskClient | undefined;
  private readonly _clock: ITaskClock;
  private readonly _store = new DisposableStore();
  private _wake: (() => void) | undefined;
  /** 2025-11-25: the `tasks/result` in flight (it ends when the task does). */
  private _result: Promise<CallToolResult> | undefined;
  private _resultSettled: { result?: CallToolResult; error?: unknown } | undefined;
  /** 2026-07-28: input requests answered, until the server stops listing them. */
  private readonly _answered = new Set<string>();
  private _unreachable = 0;
  private _progressHeard = false;
  /** Aborts when the caller cancels or the host stops following. */
  private _signal: AbortSignal | undefined;

  constructor(private readonly _o: FollowTaskOptions) {
    this._state = _o.created.task;
    this._clock = _o.clock ?? systemTaskClock;
  }

  private get _id(): string {
    return this._state.taskId;
  }

  async run(): Promise<CallToolResult> {
    const linked = new AbortController();
    const abort = () => linked.abort();
    this._o.signal?.addEventListener('abort', abort);
    this._o.stop?.addEventListener('abort', abort);
    this._signal = linked.signal;
    try {
      this._o.onState?.(this._state);
      return await this._loop(linked.signal);
    } catch (err) {
      if (this._o.stop?.aborted) throw new McpCallError('unavailable', `stopped following task ${this._id}; it keeps running on "${this._o.server}"`);
      if (this._o.signal?.aborted) throw await this._cancel();
      throw describeFailure(this._id, err);
    } finally {
      this._o.signal?.removeEventListener('abort', abort);
      this._o.stop?.removeEventListener('abort', abort);
      this._store.dispose();
    }
  }

  private async _loop(signal: AbortSignal): Promise<CallToolResult> {
    let wait: number | undefined;
    // Listening from the start (progress, status); a server not reachable yet is retried by the loop.
    await this._session(signal).catch(() => undefined);
    for (;;) {
      signal.throwIfAborted();
      if (isTerminalStatus(this._state.status)) return this._finish(signal);
      if (this._resultSettled) return this._settledResult();
      if (this._state.status === 'input_required') await this._provideInput(signal);
      await this._pause(wait ?? nextPollMs(this._state.pollIntervalMs, undefined, true), signal);
      signal.throwIfAborted();
      if (this._resultSettled) return this._settledResult();
      const before = this._state;
      const polled = await this._poll(signal);
      const changed = polled && (before.status !== this._state.status || before.statusMessage !== this._state.statusMessage);
      wait = polled ? nextPollMs(this._state.pollIntervalMs, wait, changed) : this._retryMs();
    }
  }

  /** One `tasks/get`. Resolves false when the server could not be reached (the loop retries later). */
  private async _poll(signal: AbortSignal): Promise<boolean> {
    try {
      const client = await this._session(signal);
      this._update(await client.get(this._id, { signal, timeoutMs: this._o.requestTimeoutMs }));
      this._unreachable = 0;
      return true;
    } catch (err) {
      signal.throwIfAborted();
      if (isUnknownTask(err)) throw new McpCallError('protocol', `"${this._o.server}" no longer knows task ${this._id} (it may have expired)`);
      if (!isTransient(err)) throw err instanceof McpCallError ? err : new McpCallError('protocol', `following task ${this._id}: ${errorMessage(err)}`);
      this._client = undefined;
      this._unreachable++;
      if (this._gaveUp()) throw new McpCallError('unavailable', `lost "${this._o.server}" while following task ${this._id}: ${errorMessage(err)}`);
      return false;
    }
  }

  private _update(state: McpTaskState): void {
    for (const key of [...this._answered]) if (!state.inputRequests?.[key]) this._answered.delete(key);
    this._state = state;
    this._o.onState?.(state);
  }

  /** The session's task operations, acquired again after the server could not be reached. */
  private async _session(signal: AbortSignal): Promise<McpTaskClient> {
    if (this._client) return this._client;
    const client = await this._o.client(signal);
    this._client = client;
    this._store.add(client.onStatus((s) => s.taskId === this._id && this._wake?.()));
    // A 2025-11-25 server reports progress on the creating call's token, on that call's session only.
    const token = this._o.created.progressToken;
    if (token !== undefined && !this._progressHeard) {
      this._progressHeard = true;
      this._store.add(client.onProgress(token, (p) => this._o.onProgress?.(p)));
    }
    return client;
  }

  private _gaveUp(): boolean {
    const ttl = this._state.ttlMs;
    if (!this._o.waitForServer) return this._unreachable >= MAX_UNREACHABLE;
    const created = Date.parse(this._state.createdAt ?? '');
    return typeof ttl === 'number' && Number.isFinite(created) && this._clock.now() > created + ttl;
  }

  private _retryMs(): number {
    return Math.min(RETRY_MAX_MS, 1000 * 2 ** Math.min(this._unreachable - 1, 5));
  }

  /** Waits `ms`, or less: a status notification for this task, or the `tasks/result` in flight ending. */
  private async _pause(ms: number, signal: AbortSignal): Promise<void> {
    const wake = new AbortController();
    const stop = () => wake.abort();
    this._wake = stop;
    signal.addEventListener('abort', stop, { once: true });
    try {
      await this._clock.sleep(ms, wake.signal);
    } finally {
      this._wake = undefined;
      signal.removeEventListener('abort', stop);
    }
  }

  /** What the task waits on: 2026-07-28 answers each input request; 2025-11-25 asks for the result, on whose stream the server asks. */
  private async _provideInput(signal: AbortSignal): Promise<void> {
    const client = await this._session(signal);
    if (client.era === 'legacy') {
      this._awaitResult(client);
      return;
    }
    const pending = Object.entries(this._state.inputRequests ?? {}).filter(([key]) => !this._answered.has(key));
    await Promise.all(
      pending.map(async ([key, request]) => {
        this._answered.add(key);
        const answer = await client.answer(request, signal);
        await client.update(this._id, { [key]: answer }, { signal, timeoutMs: this._o.requestTimeoutMs });
      }),
    );
  }

  /** 2025-11-25: one `tasks/result` at a time; when it settles, the loop wakes and ends with it. */
  private _awaitResult(client: McpTaskClient): void {
    if (this._result) return;
    const ttl = this._state.ttlMs;
    this._result = client.result(this._id, { signal: this._signal, timeoutMs: typeof ttl === 'number' ? ttl : RESULT_WAIT_MS });
    this._result.then(
      (result) => (this._resultSettled = { result }),
      (error: unknown) => {
        // A timeout or a dropped stream is not the task's end: polling goes on, and asks again.
        if (isTransient(error)) this._result = undefined;
        else this._resultSettled = { error };
      },
    ).finally(() => this._wake?.());
  }

  private _settledResult(): CallToolResult {
    const settled = this._resultSettled!;
    if (settled.result) return settled.result;
    throw describeFailure(this._id, settled.error);
  }

  private async _finish(signal: AbortSignal): Promise<CallToolResult> {
    const state = this._state;
    if (state.status === 'cancelled') throw new McpCallError('cancelled', `task ${state.taskId} was cancelled on "${this._o.server}"${state.statusMessage ? `: ${state.statusMessage}` : ''}`);
    const client = await this._session(signal);
    if (client.era === 'modern') {
      if (state.status === 'failed') throw new McpCallError('protocol', `task ${state.taskId} failed: ${state.error?.message ?? state.statusMessage ?? 'no reason given'}`);
      if (!state.result) throw new McpCallError('protocol', `task ${state.taskId} completed without a result`);
      return state.result;
    }
    this._awaitResult(client);
    try {
      return await this._result!;
    } catch (err) {
      throw describeFailure(state.taskId, err, state.statusMessage);
    }
  }

  /** Stops the task on the server (best effort, not bound to the aborted signal) and says so. */
  private async _cancel(): Promise<McpCallError> {
    try {
      const client = this._client ?? (await this._o.client(AbortSignal.timeout(CANCEL_TIMEOUT_MS)));
      await client.cancel(this._id, { timeoutMs: CANCEL_TIMEOUT_MS });
      return new McpCallError('cancelled', `the call was cancelled; task ${this._id} was cancelled on "${this._o.server}"`);
    } catch (err) {
      return new McpCallError('cancelled', `the call was cancelled; cancelling task ${this._id} on "${this._o.server}" failed: ${errorMessage(err)}`);
    }
  }
}

function describeFailure(taskId: string, err: unknown, statusMessage?: string): McpCallError {
  if (err instanceof McpCallError) return err;
  const reason = err instanceof ProtocolError ? err.message.replace(/^MCP error -?\d+: /, '') : errorMessage(err);
  return new McpCallError('protocol', `task ${taskId} failed: ${reason || statusMessage || 'no reason given'}`, err instanceof ProtocolError ? err.code : undefined);
}

/** The server does not know the task (never did, or it expired): -32602 on `tasks/get`. */
function isUnknownTask(err: unknown): boolean {
  return err instanceof ProtocolError && err.code === ProtocolErrorCode.InvalidParams;
}

/** A failure to reach the server (a timeout, a closed connection, the network), as opposed to an answer. */
function isTransient(err: unknown): boolean {
  if (err instanceof McpCallError) return err.kind === 'timeout' || err.kind === 'connection_closed' || err.kind === 'unavailable';
  if (err instanceof ProtocolError) return false;
  if (err instanceof SdkHttpError) return true;
  if (err instanceof SdkError) return err.code === SdkErrorCode.RequestTimeout || err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected || err.code === SdkErrorCode.SendFailed;
  return true;
}
