import * as vscode from 'vscode';
import { describeTask, Disposable, storedTask, type ITaskStore, type McpHarness, type StoredTask } from '../core';
import type { ServerTreeNode } from './ServerTreeProvider';

const STORE_KEY = 'mcpHarness.tasks';

/**
 * Running tool tasks kept in the workspace's state (VS Code's `workspaceState`), so a reloaded
 * window follows them again. One window uses it at a time; entries that are not tasks are skipped.
 */
export class WorkspaceTaskStore implements ITaskStore {
  constructor(private readonly _state: vscode.Memento) {}

  async load(): Promise<readonly StoredTask[]> {
    const value = this._state.get<unknown[]>(STORE_KEY, []);
    return Array.isArray(value) ? value.flatMap((v) => storedTask(v) ?? []) : [];
  }

  async add(task: StoredTask): Promise<void> {
    const others = (await this.load()).filter((t) => t.server !== task.server || t.taskId !== task.taskId);
    await this._state.update(STORE_KEY, [...others, task]);
  }

  async remove(server: string, taskId: string): Promise<void> {
    const left = (await this.load()).filter((t) => t.server !== server || t.taskId !== taskId);
    await this._state.update(STORE_KEY, left.length ? left : undefined);
  }
}

/** "Cancel Task": on a task's row, or (from the palette) picked from the running tasks. */
export class TaskFeature extends Disposable {
  constructor(private readonly _harness: McpHarness) {
    super();
    this._register(vscode.commands.registerCommand('mcpHarness.cancelTask', (node?: ServerTreeNode) => this.cancel(node)));
  }

  async cancel(node?: ServerTreeNode): Promise<void> {
    let target = node?.kind === 'task' ? { server: node.server, taskId: node.taskId } : undefined;
    if (!target) {
      const now = Date.now();
      const picked = await vscode.window.showQuickPick(
        this._harness.tasks().map((t) => ({ label: t.title, description: `${t.server} · ${describeTask(t, now)}`, server: t.server, taskId: t.taskId })),
        { title: 'Cancel Task', placeHolder: this._harness.tasks().length ? 'The task to cancel' : 'No task is running' },
      );
      if (!picked) return;
      target = picked;
    }
    if (!this._harness.cancelTask(target.server, target.taskId)) void vscode.window.showInformationMessage('MCP: that task is no longer running.');
  }
}
