import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import { Emitter, type Event } from '../base/event';
import type { IDisposable } from '../base/lifecycle';
import { McpCallError } from '../mcp/McpCallError';
import { McpClientTasks } from './McpClientTasks';
import type { McpTaskClient } from './McpTaskClient';
import { followTask, type ITaskClock } from './McpTaskFollow';
import type { McpCreatedTask, McpTaskProgress } from './McpTaskWire';
import { taskTime } from './taskWire';
import type { FinishedTask, HarnessTask, ITaskStore, McpTaskOrigin, McpTaskState, StoredTask } from './taskTypes';
import type { IMcpTaskHost, McpTaskCall } from './taskHost';

export interface McpTasksOptions {
  /** Where tool tasks are kept across restarts; without one they live in memory only. */
  readonly store?: ITaskStore;
  /** A server's task operations once it runs (for tasks picked up again after a restart). */
  clientFor(server: string, signal: AbortSignal): Promise<McpTaskClient>;
  /** Whether `server` is configured now. */
  hasServer(server: string): boolean;
  /** Time allowed for each request of a restored task's follow. */
  readonly requestTimeoutMs: number;
  readonly clock?: ITaskClock;
  log(server: string, level: 'info' | 'warn', message: string): void;
}

interface ToolTask {
  view: HarnessTask;
  readonly stored: StoredTask;
  /** Cancels the task on its server ("Cancel Task"). */
  readonly cancel: AbortController;
}

/**
 * Every task of the harness: tool calls that came back as tasks (followed to their end, kept in the
 * store while they run, picked up again after a restart) and the host's own tasks (servers'
 * task-augmented sampling and elicitation). A restored or detached task's end is told through
 * {@link onDidFinishTask}: its caller is not waiting in this process.
 */
export class McpTasks implements IMcpTaskHost, IDisposable {
  private readonly _onDidChange = new Emitter<void>();
  readonly onDidChangeTasks: Event<void> = this._onDidChange.event;
  private readonly _onDidFinish = new Emitter<FinishedTask>();
  readonly onDidFinishTask: Event<FinishedTask> = this._onDidFinish.event;
  private readonly _tool = new Map<string, ToolTask>();
  private readonly _client = new Set<McpClientTasks>();
  /** Aborted when the host closes: follows end, tasks keep running on their servers and stay stored. */
  private readonly _stop = new AbortController();
  /** Store writes, one at a time and in order. */
  private _saving: Promise<void> = Promise.resolve();

  constructor(private readonly _o: McpTasksOptions) {}

  /** Every running task: tool tasks first, then the host's own. */
  tasks(): HarnessTask[] {
    return [...[...this._tool.values()].map((t) => t.view), ...[...this._client].flatMap((c) => c.view())];
  }

  follow(call: McpTaskCall): Promise<CallToolResult> {
    const task = this._add(call.server, call.created.task, { tool: call.tool, title: call.title, origin: call.context?.origin }, false);
    call.context?.onTask?.(task.view);
    if (call.context?.detach) {
      void this._followInBackground(task, call.created, (signal) => call.client(signal), call.timeoutMs, false);
      return Promise.resolve(detachedResult(task.view));
    }
    // The task's entry follows its state whether or not the caller listens too.
    const onState = (state: McpTaskState) => {
      const view = this._state(task, state);
      call.context?.onTask?.(view);
    };
    const signal = call.signal ? AbortSignal.any([call.signal, task.cancel.signal]) : task.cancel.signal;
    return followTask({
      server: call.server,
      created: call.created,
      client: (s) => call.client(s),
      signal,
      stop: this._stop.signal,
      requestTimeoutMs: call.timeoutMs,
      clock: this._o.clock,
      onState,
      onProgress: (p) => {
        this._progress(task, p);
        call.onProgress?.(p);
      },
    })
      .then(
        (result) => {
          call.context?.onTask?.({ ...task.view, status: 'completed' });
          return result;
        },
        (err: unknown) => {
          // How it ended, for the card; a task the host stopped following keeps its running state.
          if (!this._stop.signal.aborted) {
            const { statusMessage: _last, progress: _progress, ...view } = task.view;
            call.context?.onTask?.({ ...view, status: err instanceof McpCallError && err.kind === 'cancelled' ? 'cancelled' : 'failed' });
          }
          throw err;
        },
      )
      .finally(() => this._end(task));
  }

