import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClientTasks } from '../../../src/core/tasks/McpClientTasks';

const never = () => new Promise<never>(() => undefined);
/** Runs until its task is stopped. */
const untilStopped = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
const settle = () => new Promise((r) => setImmediate(r));

afterEach(() => vi.useRealTimers());

describe("the host's own tasks for one server", () => {
  it('names each kind of task for the person and the server, and keeps the time to live the server asked for within bounds', () => {
    const ours = new McpClientTasks('s');
    const sampling = ours.start('sampling', 0, never).task;
    const question = ours.start('elicitation', 2 * 60 * 60_000, never).task;
    const short = ours.start('elicitation', 1500, never).task;
    const odd = ours.start('elicitation', '5000', never).task;
    expect([sampling.ttl, question.ttl, short.ttl, odd.ttl]).toEqual([600_000, 3_600_000, 1500, 600_000]);
    expect(sampling).toMatchObject({ status: 'working', statusMessage: 'waiting for approval to use the model', pollInterval: 1000 });
    expect(ours.view().map((t) => [t.kind, t.title, t.statusMessage])).toEqual([
      ['sampling', 'Model request (sampling)', 'waiting for approval to use the model'],
      ['elicitation', 'Question (elicitation)', 'waiting for your answer'],
      ['elicitation', 'Question (elicitation)', 'waiting for your answer'],
      ['elicitation', 'Question (elicitation)', 'waiting for your answer'],
    ]);
  });

  it('refuses more than 32 running tasks at once, and takes new ones as they end', async () => {
    const ours = new McpClientTasks('s');
    const ends: Array<() => void> = [];
    for (let i = 0; i < 32; i++) ours.start('sampling', undefined, () => new Promise((resolve) => ends.push(() => resolve({}))));
    expect(() => ours.start('sampling', undefined, never)).toThrow('too many tasks at once (32); wait for some to end');
    await settle();
    ends[0]();
    await settle();
    expect(ours.start('sampling', undefined, never).task.status).toBe('working');
  });

  it('tells why a task failed, and what became of a cancelled one', async () => {
    const ours = new McpClientTasks('s');
    const failed = ours.start('sampling', undefined, async () => {
      throw new Error('no model');
    }).task.taskId;
    await settle();
    expect(ours.get(failed)).toMatchObject({ status: 'failed', statusMessage: 'no model' });
    await expect(ours.result(failed)).rejects.toMatchObject({ message: expect.stringContaining('no model'), code: -32603 });
    const cancelled = ours.start('elicitation', undefined, untilStopped).task.taskId;
    await settle();
    expect(ours.cancel(cancelled)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the server' });
    await expect(ours.result(cancelled)).rejects.toMatchObject({ message: expect.stringContaining(`task ${cancelled} was cancelled`), code: -32600 });
    expect(() => ours.cancel(cancelled)).toThrow(`task ${cancelled} has already ended (cancelled)`);
    expect(() => ours.get('nope')).toThrow('unknown task nope');
    const local = ours.start('elicitation', undefined, never).task.taskId;
    ours.cancelLocally(local);
    expect(ours.list().tasks.find((t) => t.taskId === local)).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the user' });
  });

  it('answers a completed result with its own meta kept beside the related task', async () => {
    const ours = new McpClientTasks('s');
    const id = ours.start('sampling', undefined, async () => ({ content: { type: 'text', text: 'hi' }, _meta: { mine: 1 } })).task.taskId;
    expect(await ours.result(id)).toEqual({ content: { type: 'text', text: 'hi' }, _meta: { mine: 1, 'io.modelcontextprotocol/related-task': { taskId: id } } });
  });

  it('keeps a finished task for the server to fetch until its time to live runs out', async () => {
    vi.useFakeTimers();
    const ours = new McpClientTasks('s');
    const id = ours.start('sampling', 5000, async () => ({})).task.taskId;
    await vi.advanceTimersByTimeAsync(4000);
    expect(ours.get(id).status).toBe('completed');
    expect(ours.view()).toEqual([]);
    await vi.advanceTimersByTimeAsync(999);
    expect(ours.list().tasks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ours.list().tasks).toEqual([]);
  });

  it('cancels every running task when its session ends, tells so once, and takes no new one', async () => {
    const told: string[] = [];
    const ours = new McpClientTasks('s', () => told.push('disposed'));
    const aborted: string[] = [];
    ours.start('sampling', undefined, (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => (aborted.push(String(signal.reason?.message)), reject(signal.reason)))));
    const finished = ours.start('sampling', undefined, async () => ({})).task.taskId;
    await settle();
    let changes = 0;
    ours.onDidChange(() => changes++);
    ours.dispose();
    expect(told).toEqual(['disposed']);
    expect(aborted).toEqual(['the session ended']);
    expect(changes).toBe(1);
    expect(ours.list().tasks).toEqual([]);
    expect(() => ours.get(finished)).toThrow();
    expect(() => ours.start('sampling', undefined, never)).toThrow('the session is closing');
  });
});
