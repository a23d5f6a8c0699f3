import { describe, expect, it } from 'vitest';
import type { StoredTask } from '../../../src/core/tasks/taskTypes';
import { CREATED_AT, done, host, MemoryTaskStore, scriptedTaskClient, toolCall } from './taskFakes';

const stored = (server: string, taskId: string, extra: Partial<StoredTask> = {}): StoredTask => ({ server, taskId, tool: 'job', title: `Job ${taskId}`, createdAt: Date.parse(CREATED_AT), ...extra });

describe('McpTasks picking stored tasks up again', () => {
  it('follows each stored task of a configured server again and drops those of servers that are gone', async () => {
    const store = new MemoryTaskStore([stored('gone', 't9'), stored('s', 't1', { origin: { callId: 'c1' } })]);
    const asked: string[] = [];
    const { client } = scriptedTaskClient([done]);
    const { tasks, clock, logs, finished } = host({ store, hasServer: (s) => s === 's', clientFor: async (s) => (asked.push(s), client) });
    const picked = await tasks.resume();
    expect(picked).toEqual([{ server: 's', taskId: 't1', kind: 'tool', title: 'Job t1', tool: 'job', status: 'working', createdAt: Date.parse(CREATED_AT), lastUpdatedAt: clock.now(), resumed: true, origin: { callId: 'c1' } }]);
    expect(tasks.tasks()).toEqual(picked);
    expect(logs).toEqual(['warn gone: task t9 (Job t9) is dropped: the server is no longer configured', 'info s: following task t1 (Job t1) again']);
    expect(await tasks.stored()).toEqual([]);
    await clock.tick();
    expect(asked).toEqual(['s']);
    expect(finished).toEqual([{ task: expect.objectContaining({ taskId: 't1', status: 'completed', resumed: true }), result: done.result }]);
    await tasks.flush();
    // Picked up, not stored a second time; removed once it ended.
    expect(store.changes).toEqual(['remove gone/t9', 'remove s/t1']);
  });

  it('picks up only the tasks asked for, and leaves a task already followed alone', async () => {
    const store = new MemoryTaskStore([stored('s', 't1'), stored('s', 't2')]);
    const { tasks } = host({ store });
    expect((await tasks.resume((t) => t.taskId === 't2')).map((t) => t.taskId)).toEqual(['t2']);
    expect((await tasks.stored()).map((t) => t.taskId)).toEqual(['t1']);
    expect((await tasks.resume()).map((t) => t.taskId)).toEqual(['t1']);
    expect(await tasks.resume()).toEqual([]);
    tasks.dispose();
  });

  it('gives up a restored task whose server stays unreachable past its time to live', async () => {
    const store = new MemoryTaskStore([stored('s', 't1', { ttlMs: 1000 })]);
    const { client } = scriptedTaskClient([new Error('connection refused')]);
    const { tasks, clock, finished } = host({ store, clientFor: async () => client });
    await tasks.resume();
    await clock.tick();
    expect(finished).toEqual([{ task: expect.objectContaining({ taskId: 't1', status: 'failed' }), error: 'lost "s" while following task t1: connection refused' }]);
  });

  it('keeps waiting for the server of a restored task that has no time to live', async () => {
    const store = new MemoryTaskStore([stored('s', 't1')]);
    const { client, gets } = scriptedTaskClient([new Error('connection refused')]);
    const { tasks, clock, finished } = host({ store, clientFor: async () => client });
    await tasks.resume();
    for (let i = 0; i < 7; i++) await clock.tick();
    expect(gets.length).toBeGreaterThanOrEqual(6);
    expect(finished).toEqual([]);
    tasks.dispose();
  });

  it('says so and picks up nothing when the store cannot be read', async () => {
    const { tasks, logs } = host({ store: new MemoryTaskStore([], new Error('bad json')) });
    expect(await tasks.resume()).toEqual([]);
    expect(logs).toEqual(['warn harness: the stored tasks cannot be read, so none is picked up again: bad json']);
  });

  it('has nothing stored without a store', async () => {
    const { tasks } = host({ store: undefined });
    void tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client)).catch(() => undefined);
    expect(await tasks.stored()).toEqual([]);
    tasks.dispose();
  });
});

