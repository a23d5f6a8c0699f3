import { InMemoryTransport } from '@modelcontextprotocol/client';
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { afterEach, describe, expect, it } from 'vitest';
import { TracingTransport } from '../../../src/core/mcp/TracingTransport';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import { McpTaskAwareClient } from '../../../src/core/tasks/McpTaskAwareClient';
import { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import { McpClientTasks } from '../../../src/core/tasks/McpClientTasks';
import { createdTaskFrom, McpTaskWire } from '../../../src/core/tasks/McpTaskWire';
import { followTask, type ITaskClock } from '../../../src/core/tasks/McpTaskFollow';

// The follow against a real SDK server in this process (2025-11-25 over a linked pair), with a clock
// that records every wait instead of sleeping.

interface Job {
  status: string;
  polls: number;
  statusMessage?: string;
}

/** The SDK's check of tools/call results would refuse a created task; a server that makes tasks skips it. */
class TaskServer extends Server {
  protected override _wrapHandler(method: string, handler: Parameters<Server['_wrapHandler']>[1]): ReturnType<Server['_wrapHandler']> {
    return method === 'tools/call' ? handler : super._wrapHandler(method, handler);
  }
}

function rig(script: (job: Job) => void, pollInterval = 400) {
  const jobs = new Map<string, Job>();
  const cancels: string[] = [];
  const server = new TaskServer({ name: 's', version: '1' }, { capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } } });
  const task = (id: string, job: Job) => ({ taskId: id, status: job.status, ttl: 60_000, createdAt: '2026-12-01T10:00:00Z', lastUpdatedAt: '2026-12-01T10:00:00Z', pollInterval, ...(job.statusMessage ? { statusMessage: job.statusMessage } : {}) });
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }] }));
  server.setRequestHandler('tools/call', () => {
    const id = `t${jobs.size + 1}`;
    jobs.set(id, { status: 'working', polls: 0 });
    return { task: task(id, jobs.get(id)!) } as never;
  });
  const TaskId = z.looseObject({ taskId: z.string() });
  server.setRequestHandler('tasks/get', { params: TaskId }, ({ taskId }) => {
    const job = jobs.get(taskId);
    if (!job) throw new ProtocolError(-32602, `unknown task ${taskId}`);
    job.polls++;
    script(job);
    return task(taskId, job);
  });
  server.setRequestHandler('tasks/result', { params: TaskId }, ({ taskId }) => ({ content: [{ type: 'text', text: `result of ${taskId}` }] }));
  server.setRequestHandler('tasks/cancel', { params: TaskId }, ({ taskId }) => {
    cancels.push(taskId);
    jobs.get(taskId)!.status = 'cancelled';
    return task(taskId, jobs.get(taskId)!);
  });
  return { server, jobs, cancels };
}

async function connect(server: Server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const wire = new McpTaskWire();
  const errors: Error[] = [];
  const client = new McpTaskAwareClient({ name: 'c', version: '1' }, { capabilities: { elicitation: { form: {} }, tasks: { cancel: {}, list: {}, requests: { elicitation: { create: {} } } } } });
  client.onerror = (e) => errors.push(e);
  await client.connect(new TracingTransport(clientSide, () => false, () => undefined, wire));
  const tasks = new McpTaskClient(client, wire, async () => ({}));
  return { client, wire, tasks, errors };
}

/** Records each wait; returns at once (or when woken). */
class RecordingClock implements ITaskClock {
  readonly waits: number[] = [];
  now = () => Date.now();
  async sleep(ms: number): Promise<void> {
    this.waits.push(ms);
  }
}

async function createTask(client: McpTaskAwareClient) {
  const err = await client.request({ method: 'tools/call', params: { name: 'job', arguments: {}, task: {} } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const created = createdTaskFrom(err);
  expect(created).toBeDefined();
  return created!;
}

const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c()));
});

