import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { HarnessTask } from '../../../src/core/tasks/taskTypes';
import { CREATED_AT, done, host, MemoryTaskStore, scriptedTaskClient, toolCall } from './taskFakes';

describe('McpTasks following a tool task a call waits for', () => {
  it('lists the task while it runs, keeps it stored, tells each state, and answers the result', async () => {
    const { tasks, clock, store } = host();
    const { client } = scriptedTaskClient([{ status: 'working', statusMessage: 'half way', lastUpdatedAt: '2026-12-01T10:00:05Z' }, done]);
    const seen: HarnessTask[] = [];
    let changes = 0;
    tasks.onDidChangeTasks(() => changes++);
    const result = tasks.follow(toolCall(client, { context: { origin: { callId: 'c1' }, onTask: (t) => seen.push(t) } }));
    const view = { server: 's', taskId: 't1', kind: 'tool', title: 'Job', tool: 'job', status: 'working', createdAt: Date.parse(CREATED_AT), lastUpdatedAt: clock.now(), origin: { callId: 'c1' } };
    expect(tasks.tasks()).toEqual([view]);
    expect(seen[0]).toEqual(view);
    await tasks.flush();
    expect(store.tasks).toEqual([{ server: 's', taskId: 't1', tool: 'job', title: 'Job', createdAt: Date.parse(CREATED_AT), ttlMs: 60_000, origin: { callId: 'c1' } }]);
    await clock.tick();
    expect(tasks.tasks()).toEqual([{ ...view, statusMessage: 'half way', lastUpdatedAt: Date.parse('2026-12-01T10:00:05Z') }]);
    await clock.tick();
    expect(await result).toEqual(done.result);
    expect(seen.map((t) => `${t.status} ${t.statusMessage ?? ''}`)).toEqual(['working ', 'working ', 'working half way', 'completed ', 'completed ']);
    expect(tasks.tasks()).toEqual([]);
    await tasks.flush();
    expect(store.changes).toEqual(['add s/t1', 'remove s/t1']);
    expect(changes).toBeGreaterThanOrEqual(4);
  });

  it("keeps the task's entry up to date when the caller does not listen to its states", async () => {
    const { tasks, clock } = host();
    const { client } = scriptedTaskClient([{ status: 'input_required', statusMessage: 'needs you', lastUpdatedAt: '2026-12-01T10:00:07Z' }, done]);
    const result = tasks.follow(toolCall(client, {}));
    expect(tasks.tasks()[0]).toMatchObject({ taskId: 't1', status: 'working' });
    await clock.tick();
    expect(tasks.tasks()[0]).toMatchObject({ status: 'input_required', statusMessage: 'needs you', lastUpdatedAt: Date.parse('2026-12-01T10:00:07Z') });
    await clock.tick();
    expect(await result).toEqual(done.result);
    expect(tasks.tasks()).toEqual([]);
  });

  it('shows the latest progress while the status stays, and drops it when the status changes', async () => {
    const { tasks, clock } = host();
    const { client, progress } = scriptedTaskClient([{ status: 'working', statusMessage: 'busy' }, { status: 'input_required' }, done]);
    const heard: unknown[] = [];
    const result = tasks.follow(toolCall(client, { created: { task: { taskId: 't1', status: 'working' }, progressToken: 'p1' }, onProgress: (p) => heard.push(p), context: { onTask: () => undefined } }));
    await clock.tick();
    progress({ progress: 1, total: 4 });
    expect(heard).toEqual([{ progress: 1, total: 4 }]);
    expect(tasks.tasks()[0]).toMatchObject({ status: 'working', statusMessage: 'busy', progress: { progress: 1, total: 4 } });
    await clock.tick();
    expect(tasks.tasks()[0]).not.toHaveProperty('progress');
    expect(tasks.tasks()[0].statusMessage).toBeUndefined();
    expect(tasks.tasks()[0].status).toBe('input_required');
    await clock.tick();
    await result;
  });

  it('tells the caller the task failed, without the last message or progress, and forgets it', async () => {
    const { tasks, clock, store } = host();
    const { client, progress } = scriptedTaskClient([{ status: 'working', statusMessage: 'busy' }, new ProtocolError(-32602, 'unknown task')]);
    const seen: HarnessTask[] = [];
    const result = tasks.follow(toolCall(client, { created: { task: { taskId: 't1', status: 'working' }, progressToken: 'p' }, context: { onTask: (t) => seen.push(t) } })).catch((e: unknown) => e);
    await clock.tick();
    progress({ progress: 1 });
    await clock.tick();
    expect(await result).toMatchObject({ kind: 'protocol' });
    expect(seen.at(-1)).toEqual({ server: 's', taskId: 't1', kind: 'tool', title: 'Job', tool: 'job', status: 'failed', createdAt: clock.now(), lastUpdatedAt: clock.now() });
    expect(tasks.tasks()).toEqual([]);
    await tasks.flush();
    expect(store.tasks).toEqual([]);
  });

  it('cancels the task on its server on "Cancel Task" and tells the caller it was cancelled', async () => {
    const { tasks, clock } = host();
    const { client, cancels } = scriptedTaskClient([{ status: 'working' }]);
    const seen: HarnessTask[] = [];
    const result = tasks.follow(toolCall(client, { context: { onTask: (t) => seen.push(t) } }));
    await clock.tick();
    expect(tasks.cancel('s', 'nope')).toBe(false);
    expect(tasks.cancel('other', 't1')).toBe(false);
    expect(tasks.cancel('s', 't1')).toBe(true);
    await expect(result).rejects.toMatchObject({ kind: 'cancelled' });
    expect(cancels).toEqual(['t1']);
    expect(seen.at(-1)?.status).toBe('cancelled');
  });

  it("cancels the task when the caller's own signal aborts", async () => {
    const { tasks, clock } = host();
    const { client, cancels } = scriptedTaskClient([{ status: 'working' }]);
    const stop = new AbortController();
    const result = tasks.follow(toolCall(client, { signal: stop.signal }));
    await clock.tick();
    stop.abort();
    await expect(result).rejects.toMatchObject({ kind: 'cancelled' });
    expect(cancels).toEqual(['t1']);
  });

  it('stops following on suspend without cancelling: the task stays listed and stored, its card keeps running', async () => {
    const { tasks, clock, store } = host();
    const { client, cancels } = scriptedTaskClient([{ status: 'working', statusMessage: 'busy' }]);
    const seen: HarnessTask[] = [];
    const result = tasks.follow(toolCall(client, { context: { onTask: (t) => seen.push(t) } }));
    await clock.tick();
    tasks.suspend();
    await expect(result).rejects.toMatchObject({ kind: 'unavailable' });
    expect(seen.at(-1)).toMatchObject({ status: 'working', statusMessage: 'busy' });
    expect(tasks.tasks()).toHaveLength(1);
    await tasks.flush();
    expect(store.changes).toEqual(['add s/t1']);
    expect(cancels).toEqual([]);
  });

  it('shows the message and update time the server created the task with', async () => {
    const { tasks } = host();
    const created = { task: { taskId: 't1', status: 'working' as const, statusMessage: 'queued', lastUpdatedAt: '2026-12-01T09:59:30Z' } };
    void tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client, { created })).catch(() => undefined);
    expect(tasks.tasks()[0]).toMatchObject({ statusMessage: 'queued', lastUpdatedAt: Date.parse('2026-12-01T09:59:30Z') });
    tasks.dispose();
  });

  it('says so when the store cannot be written', async () => {
    const { tasks, logs } = host({ store: new MemoryTaskStore([], new Error('disk full')) });
    void tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client)).catch(() => undefined);
    await tasks.flush();
    expect(logs).toEqual(['warn harness: saving the running tasks failed: disk full']);
    tasks.dispose();
  });
});