  clientTasks(server: string): McpClientTasks {
    const tasks: McpClientTasks = new McpClientTasks(server, () => this._client.delete(tasks));
    this._client.add(tasks);
    tasks.onDidChange(() => this._onDidChange.fire());
    return tasks;
  }

  /** "Cancel Task": a tool task is cancelled on its server, a task of ours stops. Returns whether there was one. */
  cancel(server: string, taskId: string): boolean {
    const tool = this._tool.get(key(server, taskId));
    if (tool) {
      tool.cancel.abort();
      return true;
    }
    return [...this._client].some((c) => c.server === server && c.cancelLocally(taskId));
  }

  /**
   * Picks up stored tool tasks (those `only` accepts; all by default): each is followed again once
   * its server runs. A task already followed is left alone.
   */
  async resume(only: (task: StoredTask) => boolean = () => true): Promise<HarnessTask[]> {
    const picked: HarnessTask[] = [];
    for (const s of (await this.stored()).filter(only)) {
      if (!this._o.hasServer(s.server)) {
        this._o.log(s.server, 'warn', `task ${s.taskId} (${s.title}) is dropped: the server is no longer configured`);
        this._write((store) => store.remove(s.server, s.taskId));
        continue;
      }
      this._o.log(s.server, 'info', `following task ${s.taskId} (${s.title}) again`);
      picked.push(this._adopt(s, true).view);
    }
    return picked;
  }

  /**
   * Follows a task this host did not start here (by its id, e.g. one a detached call left), in
   * the background like a restored one. Resolves how it ended (also told through onDidFinishTask).
   */
  watch(server: string, taskId: string, about: { tool?: string; title?: string } = {}): Promise<FinishedTask> {
    const known = this._tool.get(key(server, taskId));
    const ended = new Promise<FinishedTask>((resolve) => {
      const listener = this._onDidFinish.event((f) => {
        if (f.task.server !== server || f.task.taskId !== taskId) return;
        listener.dispose();
        resolve(f);
      });
    });
    if (!known) this._adopt({ server, taskId, tool: about.tool ?? '', title: about.title ?? `task ${taskId}`, createdAt: this._o.clock?.now() ?? Date.now() }, false);
    return ended;
  }

  private _adopt(s: StoredTask, stored: boolean): ToolTask {
    const created: McpTaskState = { taskId: s.taskId, status: 'working', createdAt: new Date(s.createdAt).toISOString(), ...(s.ttlMs ? { ttlMs: s.ttlMs } : {}) };
    const task = this._add(s.server, created, { tool: s.tool, title: s.title, origin: s.origin }, true, stored);
    void this._followInBackground(task, { task: created }, (signal) => this._o.clientFor(s.server, signal), this._o.requestTimeoutMs, true);
    return task;
  }

  /** The stored tool tasks nobody follows here. */
  async stored(): Promise<StoredTask[]> {
    await this._saving;
    try {
      return ((await this._o.store?.load()) ?? []).filter((t) => !this._tool.has(key(t.server, t.taskId)));
    } catch (err) {
      this._o.log('harness', 'warn', `the stored tasks cannot be read, so none is picked up again: ${errorMessage(err)}`);
      return [];
    }
  }

  /** Stops following every task without cancelling it: the host is closing; they stay stored. */
  suspend(): void {
    this._stop.abort();
  }

  dispose(): void {
    this.suspend();
    for (const c of [...this._client]) c.dispose();
    this._onDidChange.dispose();
    this._onDidFinish.dispose();
  }

