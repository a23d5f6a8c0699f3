import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Result } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import { Emitter, type Event } from '../base/event';
import { isTerminalStatus, type HarnessTask, type McpTaskStatus } from './taskTypes';

/** How long a finished task of ours is kept for the server to fetch, when it asked for no time to live (and at most). */
const DEFAULT_TTL_MS = 10 * 60_000;
const MAX_TTL_MS = 60 * 60_000;
/** How often we ask a server to poll our tasks. */
const POLL_INTERVAL_MS = 1000;
/** Tasks of ours one server may have at a time; the host's answers are bounded per server already. */
const MAX_TASKS = 32;

type ClientTaskKind = 'sampling' | 'elicitation';

interface ClientTask {
  readonly taskId: string;
  readonly kind: ClientTaskKind;
  status: McpTaskStatus;
  statusMessage?: string;
  readonly ttlMs: number;
  readonly createdAt: number;
  lastUpdatedAt: number;
  readonly done: Promise<void>;
  result?: Result;
  error?: string;
  readonly abort: AbortController;
  expiry?: ReturnType<typeof setTimeout>;
}

/** A task of ours as the 2025-11-25 wire describes it (`tasks/get`, `tasks/list`, `tasks/cancel`). */
export interface WireTask {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  readonly ttl: number;
  readonly createdAt: string;
  readonly lastUpdatedAt: string;
  readonly pollInterval: number;
}

/**
 * The host's own tasks for one server's session: a server's task-augmented `sampling/createMessage`
 * or `elicitation/create` (2025-11-25, `params.task`) runs here in the background while the server
 * gets its task at once, then polls `tasks/get`, fetches `tasks/result` and may `tasks/cancel`.
 * The request itself is answered exactly as an ordinary one (the same card, rules and checks).
 */
export class McpClientTasks {
  private readonly _tasks = new Map<string, ClientTask>();
  private readonly _onDidChange = new Emitter<void>();
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private _disposed = false;

  /** @param _onDispose told when the session ends (the harness stops listing these tasks) */
  constructor(
    readonly server: string,
    private readonly _onDispose?: () => void,
  ) {}

  /** Starts `run` as a task and returns what the server gets at once (`{ task }`). */
  start(kind: ClientTaskKind, requestedTtl: unknown, run: (signal: AbortSignal) => Promise<Result>): { task: WireTask } {
    if (this._disposed) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the session is closing');
    if ([...this._tasks.values()].filter((t) => !isTerminalStatus(t.status)).length >= MAX_TASKS) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `too many tasks at once (${MAX_TASKS}); wait for some to end`);
    }
    const ttlMs = typeof requestedTtl === 'number' && requestedTtl > 0 ? Math.min(requestedTtl, MAX_TTL_MS) : DEFAULT_TTL_MS;
    const abort = new AbortController();
    const now = Date.now();
    const task: ClientTask = {
      taskId: randomUUID(),
      kind,
      status: 'working',
      statusMessage: kind === 'sampling' ? 'waiting for approval to use the model' : 'waiting for your answer',
      ttlMs,
      createdAt: now,
      lastUpdatedAt: now,
      abort,
      done: Promise.resolve(),
    };
    // Listed before the request runs: answering it may start at once.
    this._tasks.set(task.taskId, task);
    this._onDidChange.fire();
    const created = wire(task);
    (task as { done: Promise<void> }).done = Promise.resolve()
      .then(() => run(abort.signal))
      .then(
        (result) => this._end(task, 'completed', { result }),
        (err: unknown) => this._end(task, abort.signal.aborted ? 'cancelled' : 'failed', { error: errorMessage(err) }),
      );
    return { task: created };
  }

  /** `tasks/get`. */
  get(taskId: string): WireTask {
    return wire(this._task(taskId));
  }

  /** `tasks/list`: every task of ours this server has. */
  list(): { tasks: WireTask[] } {
    return { tasks: [...this._tasks.values()].map(wire) };
  }

  /** `tasks/result`: waits until the task ended; its result, or the error it failed with. */
  async result(taskId: string): Promise<Result> {
    const task = this._task(taskId);
    await task.done;
    const meta = { _meta: { [RELATED_TASK_META_KEY]: { taskId } } };
    if (task.status === 'completed' && task.result) return { ...task.result, ...meta, _meta: { ...task.result._meta, ...meta._meta } };
    if (task.status === 'cancelled') throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `task ${taskId} was cancelled`);
    throw new ProtocolError(ProtocolErrorCode.InternalError, task.error ?? `task ${taskId} failed`);
  }

  /** `tasks/cancel`: stops a running task; a finished one cannot be cancelled (-32602). */
  cancel(taskId: string): WireTask {
    const task = this._task(taskId);
    if (isTerminalStatus(task.status)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `task ${taskId} has already ended (${task.status})`);
    task.abort.abort(new Error('cancelled by the server'));
    this._set(task, 'cancelled', 'cancelled by the server');
    return wire(task);
  }

  /** The tasks as hosts show them. */
  view(): HarnessTask[] {
    return [...this._tasks.values()]
      .filter((t) => !isTerminalStatus(t.status))
      .map((t) => ({
        server: this.server,
        taskId: t.taskId,
        kind: t.kind,
        title: t.kind === 'sampling' ? 'Model request (sampling)' : 'Question (elicitation)',
        status: t.status,
        ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
        createdAt: t.createdAt,
        lastUpdatedAt: t.lastUpdatedAt,
      }));
  }

  /** Cancels a running task from this side (the user's "Cancel Task"). Returns whether there was one. */
  cancelLocally(taskId: string): boolean {
    const task = this._tasks.get(taskId);
    if (!task || isTerminalStatus(task.status)) return false;
    task.abort.abort(new Error('cancelled by the user'));
    this._set(task, 'cancelled', 'cancelled by the user');
    return true;
  }

  /** The session ended: every running task is cancelled, and nothing more is kept. */
  dispose(): void {
    this._onDispose?.();
    this._disposed = true;
    for (const task of this._tasks.values()) {
      clearTimeout(task.expiry);
      if (!isTerminalStatus(task.status)) task.abort.abort(new Error('the session ended'));
    }
    this._tasks.clear();
    this._onDidChange.fire();
    this._onDidChange.dispose();
  }

  private _task(taskId: string): ClientTask {
    const task = this._tasks.get(taskId);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown task ${taskId}`);
    return task;
  }

  private _end(task: ClientTask, status: McpTaskStatus, outcome: { result?: Result; error?: string }): void {
    if (isTerminalStatus(task.status)) return;
    task.result = outcome.result;
    task.error = outcome.error;
    this._set(task, status, outcome.error);
  }

  private _set(task: ClientTask, status: McpTaskStatus, message: string | undefined): void {
    task.status = status;
    task.statusMessage = message;
    task.lastUpdatedAt = Date.now();
    if (isTerminalStatus(status) && !this._disposed) {
      // Kept for the server to fetch until its time to live runs out.
      task.expiry = setTimeout(() => this._tasks.delete(task.taskId), Math.max(0, task.createdAt + task.ttlMs - Date.now()));
      task.expiry.unref?.();
    }
    this._onDidChange.fire();
  }
}

function wire(task: ClientTask): WireTask {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    ttl: task.ttlMs,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    pollInterval: POLL_INTERVAL_MS,
  };
}
