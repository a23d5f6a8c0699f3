import { ProtocolError, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/client';
import { Emitter, type Event } from '../base/event';
import { toDisposable, type IDisposable } from '../base/lifecycle';
import { createdTaskOf, parseTaskState } from './taskWire';
import type { McpTaskState } from './taskTypes';

/**
 * The code of the error a `tools/call` that created a task is handed to its caller as. The SDK 2.x
 * has no runtime for tasks: its 2026-07-28 codec refuses `resultType: "task"` and its 2025-11-25
 * schema refuses a result without `content`. So the transport turns that answer into this error,
 * carrying the task, before the SDK reads it. Never sent on the wire.
 */
export const TASK_CREATED_CODE = -32099;
const CREATED_KEY = 'mcp-harness/createdTask';
/** Calls noted at most: one never answered (cancelled, timed out) is forgotten, oldest first. */
const MAX_CALLS = 1000;

/** Progress a server reports for a task, on the progress token of the request that created it. */
export interface McpTaskProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** A task a call created, as the session hands it to whoever follows it. */
export interface McpCreatedTask {
  readonly task: McpTaskState;
  /** The token of the `tools/call`, on which a 2025-11-25 server keeps reporting the task's progress. */
  readonly progressToken?: string | number;
}

/** The created task an error of a call stands for, if it stands for one (see {@link TASK_CREATED_CODE}). */
export function createdTaskFrom(err: unknown): McpCreatedTask | undefined {
  if (!(err instanceof ProtocolError) || err.code !== TASK_CREATED_CODE) return undefined;
  const data = err.data as { [CREATED_KEY]?: McpCreatedTask } | undefined;
  return data?.[CREATED_KEY];
}

type ProgressToken = string | number;

/**
 * One transport's view of tasks, below the SDK: it notes each `tools/call` that goes out, hands an
 * answer that created a task to the caller (as {@link TASK_CREATED_CODE}), and routes what the
 * server then says about its tasks (progress on the call's token, `notifications/tasks/status`)
 * to whoever follows them instead of to the SDK, which would report an unknown progress token.
 */
export class McpTaskWire {
  /** Each `tools/call` in flight, by JSON-RPC id: its progress token. */
  private readonly _calls = new Map<RequestId, ProgressToken | undefined>();
  /** Tokens of calls that became tasks: the follower's listener, or the last progress until it listens. */
  private readonly _tokens = new Map<ProgressToken, { listener?: (p: McpTaskProgress) => void; last?: McpTaskProgress }>();
  private readonly _onStatus = new Emitter<McpTaskState>();
  /** A 2025-11-25 server announced a task's new state (`notifications/tasks/status`). */
  readonly onStatus: Event<McpTaskState> = this._onStatus.event;

  /** Every message going out. */
  sent(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return;
    const token = (message.params?._meta as { progressToken?: ProgressToken } | undefined)?.progressToken;
    if (this._calls.size >= MAX_CALLS) this._calls.delete(this._calls.keys().next().value!);
    this._calls.set(message.id, token);
  }

  /** Every message coming in: what to deliver to the SDK, or undefined when it was the tasks' own. */
  received(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if ('id' in message && message.id !== undefined && !('method' in message)) return this._calls.size > 0 ? this._response(message, message.id) : message;
    if (!('method' in message) || 'id' in message) return message;
    if (message.method === 'notifications/progress' && this._tokens.size > 0) {
      const params = message.params as { progressToken?: ProgressToken; progress?: unknown; total?: unknown; message?: unknown } | undefined;
      const entry = params?.progressToken === undefined ? undefined : this._tokens.get(params.progressToken);
      if (!entry || typeof params!.progress !== 'number') return message;
      const progress: McpTaskProgress = {
        progress: params!.progress,
        ...(typeof params!.total === 'number' ? { total: params!.total } : {}),
        ...(typeof params!.message === 'string' ? { message: params!.message } : {}),
      };
      if (entry.listener) entry.listener(progress);
      else entry.last = progress;
      return undefined;
    }
    if (message.method === 'notifications/tasks/status') {
      const state = parseTaskState(message.params);
      if (state.ok) this._onStatus.fire(state.value);
      return undefined;
    }
    return message;
  }

  /** Listens to a task's progress (on its call's token); the last progress reported before is given at once. */
  onProgress(token: ProgressToken, listener: (progress: McpTaskProgress) => void): IDisposable {
    const entry = this._tokens.get(token) ?? {};
    this._tokens.set(token, entry);
    entry.listener = listener;
    if (entry.last) listener(entry.last);
    entry.last = undefined;
    return toDisposable(() => {
      if (this._tokens.get(token) === entry) this._tokens.delete(token);
    });
  }

  dispose(): void {
    this._calls.clear();
    this._tokens.clear();
    this._onStatus.dispose();
  }

  private _response(message: JSONRPCMessage, id: RequestId): JSONRPCMessage {
    if (!this._calls.has(id)) return message;
    const token = this._calls.get(id);
    this._calls.delete(id);
    if (!('result' in message)) return message;
    const created = createdTaskOf(message.result);
    if (!created) return message;
    if (!created.ok) return { jsonrpc: '2.0', id, error: { code: -32603, message: `the server created a task that cannot be followed: ${created.error}` } };
    // Progress on the call's token now belongs to the task: kept until its follower listens.
    if (token !== undefined) this._tokens.set(token, {});
    const data: McpCreatedTask = { task: created.value, ...(token !== undefined ? { progressToken: token } : {}) };
    return { jsonrpc: '2.0', id, error: { code: TASK_CREATED_CODE, message: `the call became task ${created.value.taskId}`, data: { [CREATED_KEY]: data } } };
  }
}
