import type { CallToolResult } from '@modelcontextprotocol/client';

/**
 * Tasks (`io.modelcontextprotocol/tasks`): a request the receiver answers with a task to poll
 * instead of its result. 2025-11-25 has them in core (`tasks/get`, `tasks/result`, `tasks/list`,
 * `tasks/cancel`, the `tasks` capability); 2026-07-28 moved them into an extension (SEP-2663:
 * `tasks/get` with the result inlined, `tasks/update` for input, `tasks/cancel`). The types here are
 * one model of both.
 */

/** The extension's id, declared under `capabilities.extensions` on 2026-07-28. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type McpTaskStatus = (typeof TASK_STATUSES)[number];

/** Whether a task in `status` has ended (it will not change again). */
export function isTerminalStatus(status: McpTaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** One request a task waits on the client for (2026-07-28 `inputRequests`, keyed by the server's ids). */
export interface McpTaskInputRequest {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** A task as its server last described it (both revisions' fields, normalised). */
export interface McpTaskState {
  readonly taskId: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  /** ISO 8601, as the server sent them. */
  readonly createdAt?: string;
  readonly lastUpdatedAt?: string;
  /** How long the server keeps the task after it was created; null: as long as it likes. */
  readonly ttlMs?: number | null;
  /** How often the server would like to be asked. */
  readonly pollIntervalMs?: number;
  /** 2026-07-28: the result, inlined once the task completed. */
  readonly result?: CallToolResult;
  /** 2026-07-28: why the task failed, inlined once it did. */
  readonly error?: { readonly code: number; readonly message: string };
  /** 2026-07-28: what the task waits for while `input_required`. */
  readonly inputRequests?: Readonly<Record<string, McpTaskInputRequest>>;
}

/** What a host knows about the call that started a task: where its result belongs. */
export interface McpTaskOrigin {
  /** The pipeline's id of the call. */
  readonly callId: string;
  /** The conversation the call was made in. */
  readonly conversationId?: string;
  /** The model's id of the call (what its result message answers). */
  readonly modelCallId?: string;
}

/** Who runs a task: a server (a tool call of ours), or this host (a server's sampling or elicitation request). */
export type McpTaskKind = 'tool' | 'sampling' | 'elicitation';

/** A task as hosts show it (the tree, the status bar, `harness.tasks()`). */
export interface HarnessTask {
  readonly server: string;
  readonly taskId: string;
  readonly kind: McpTaskKind;
  /** The tool's title or name, or what the server asked of this host. */
  readonly title: string;
  /** The tool's own name on its server (tool tasks). */
  readonly tool?: string;
  readonly status: McpTaskStatus;
  readonly statusMessage?: string;
  /** The last progress the server reported. */
  readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
  /** Epoch milliseconds: when the task was created (as the server said, else when it was seen). */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** A tool task picked up again after a restart (its call is not waiting in this process). */
  readonly resumed?: boolean;
  readonly origin?: McpTaskOrigin;
}

/** What a tool task ended with, for whoever started it. */
export interface FinishedTask {
  readonly task: HarnessTask;
  /** The tool's result (completed; a tool error is a result with `isError`). */
  readonly result?: CallToolResult;
  /** Why there is no result: failed, cancelled, expired, or the server went away. */
  readonly error?: string;
}

/** A tool task kept across restarts (per workspace). */
export interface StoredTask {
  readonly server: string;
  readonly taskId: string;
  readonly tool: string;
  readonly title: string;
  readonly createdAt: number;
  /** How long the server keeps it (ms after creation), when it said. */
  readonly ttlMs?: number;
  readonly origin?: McpTaskOrigin;
}

/**
 * Where tool tasks are kept so a restarted host picks them up again (VS Code's workspace state, a
 * file). Changes are one task at a time, so hosts sharing a store do not drop each other's.
 */
export interface ITaskStore {
  load(): Promise<readonly StoredTask[]>;
  add(task: StoredTask): Promise<void>;
  remove(server: string, taskId: string): Promise<void>;
}
