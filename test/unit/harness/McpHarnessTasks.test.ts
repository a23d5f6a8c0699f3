import { describe, expect, it } from 'vitest';
import type { ITaskStore, StoredTask } from '../../../src/core/tasks/taskTypes';
import { harnessRig } from '../../support/memoryHarness';

/** A task store in memory that records what the harness changed in it. */
class MemoryTaskStore implements ITaskStore {
  readonly changes: string[] = [];
  constructor(private tasks: StoredTask[]) {}
  async load(): Promise<readonly StoredTask[]> {
    return this.tasks;
  }
  async add(task: StoredTask): Promise<void> {
    this.changes.push(`add ${task.server} ${task.taskId}`);
    this.tasks = [...this.tasks, task];
  }
  async remove(server: string, taskId: string): Promise<void> {
    this.changes.push(`remove ${server} ${taskId}`);
    this.tasks = this.tasks.filter((t) => t.server !== server || t.taskId !== taskId);
  }
}

const stored = (server: string, taskId: string): StoredTask => ({ server, taskId, tool: 'build', title: `build ${taskId}`, createdAt: 1_000 });

async function rig(tasks: StoredTask[]) {
  const store = new MemoryTaskStore(tasks);
  const { harness, logs } = harnessRig({ alpha: { command: 'alpha' } }, { alpha: {} }, { taskStore: store });
  await harness.start();
  return { harness, store, logs };
}

describe('McpHarness, the tasks a host follows', () => {
  it('lists the stored tasks, drops those of a server no longer configured, and follows the rest again', async () => {
    const { harness, store, logs } = await rig([stored('gone', 't-1'), stored('alpha', 't-2')]);
    expect((await harness.storedTasks()).map((t) => `${t.server} ${t.taskId}`)).toEqual(['gone t-1', 'alpha t-2']);
    expect(harness.tasks()).toEqual([]);

    const none = await harness.resumeTasks((t) => t.server === 'gone');
    expect(none).toEqual([]);
    expect(logs.map((l) => `${l.server} ${l.level} ${l.message}`)).toContain('gone warn task t-1 (build t-1) is dropped: the server is no longer configured');
    await expect.poll(() => store.changes).toEqual(['remove gone t-1']);

    let changes = 0;
    harness.onDidChangeTasks(() => changes++);
    const finished = new Promise((resolve) => harness.onDidFinishTask(resolve));
    const picked = await harness.resumeTasks();
    expect(picked).toMatchObject([{ server: 'alpha', taskId: 't-2', kind: 'tool', title: 'build t-2', resumed: true }]);
    expect(changes).toBeGreaterThan(0);
    // The in-memory server knows no tasks: following it fails, and the host is told how it ended.
    expect(await finished).toMatchObject({ task: { server: 'alpha', taskId: 't-2', status: 'failed' }, error: expect.any(String) });
    expect(harness.tasks()).toEqual([]);
  });

  it('follows a task by its id until it ends, and cancels only a task it follows', async () => {
    const { harness } = await rig([]);
    expect(harness.cancelTask('alpha', 'nobody')).toBe(false);
    const ended = await harness.waitForTask('alpha', 't-9', { tool: 'build', title: 'the build' });
    expect(ended).toMatchObject({ task: { server: 'alpha', taskId: 't-9', status: 'failed' }, error: expect.any(String) });
  });

  it('cancels a task it follows, and leaves its tasks in the store once it stopped following them', async () => {
    const { harness, store } = await rig([stored('alpha', 't-3')]);
    expect((await harness.storedTasks()).map((t) => t.taskId)).toEqual(['t-3']);
    harness.suspendTasks();
    // Suspended: a resumed task is listed but its end is not written to the store.
    const picked = await harness.resumeTasks();
    expect(picked.map((t) => t.taskId)).toEqual(['t-3']);
    expect(harness.cancelTask('alpha', 't-3')).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.changes).toEqual([]);
    // Still followed here (to be picked up again by the next host), so not among those nobody follows.
    expect(await harness.storedTasks()).toEqual([]);
  });

  it('shows full snapshots with the state of each server', async () => {
    const { harness } = await rig([]);
    expect(harness.snapshots().map((s) => [s.name, s.state.kind, s.tools.map((t) => t.name)])).toEqual([['alpha', 'running', ['echo']]]);
  });
});