describe('following a task', () => {
  it("polls at the server's interval, backs off while nothing changes, starts over on a change, and fetches the result", async () => {
    const { server } = rig((job) => {
      if (job.polls === 3) job.statusMessage = 'half way';
      if (job.polls === 5) job.status = 'completed';
    });
    const { client, tasks } = await connect(server);
    closing.push(() => client.close());
    const clock = new RecordingClock();
    const created = await createTask(client);
    const states: string[] = [];
    const result = await followTask({ server: 's', created, client: async () => tasks, requestTimeoutMs: 5000, clock, onState: (s) => states.push(`${s.status}${s.statusMessage ? `: ${s.statusMessage}` : ''}`) });
    expect(result).toEqual({ content: [{ type: 'text', text: 'result of t1' }] });
    expect(clock.waits).toEqual([400, 400, 600, 400, 600]);
    expect(states).toEqual(['working', 'working', 'working', 'working: half way', 'working: half way', 'completed: half way']);
  });

  it('cancels the task on the server when the call is stopped, and says so', async () => {
    const { server, cancels } = rig(() => undefined);
    const { client, tasks } = await connect(server);
    closing.push(() => client.close());
    const stop = new AbortController();
    const clock: ITaskClock = { now: Date.now, sleep: (_ms, signal) => new Promise((r) => (signal.aborted ? r() : signal.addEventListener('abort', () => r(), { once: true }))) };
    const created = await createTask(client);
    const follow = followTask({ server: 's', created, client: async () => tasks, signal: stop.signal, requestTimeoutMs: 5000, clock });
    stop.abort();
    const err = await follow.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpCallError);
    expect(err).toMatchObject({ kind: 'cancelled', message: 'the call was cancelled; task t1 was cancelled on "s"' });
    expect(cancels).toEqual(['t1']);
  });

  it('stops following without cancelling when the host stops it: the task keeps running', async () => {
    const { server, cancels } = rig(() => undefined);
    const { client, tasks } = await connect(server);
    closing.push(() => client.close());
    const stop = new AbortController();
    const clock: ITaskClock = { now: Date.now, sleep: (_ms, signal) => new Promise((r) => signal.addEventListener('abort', () => r(), { once: true })) };
    const follow = followTask({ server: 's', created: await createTask(client), client: async () => tasks, stop: stop.signal, requestTimeoutMs: 5000, clock });
    stop.abort();
    await expect(follow).rejects.toMatchObject({ kind: 'unavailable', message: 'stopped following task t1; it keeps running on "s"' });
    expect(cancels).toEqual([]);
  });

  it('says so when the server no longer knows the task', async () => {
    const { server, jobs } = rig(() => undefined);
    const { client, tasks } = await connect(server);
    closing.push(() => client.close());
    const created = await createTask(client);
    jobs.clear();
    await expect(followTask({ server: 's', created, client: async () => tasks, requestTimeoutMs: 5000, clock: new RecordingClock() })).rejects.toMatchObject({
      kind: 'protocol',
      message: '"s" no longer knows task t1 (it may have expired)',
    });
  });

  it('rides out a server it cannot reach for a while, then gives up saying why', async () => {
    const { server } = rig(() => undefined);
    const { client, tasks } = await connect(server);
    const created = await createTask(client);
    await client.close();
    const clock = new RecordingClock();
    const err = await followTask({ server: 's', created, client: async () => tasks, requestTimeoutMs: 5000, clock }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable' });
    expect((err as Error).message).toMatch(/^lost "s" while following task t1: /);
    // The first wait is the server's interval; then each retry waits longer.
    expect(clock.waits).toEqual([400, 1000, 2000, 4000, 8000]);
  });

  it("hears a task's progress on its call's token instead of the SDK (which would report an unknown token)", async () => {
    const { server } = rig((job) => {
      if (job.polls === 2) job.status = 'completed';
    });
    const { client, tasks, errors } = await connect(server);
    closing.push(() => client.close());
    const created = await client.request({ method: 'tools/call', params: { name: 'job', arguments: {}, task: {}, _meta: { progressToken: 'p1' } } }).then(
      () => undefined,
      (e: unknown) => createdTaskFrom(e),
    );
    expect(created).toMatchObject({ progressToken: 'p1' });
    await server.notification({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 3, message: 'first' } });
    const progress: unknown[] = [];
    const clock: ITaskClock = {
      now: Date.now,
      sleep: async () => {
        await server.notification({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 2, total: 3 } });
        await new Promise((r) => setTimeout(r, 10));
      },
    };
    await followTask({ server: 's', created: created!, client: async () => tasks, requestTimeoutMs: 5000, clock, onProgress: (p) => progress.push(p) });
    // The one reported before the follow listened is given at once.
    expect(progress[0]).toEqual({ progress: 1, total: 3, message: 'first' });
    expect(progress).toContainEqual({ progress: 2, total: 3 });
    expect(errors).toEqual([]);
  });
});