describe('McpTasks watching a task by its id', () => {
  it("follows it in the background, stores it, and resolves how it ended", async () => {
    const { client } = scriptedTaskClient([done]);
    const { tasks, clock, store } = host({ clientFor: async () => client });
    const ended = tasks.watch('s', 't5', { tool: 'job' });
    expect(tasks.tasks()).toEqual([{ server: 's', taskId: 't5', kind: 'tool', title: 'task t5', tool: 'job', status: 'working', createdAt: clock.now(), lastUpdatedAt: clock.now(), resumed: true }]);
    await clock.tick();
    expect(await ended).toEqual({ task: expect.objectContaining({ taskId: 't5', status: 'completed', title: 'task t5' }), result: done.result });
    await tasks.flush();
    expect(store.changes).toEqual(['add s/t5', 'remove s/t5']);
  });

  it('waits for a task already followed instead of following it twice, and only for that task', async () => {
    const { client } = scriptedTaskClient([{ status: 'working' }, done]);
    const other = scriptedTaskClient([done]).client;
    const { tasks, clock, store } = host({ clientFor: async () => client });
    void tasks.follow(toolCall(client, { context: { detach: true } }));
    const ended = tasks.watch('s', 't1', { title: 'ignored' });
    void tasks.follow(toolCall(other, { server: 'x', context: { detach: true } }));
    expect(tasks.tasks().map((t) => `${t.server}/${t.taskId} ${t.title}`)).toEqual(['s/t1 Job', 'x/t1 Job']);
    await clock.tick();
    await clock.tick();
    expect((await ended).task).toMatchObject({ server: 's', taskId: 't1', title: 'Job' });
    await tasks.flush();
    expect(store.changes.filter((c) => c === 'add s/t1')).toHaveLength(1);
  });

  it('names a task watched without a tool by its id, and is not ended by another task of its server', async () => {
    const { tasks, clock } = host({ clientFor: async () => scriptedTaskClient([{ status: 'working' }, done]).client });
    const ended = tasks.watch('s', 't7');
    expect(tasks.tasks()[0]).toMatchObject({ taskId: 't7', tool: '', title: 'task t7' });
    void tasks.follow(toolCall(scriptedTaskClient([done]).client, { context: { detach: true } }));
    await clock.tick();
    await clock.tick();
    expect((await ended).task).toMatchObject({ server: 's', taskId: 't7' });
  });
});

describe("McpTasks and the host's own tasks", () => {
  it('lists them after the tool tasks, tells their changes, cancels them, and forgets them with their session', async () => {
    const { tasks, clock } = host();
    void tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client)).catch(() => undefined);
    const ours = tasks.clientTasks('s');
    let changes = 0;
    tasks.onDidChangeTasks(() => changes++);
    const { task } = ours.start('elicitation', 5000, () => new Promise(() => undefined));
    expect(changes).toBe(1);
    expect(tasks.tasks().map((t) => t.kind)).toEqual(['tool', 'elicitation']);
    expect(tasks.cancel('other', task.taskId)).toBe(false);
    expect(tasks.cancel('s', task.taskId)).toBe(true);
    expect(tasks.tasks().map((t) => t.kind)).toEqual(['tool']);
    const second = tasks.clientTasks('s');
    second.start('sampling', undefined, () => new Promise(() => undefined));
    second.dispose();
    expect(tasks.tasks().map((t) => t.kind)).toEqual(['tool']);
    await clock.tick();
    tasks.dispose();
    expect(() => ours.start('sampling', undefined, async () => ({}))).toThrow('the session is closing');
  });
});
