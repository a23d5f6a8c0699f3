import type { CallToolResult, Client, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import type { IDisposable } from '../base/lifecycle';
import type { Event } from '../base/event';
import { McpCallError } from '../mcp/McpCallError';
import type { McpTaskProgress, McpTaskWire } from './McpTaskWire';
import { parseTaskState } from './taskWire';
import { TASKS_EXTENSION, type McpTaskInputRequest, type McpTaskState } from './taskTypes';

/** Any JSON object: task answers are checked by {@link parseTaskState}, not by a schema of the SDK's. */
const AnyResult = z.looseObject({});

/** How a task request is sent. */
export interface McpTaskRequestOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

/** The client's answer to what a 2026-07-28 task waits on (an elicitation, a sampling, roots). */
export type McpTaskAnswerer = (request: McpTaskInputRequest, signal: AbortSignal) => Promise<Record<string, unknown>>;

/**
 * The task operations of one session, in its revision's vocabulary: 2025-11-25 (`tasks/get`,
 * `tasks/result`, `tasks/cancel`, `tasks/list`) or the 2026-07-28 extension (`tasks/get` with the
 * result inlined, `tasks/update`, `tasks/cancel`). Answers come back as {@link McpTaskState}.
 */
export class McpTaskClient {
  constructor(
    private readonly _client: Client,
    private readonly _wire: McpTaskWire,
    private readonly _answer: McpTaskAnswerer,
  ) {}

  /** `modern` speaks the 2026-07-28 extension, `legacy` the 2025-11-25 methods. */
  get era(): 'modern' | 'legacy' {
    return this._client.getProtocolEra() === 'modern' ? 'modern' : 'legacy';
  }

  /** Whether the server runs tool calls as tasks at all (its capability, or the extension it offers). */
  static serverSupports(capabilities: ServerCapabilities | undefined, modern: boolean): boolean {
    if (modern) return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
    return capabilities?.tasks?.requests?.tools?.call !== undefined;
  }

  /**
   * Whether a 2025-11-25 call of `tool` may ask for a task (`task` in its params): the tool allows
   * or requires one (and its server offers tasks for tool calls: {@link serverSupports}). On
   * 2026-07-28 the server alone decides, so nothing is asked.
   */
  static allowsTask(tool: Tool | undefined): boolean {
    const support = (tool as { execution?: { taskSupport?: unknown } } | undefined)?.execution?.taskSupport;
    return support === 'required' || support === 'optional';
  }

  get onStatus(): Event<McpTaskState> {
    return this._wire.onStatus;
  }

  /** Listens to a 2025-11-25 task's progress, reported on the token of the call that created it. */
  onProgress(token: string | number, listener: (progress: McpTaskProgress) => void): IDisposable {
    return this._wire.onProgress(token, listener);
  }

  /** `tasks/get`: the task's state (on 2026-07-28 with its result, error or input requests). */
  async get(taskId: string, options: McpTaskRequestOptions): Promise<McpTaskState> {
    return this._state(await this._request('tasks/get', { taskId }, options), 'tasks/get');
  }

  /** `tasks/result` (2025-11-25): waits until the task ended; what it asks meanwhile reaches the client's handlers. */
  async result(taskId: string, options: McpTaskRequestOptions): Promise<CallToolResult> {
    const raw = await this._request('tasks/result', { taskId }, options);
    if (!Array.isArray(raw.content) && typeof raw.structuredContent !== 'object') throw new McpCallError('protocol', `tasks/result for ${taskId} is not a tool result`);
    return raw as unknown as CallToolResult;
  }

  /** `tasks/update` (2026-07-28): answers what the task waits on. */
  async update(taskId: string, inputResponses: Record<string, Record<string, unknown>>, options: McpTaskRequestOptions): Promise<void> {
    await this._request('tasks/update', { taskId, inputResponses }, options);
  }

  /** `tasks/cancel`: asks the server to stop the task. Resolves the state it reports (2025-11-25), if any. */
  async cancel(taskId: string, options: McpTaskRequestOptions): Promise<McpTaskState | undefined> {
    const raw = await this._request('tasks/cancel', { taskId }, options);
    const state = parseTaskState(raw);
    return state.ok ? state.value : undefined;
  }

  /** The client's own answer to one request a 2026-07-28 task waits on. */
  answer(request: McpTaskInputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this._answer(request, signal);
  }

  private async _request(method: string, params: Record<string, unknown>, options: McpTaskRequestOptions): Promise<Record<string, unknown>> {
    return (await this._client.request({ method, params }, AnyResult, { signal: options.signal, timeout: options.timeoutMs })) as Record<string, unknown>;
  }

  private _state(raw: Record<string, unknown>, method: string): McpTaskState {
    const state = parseTaskState(raw);
    if (!state.ok) throw new McpCallError('protocol', `the server's answer to ${method} is not a task: ${state.error}`);
    return state.value;
  }
}