describe('McpTasks following in the background', () => {
  it('answers a detached call at once and tells how the task ended through onDidFinishTask', async () => {
    const { tasks, clock, logs, finished } = host();
    const { client } = scriptedTaskClient([done]);
    const seen: HarnessTask[] = [];
    const answer = await tasks.follow(toolCall(client, { context: { detach: true, onTask: (t) => seen.push(t) } }));
    expect(answer).toEqual({ content: [{ type: 'text', text: 'The call runs as task t1 on "s"; it keeps running, and its result comes when it ends.' }] });
    expect(seen).toHaveLength(1);
    expect(tasks.tasks()).toMatchObject([{ taskId: 't1', status: 'working' }]);
    expect(tasks.tasks()[0]).not.toHaveProperty('resumed');
    await clock.tick();
    expect(finished).toEqual([{ task: expect.objectContaining({ taskId: 't1', status: 'completed' }), result: done.result }]);
    expect(logs).toEqual(['info s: task t1 (Job) ended: completed']);
    expect(tasks.tasks()).toEqual([]);
  });

  it('tells a failed or cancelled background task with why, as a warning', async () => {
    const { tasks, clock, logs, finished } = host();
    const failing = scriptedTaskClient([{ status: 'failed', error: { code: 1, message: 'broke' } }]).client;
    await tasks.follow(toolCall(failing, { context: { detach: true } }));
    await tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client, { created: { task: { taskId: 't2', status: 'working' } }, context: { detach: true } }));
    await clock.tick();
    tasks.cancel('s', 't2');
    await clock.tick();
    expect(finished.map((f) => [f.task.taskId, f.task.status, f.error]).sort()).toEqual([
      ['t1', 'failed', 'task t1 failed: broke'],
      ['t2', 'cancelled', 'the call was cancelled; task t2 was cancelled on "s"'],
    ]);
    expect(logs).toContain('warn s: task t1 (Job) ended: task t1 failed: broke');
  });

  it('tells nothing of a background task when the host closes', async () => {
    const { tasks, clock, finished, logs } = host();
    await tasks.follow(toolCall(scriptedTaskClient([{ status: 'working' }]).client, { context: { detach: true } }));
    await clock.tick();
    tasks.dispose();
    await clock.tick();
    expect(finished).toEqual([]);
    expect(logs).toEqual([]);
  });
});