describe("the host's own tasks (a server's task-augmented requests)", () => {
  it('answers the server at once with a task, runs the request behind it, and lets the server poll, fetch and list it', async () => {
    const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
    const { client } = await connect(server);
    closing.push(() => client.close());
    const ours = new McpClientTasks('s');
    client.attachTasks(ours);
    let answer!: (v: { action: 'accept'; content: { name: string } }) => void;
    client.setRequestHandler('elicitation/create', () => new Promise((resolve) => (answer = resolve)));
    const Any = z.looseObject({});
    const created = (await server.request({ method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } }, task: { ttl: 5000 } } }, Any)) as {
      task: { taskId: string; status: string; ttl: number; pollInterval: number };
    };
    expect(created.task).toMatchObject({ status: 'working', ttl: 5000, pollInterval: 1000 });
    const id = created.task.taskId;
    expect(ours.view()).toMatchObject([{ server: 's', taskId: id, kind: 'elicitation', status: 'working', statusMessage: 'waiting for your answer' }]);
    expect(await server.request({ method: 'tasks/get', params: { taskId: id } }, Any)).toMatchObject({ taskId: id, status: 'working' });
    expect(await server.request({ method: 'tasks/list', params: {} }, Any)).toMatchObject({ tasks: [{ taskId: id }] });
    const result = server.request({ method: 'tasks/result', params: { taskId: id } }, Any);
    answer({ action: 'accept', content: { name: 'Ada' } });
    expect(await result).toEqual({ action: 'accept', content: { name: 'Ada' }, _meta: { 'io.modelcontextprotocol/related-task': { taskId: id } } });
    expect(await server.request({ method: 'tasks/get', params: { taskId: id } }, Any)).toMatchObject({ status: 'completed' });
    // A finished task cannot be cancelled.
    await expect(server.request({ method: 'tasks/cancel', params: { taskId: id } }, Any)).rejects.toMatchObject({ code: -32602 });
    expect(ours.view()).toEqual([]);
  });

  it('stops the request when the server or the person cancels its task', async () => {
    const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
    const { client } = await connect(server);
    closing.push(() => client.close());
    const ours = new McpClientTasks('s');
    client.attachTasks(ours);
    const aborted: string[] = [];
    client.setRequestHandler('elicitation/create', (request, ctx) => new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => (aborted.push(request.params.message), resolve({ action: 'cancel' })))));
    const Any = z.looseObject({});
    const ask = (message: string) => server.request({ method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: {} }, task: {} } }, Any) as Promise<{ task: { taskId: string } }>;
    const first = (await ask('first')).task.taskId;
    expect(await server.request({ method: 'tasks/cancel', params: { taskId: first } }, Any)).toMatchObject({ taskId: first, status: 'cancelled' });
    const second = (await ask('second')).task.taskId;
    expect(ours.cancelLocally(second)).toBe(true);
    expect(ours.cancelLocally(second)).toBe(false);
    await expect.poll(() => aborted).toEqual(['first', 'second']);
    await expect(server.request({ method: 'tasks/result', params: { taskId: second } }, Any)).rejects.toMatchObject({ message: expect.stringContaining('was cancelled') });
    await expect(server.request({ method: 'tasks/get', params: { taskId: 'nope' } }, Any)).rejects.toMatchObject({ code: -32602 });
  });
});
