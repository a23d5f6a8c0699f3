import * as path from 'node:path';
import { describeTask, FileTaskStore, isTerminalStatus, McpCallError, type FinishedTask, type HarnessTask, type McpHarness, type McpTaskState, type StoredTask, type ToolCallEvent } from '../core';
import { errorMessage } from '../core/base/errors';
import { formatToolResult } from '../core/tools/formatToolResult';
import { CALL_EXIT } from './commands';
import type { CliOptions } from './CliOptions';
import { userConfigDirectory } from './userPaths';

/** `~/.config/mcp-harness/tasks.json`: the tasks `call --detach` left running, by workspace. */
export function taskStoreFor(workspace: string, env: NodeJS.ProcessEnv = process.env): FileTaskStore {
  return new FileTaskStore(path.join(userConfigDirectory(env), 'tasks.json'), workspace);
}

/** Tells the terminal (stderr) about a call's task: once when it starts, then each new status. */
export class CliTaskReporter {
  private _last = '';
  task: HarnessTask | undefined;

  constructor(private readonly _verbose: boolean) {}

  event(e: ToolCallEvent): void {
    if (!e.task) return;
    const first = this.task === undefined;
    this.task = e.task;
    if (first) process.stderr.write(`task ${e.task.taskId} on ${e.task.server}\n`);
    const line = describeTask(e.task);
    if (this._verbose && line !== this._last && !isTerminalStatus(e.task.status)) process.stderr.write(`task ${line}\n`);
    this._last = line;
  }
}

/**
 * `task ID`: finds the task (the stored ones first, then every running server that knows it), shows
 * its state, and unless `--no-wait`, waits for a running one with progress; a finished one shows
 * its result. Exit codes as for `call`: 0 completed (or shown running), 1 failed or cancelled or
 * a tool error, 2 no such task, 3 its server is not running.
 */
export async function runTask(harness: McpHarness, options: CliOptions, id: string, server: string | undefined, wait: boolean): Promise<number> {
  const found = await findTask(harness, id, server);
  if (!found.ok) {
    process.stderr.write(`${found.error}\n`);
    return found.unavailable ? CALL_EXIT.unavailable : CALL_EXIT.usage;
  }
  const { server: owner, state, stored } = found;
  if (!isTerminalStatus(state.status) && !wait) return show({ server: owner, state, stored }, options);
  if (!isTerminalStatus(state.status) && !options.json) process.stderr.write(`waiting for task ${id} on ${owner} (${state.status}${state.statusMessage ? `: ${state.statusMessage}` : ''}); Ctrl-C stops waiting, the task keeps running\n`);
  const listener = harness.onDidChangeTasks(() => {
    const now = harness.tasks().find((t) => t.server === owner && t.taskId === id);
    if (now && process.stderr.isTTY && !options.json) process.stderr.write(`task ${describeTask(now, Date.now())}\n`);
  });
  const finished = await harness.waitForTask(owner, id, stored ? { tool: stored.tool, title: stored.title } : {});
  listener.dispose();
  return report(finished, options);
}

type Found = { ok: true; server: string; state: McpTaskState; stored?: StoredTask } | { ok: false; error: string; unavailable?: boolean };

async function findTask(harness: McpHarness, id: string, server: string | undefined): Promise<Found> {
  const stored = (await harness.storedTasks()).find((t) => t.taskId === id && (server === undefined || t.server === server));
  const candidates = server !== undefined ? [server] : stored ? [stored.server] : harness.servers().filter((s) => s.state === 'running').map((s) => s.name);
  if (server !== undefined && !harness.servers().some((s) => s.name === server)) return { ok: false, error: `no server named "${server}" (configured: ${harness.servers().map((s) => s.name).join(', ') || 'none'})` };
  const failures: string[] = [];
  for (const name of candidates) {
    try {
      return { ok: true, server: name, state: await harness.getTask(name, id), ...(stored ? { stored } : {}) };
    } catch (err) {
      if (candidates.length === 1 && err instanceof McpCallError && err.kind === 'unavailable') return { ok: false, error: `${name}: ${err.message}`, unavailable: true };
      failures.push(`${name}: ${errorMessage(err)}`);
    }
  }
  const where = candidates.length ? ` (${failures.join('; ')})` : ': no server is running';
  return { ok: false, error: `no server knows task ${id}${where}` };
}

function show(task: { server: string; state: McpTaskState; stored?: StoredTask }, options: CliOptions): number {
  const { server, state, stored } = task;
  if (options.json) {
    process.stdout.write(JSON.stringify({ server, ...(stored ? { tool: stored.tool } : {}), ...state }, null, 2) + '\n');
    return CALL_EXIT.ok;
  }
  const lines = [`task ${state.taskId} on ${server}${stored ? ` (${stored.title})` : ''}`, `status: ${state.status}${state.statusMessage ? `: ${state.statusMessage}` : ''}`];
  if (state.createdAt) lines.push(`created: ${state.createdAt}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return CALL_EXIT.ok;
}

function report(finished: FinishedTask, options: CliOptions): number {
  const result = finished.result ? formatToolResult(finished.result, {}) : undefined;
  if (options.json) {
    process.stdout.write(JSON.stringify({ ...finished.task, ...(result ? { isError: result.isError, text: result.text, content: result.content } : { error: finished.error }) }, null, 2) + '\n');
  } else if (result && !result.isError) {
    process.stdout.write(result.text.endsWith('\n') ? result.text : `${result.text}\n`);
  } else {
    process.stderr.write(`${result?.text ?? finished.error ?? `task ${finished.task.taskId} ${finished.task.status}`}\n`);
  }
  return result && !result.isError ? CALL_EXIT.ok : CALL_EXIT.failed;
}
