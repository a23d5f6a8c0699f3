import { Client, type ClientContext, type JSONRPCRequest, type Result } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import type { McpClientTasks } from './McpClientTasks';

const TaskIdParams = z.looseObject({ taskId: z.string() });

/**
 * The SDK's client, able to run a server's task-augmented `sampling/createMessage` and
 * `elicitation/create` (2025-11-25 `params.task`) as tasks of ours: the SDK 2.x keeps the task
 * vocabulary only as wire types, and its own check of those requests' results would refuse the
 * task the server is owed. The request still goes through the SDK's checks, in the background.
 */
export class McpTaskAwareClient extends Client {
  private _tasks: McpClientTasks | undefined;

  /** Runs task-augmented requests on `tasks`, and answers the server's `tasks/*` requests from it. */
  attachTasks(tasks: McpClientTasks): void {
    this._tasks = tasks;
    this.setRequestHandler('tasks/get', { params: TaskIdParams }, (params) => ({ ...tasks.get(params.taskId) }));
    this.setRequestHandler('tasks/result', { params: TaskIdParams }, (params) => tasks.result(params.taskId));
    this.setRequestHandler('tasks/list', { params: z.looseObject({}) }, () => tasks.list());
    this.setRequestHandler('tasks/cancel', { params: TaskIdParams }, (params) => ({ ...tasks.cancel(params.taskId) }));
  }

  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ClientContext) => Promise<Result>): (request: JSONRPCRequest, ctx: ClientContext) => Promise<Result> {
    const checked = super._wrapHandler(method, handler);
    const kind = method === 'sampling/createMessage' ? 'sampling' : method === 'elicitation/create' ? 'elicitation' : undefined;
    if (kind === undefined) return checked;
    return async (request, ctx) => {
      const task = (request.params as { task?: unknown } | undefined)?.task;
      const tasks = this._tasks;
      if (!tasks || typeof task !== 'object' || task === null || this.getProtocolEra() === 'modern') return checked(request, ctx);
      // The task owns the work from here: its own signal, not the request's, which ends with this answer.
      return tasks.start(kind, (task as { ttl?: unknown }).ttl, (signal) => checked(request, { ...ctx, mcpReq: { ...ctx.mcpReq, signal } }));
    };
  }
}
