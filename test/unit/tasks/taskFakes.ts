import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import type { ITaskClock } from '../../../src/core/tasks/McpTaskFollow';
import type { McpTaskProgress } from '../../../src/core/tasks/McpTaskWire';
import { McpTasks, type McpTasksOptions } from '../../../src/core/tasks/McpTasks';
import type { McpTaskCall } from '../../../src/core/tasks/taskHost';
import type { FinishedTask, ITaskStore, McpTaskInputRequest, McpTaskState, StoredTask } from '../../../src/core/tasks/taskTypes';

/** A clock at a fixed time whose waits end only when a test says so (`tick`) or the follow stops. */
export class ManualClock implements ITaskClock {
  private _waiting: Array<() => void> = [];
  constructor(private _now = Date.parse('2026-12-01T10:00:00Z')) {}
  now = () => this._now;
  sleep(_ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      this._waiting.push(resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  /** Ends the waits (once a follow waits) and lets the follows run until they wait again or end. */
  async tick(): Promise<void> {
    await this.idle();
    for (const wake of this._waiting.splice(0)) wake();
    await this.idle();
  }

  /** Resolves once a follow waits (or after a while, when none does). */
  async idle(): Promise<void> {
    for (let i = 0; i < 50 && this._waiting.length === 0; i++) await new Promise((r) => setTimeout(r, 0));
  }
}

export interface ScriptedMore {
  /** `tasks/result` (2025-11-25); an empty result by default. */
  readonly result?: () => Promise<CallToolResult>;
  readonly cancelError?: Error;
}

/**
 * A 2026-07-28 server's task operations, scripted: each `tasks/get` answers the next of `states`
 * (the last one again once they run out), or throws it when it is an Error.
 */
export function scriptedTaskClient(states: Array<Partial<McpTaskState> | Error>, era: 'modern' | 'legacy' = 'modern', more: ScriptedMore = {}) {
  const gets: string[] = [];
  const cancels: string[] = [];
  const updates: unknown[] = [];
  const listeners: Array<(p: McpTaskProgress) => void> = [];
  const statusListeners: Array<(s: McpTaskState) => void> = [];
  let i = 0;
  const client = {
    era,
    onStatus: (listener: (s: McpTaskState) => void) => {
      statusListeners.push(listener);
      return { dispose: () => undefined };
    },
    answer: async (request: McpTaskInputRequest) => ({ answered: request.method }),
    async update(taskId: string, responses: unknown): Promise<void> {
      updates.push([taskId, responses]);
    },
    onProgress: (_token: string | number, listener: (p: McpTaskProgress) => void) => {
      listeners.push(listener);
      return { dispose: () => undefined };
    },
    async get(taskId: string): Promise<McpTaskState> {
      gets.push(taskId);
      const next = states[Math.min(i++, states.length - 1)];
      if (next instanceof Error) throw next;
      return { taskId, status: 'working', ...next };
    },
    async cancel(taskId: string): Promise<undefined> {
      cancels.push(taskId);
      if (more.cancelError) throw more.cancelError;
      return undefined;
    },
    result: more.result ?? (async (): Promise<CallToolResult> => ({ content: [] })),
  };
  const status = (s: McpTaskState) => statusListeners.forEach((l) => l(s));
  const progress = (p: McpTaskProgress) => listeners.forEach((l) => l(p));
  return { client: client as unknown as McpTaskClient, gets, cancels, updates, progress, status };
}

/** A store in memory that keeps each change it was asked for. */
export class MemoryTaskStore implements ITaskStore {
  readonly changes: string[] = [];
  constructor(
    public tasks: StoredTask[] = [],
    private readonly _fail?: Error,
  ) {}
  async load(): Promise<readonly StoredTask[]> {
    if (this._fail) throw this._fail;
    return this.tasks;
  }
  async add(task: StoredTask): Promise<void> {
    this.changes.push(`add ${task.server}/${task.taskId}`);
    if (this._fail) throw this._fail;
    this.tasks = [...this.tasks, task];
  }
  async remove(server: string, taskId: string): Promise<void> {
    this.changes.push(`remove ${server}/${taskId}`);
    this.tasks = this.tasks.filter((t) => t.server !== server || t.taskId !== taskId);
  }
}

export const CREATED_AT = '2026-12-01T09:59:00Z';
export const done = { status: 'completed' as const, result: { content: [{ type: 'text' as const, text: 'done' }] } };

/** A harness's tasks with a manual clock, a store in memory, and what it logs and tells. */
export function host(options: Partial<McpTasksOptions> = {}) {
  const clock = new ManualClock();
  const store = new MemoryTaskStore();
  const logs: string[] = [];
  const finished: FinishedTask[] = [];
  const tasks = new McpTasks({ store, clientFor: () => new Promise(() => undefined), hasServer: () => true, requestTimeoutMs: 1000, clock, log: (s, level, m) => logs.push(`${level} ${s}: ${m}`), ...options });
  tasks.onDidFinishTask((f) => finished.push(f));
  return { tasks, clock, store, logs, finished };
}

/** A tool call of `job` on "s" that became task t1. */
export function toolCall(client: McpTaskClient, extra: Partial<McpTaskCall> = {}): McpTaskCall {
  return { server: 's', tool: 'job', title: 'Job', created: { task: { taskId: 't1', status: 'working', createdAt: CREATED_AT, ttlMs: 60_000 } }, client: async () => client, timeoutMs: 1000, ...extra };
}
