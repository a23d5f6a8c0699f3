import * as fs from 'node:fs';
import * as path from 'node:path';
import lockfile from 'proper-lockfile';
import type { ITaskStore, McpTaskOrigin, StoredTask } from './taskTypes';

const LOCK_STALE_MS = 30_000;
const LOCK_RETRIES = { retries: 60, factor: 1.2, minTimeout: 25, maxTimeout: 500 };

/**
 * Tool tasks in one JSON file (`{ "<workspace>": [task, ...] }`, readable by its owner only), for
 * the CLI and library hosts. Several processes may share it: each change holds a lock beside it
 * and rewrites the file whole. An unreadable file reads as no tasks; an entry that is not a task is
 * skipped.
 */
export class FileTaskStore implements ITaskStore {
  /**
   * @param file the JSON file
   * @param scope what the tasks belong to (a workspace folder): hosts of other scopes do not see them
   */
  constructor(
    readonly file: string,
    private readonly _scope: string,
  ) {}

  async load(): Promise<readonly StoredTask[]> {
    const entries = this._read()[this._scope];
    return Array.isArray(entries) ? entries.flatMap((e) => storedTask(e) ?? []) : [];
  }

  async add(task: StoredTask): Promise<void> {
    await this._change((tasks) => [...tasks.filter((t) => t.server !== task.server || t.taskId !== task.taskId), task]);
  }

  async remove(server: string, taskId: string): Promise<void> {
    await this._change((tasks) => tasks.filter((t) => t.server !== server || t.taskId !== taskId));
  }

  private async _change(change: (tasks: readonly StoredTask[]) => StoredTask[]): Promise<void> {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(this.file, { realpath: false, stale: LOCK_STALE_MS, retries: LOCK_RETRIES });
    try {
      const all = this._read();
      const next = change(await this.load());
      if (next.length) all[this._scope] = next;
      else delete all[this._scope];
      const temp = `${this.file}.${process.pid}.tmp`;
      fs.writeFileSync(temp, JSON.stringify(all, null, 2), { mode: 0o600 });
      fs.renameSync(temp, this.file);
    } finally {
      await release();
    }
  }

  private _read(): Record<string, unknown> {
    try {
      const value: unknown = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
}

/** A stored task as read back (from a file or VS Code's state), or undefined when it is not one. */
export function storedTask(value: unknown): StoredTask | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const strings = ['server', 'taskId', 'tool', 'title'] as const;
  if (!strings.every((k) => typeof v[k] === 'string' && v[k] !== '') || typeof v.createdAt !== 'number') return undefined;
  const origin = v.origin as Record<string, unknown> | undefined;
  const validOrigin = typeof origin === 'object' && origin !== null && typeof origin.callId === 'string';
  return {
    server: v.server as string,
    taskId: v.taskId as string,
    tool: v.tool as string,
    title: v.title as string,
    createdAt: v.createdAt,
    ...(typeof v.ttlMs === 'number' && v.ttlMs > 0 ? { ttlMs: v.ttlMs } : {}),
    ...(validOrigin ? { origin: pickOrigin(origin) } : {}),
  };
}

function pickOrigin(o: Record<string, unknown>): McpTaskOrigin {
  return {
    callId: o.callId as string,
    ...(typeof o.conversationId === 'string' ? { conversationId: o.conversationId } : {}),
    ...(typeof o.modelCallId === 'string' ? { modelCallId: o.modelCallId } : {}),
  };
}