  private _add(server: string, created: McpTaskState, about: { tool: string; title: string; origin?: McpTaskOrigin }, resumed: boolean, stored = resumed): ToolTask {
    const now = this._o.clock?.now() ?? Date.now();
    const createdAt = taskTime(created.createdAt, now);
    const view: HarnessTask = {
      server,
      taskId: created.taskId,
      kind: 'tool',
      title: about.title,
      tool: about.tool,
      status: created.status,
      ...(created.statusMessage ? { statusMessage: created.statusMessage } : {}),
      createdAt,
      lastUpdatedAt: taskTime(created.lastUpdatedAt, now),
      ...(resumed ? { resumed } : {}),
      ...(about.origin ? { origin: about.origin } : {}),
    };
    const ttl = created.ttlMs;
    const kept: StoredTask = { server, taskId: created.taskId, tool: about.tool, title: about.title, createdAt, ...(typeof ttl === 'number' ? { ttlMs: ttl } : {}), ...(about.origin ? { origin: about.origin } : {}) };
    const task: ToolTask = { view, stored: kept, cancel: new AbortController() };
    this._tool.set(key(server, created.taskId), task);
    this._onDidChange.fire();
    if (!stored) this._write((store) => store.add(kept));
    return task;
  }

  private _state(task: ToolTask, state: McpTaskState): HarnessTask {
    const now = this._o.clock?.now() ?? Date.now();
    const { progress: _kept, ...rest } = task.view;
    // Progress belongs to a working task; a new status starts without it.
    const progress = state.status === task.view.status ? task.view.progress : undefined;
    task.view = { ...rest, status: state.status, ...(state.statusMessage ? { statusMessage: state.statusMessage } : { statusMessage: undefined }), lastUpdatedAt: taskTime(state.lastUpdatedAt, now), ...(progress ? { progress } : {}) };
    this._onDidChange.fire();
    return task.view;
  }

  private _progress(task: ToolTask, progress: McpTaskProgress): void {
    task.view = { ...task.view, progress };
    this._onDidChange.fire();
  }

  /** Follows a task no call waits for (detached, or restored); its end is told through onDidFinishTask. */
  private async _followInBackground(task: ToolTask, created: McpCreatedTask, client: (signal: AbortSignal) => Promise<McpTaskClient>, timeoutMs: number, waitForServer: boolean): Promise<void> {
    let finished: FinishedTask;
    try {
      const result = await followTask({
        server: task.view.server,
        created,
        client,
        signal: task.cancel.signal,
        stop: this._stop.signal,
        requestTimeoutMs: timeoutMs,
        waitForServer,
        clock: this._o.clock,
        onState: (state) => this._state(task, state),
        onProgress: (p) => this._progress(task, p),
      });
      finished = { task: { ...task.view, status: 'completed' }, result };
    } catch (err) {
      if (this._stop.signal.aborted) return;
      finished = { task: { ...task.view, status: err instanceof McpCallError && err.kind === 'cancelled' ? 'cancelled' : 'failed' }, error: errorMessage(err) };
    } finally {
      this._end(task);
    }
    this._o.log(task.view.server, finished.error ? 'warn' : 'info', `task ${task.view.taskId} (${task.view.title}) ended: ${finished.error ?? 'completed'}`);
    this._onDidFinish.fire(finished);
  }

  /** A follow ended: the task leaves the list and the store, unless the host is closing (then it is picked up again). */
  private _end(task: ToolTask): void {
    if (this._stop.signal.aborted) return;
    this._tool.delete(key(task.view.server, task.view.taskId));
    this._onDidChange.fire();
    this._write((store) => store.remove(task.view.server, task.view.taskId));
  }

  private _write(change: (store: ITaskStore) => Promise<void>): void {
    const store = this._o.store;
    if (!store || this._stop.signal.aborted) return;
    this._saving = this._saving.then(() => change(store)).catch((err: unknown) => this._o.log('harness', 'warn', `saving the running tasks failed: ${errorMessage(err)}`));
  }

  /** Resolves once every write asked for so far is done. */
  flush(): Promise<void> {
    return this._saving;
  }
}

function key(server: string, taskId: string): string {
  return JSON.stringify([server, taskId]);
}

/** What a detached call answers: the task keeps running and is followed in the background. */
function detachedResult(task: HarnessTask): CallToolResult {
  return { content: [{ type: 'text', text: `The call runs as task ${task.taskId} on "${task.server}"; it keeps running, and its result comes when it ends.` }] };
}
