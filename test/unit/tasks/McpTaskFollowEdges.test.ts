import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import { followTask, systemTaskClock, type ITaskClock } from '../../../src/core/tasks/McpTaskFollow';
import type { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import type { McpTaskState } from '../../../src/core/tasks/taskTypes';
import { done, ManualClock, scriptedTaskClient } from './taskFakes';

const working: McpTaskState = { taskId: 't1', status: 'working' };

function follow<C extends ITaskClock = ManualClock>(client: McpTaskClient, extra: { clock?: C; created?: McpTaskState; signal?: AbortSignal; waitForServer?: boolean } = {}) {
  const clock = (extra.clock ?? new ManualClock()) as C;
  const run = followTask({ server: 's', created: { task: extra.created ?? working }, client: async () => client, requestTimeoutMs: 1000, clock, signal: extra.signal, waitForServer: extra.waitForServer });
  return { outcome: run.catch((e: unknown) => e), clock };
}

/** Follows until it ends, each wait passing at once. */
async function ended(states: Array<Partial<McpTaskState> | Error>, era: 'modern' | 'legacy' = 'modern', more = {}): Promise<unknown> {
  const instant: ITaskClock = { now: () => Date.parse('2026-12-01T10:00:00Z'), sleep: async () => undefined };
  return follow(scriptedTaskClient(states, era, more).client, { clock: instant }).outcome;
}

afterEach(() => vi.useRealTimers());

describe('how a 2026-07-28 task ends', () => {
  it.each([
    [{ status: 'failed', error: { code: 1, message: 'disk full' }, statusMessage: 'ignored' }, 'task t1 failed: disk full'],
    [{ status: 'failed', statusMessage: 'gave up' }, 'task t1 failed: gave up'],
    [{ status: 'failed' }, 'task t1 failed: no reason given'],
    [{ status: 'completed' }, 'task t1 completed without a result'],
    [{ status: 'cancelled', statusMessage: 'by an admin' }, 'task t1 was cancelled on "s": by an admin'],
    [{ status: 'cancelled' }, 'task t1 was cancelled on "s"'],
  ] as const)('%j ends the follow with "%s"', async (state, message) => {
    const err = await ended([state]);
    expect(err).toBeInstanceOf(McpCallError);
    expect(err).toMatchObject({ kind: state.status === 'cancelled' ? 'cancelled' : 'protocol', message });
  });

  it('answers the result inlined with the completed state', async () => {
    expect(await ended([done])).toEqual(done.result);
  });

  it('answers each input request once through the client and tasks/update, and again once the server asks anew', async () => {
    const ask = { status: 'input_required' as const, inputRequests: { a: { method: 'elicitation/create' } } };
    const scripted = scriptedTaskClient([ask, ask, { status: 'working' }, ask, done]);
    const { outcome, clock } = follow(scripted.client);
    for (let i = 0; i < 5; i++) await clock.tick();
    expect(await outcome).toEqual(done.result);
    expect(scripted.updates).toEqual([
      ['t1', { a: { answered: 'elicitation/create' } }],
      ['t1', { a: { answered: 'elicitation/create' } }],
    ]);
  });
});

describe('waiting between polls', () => {
  it("wakes on a status notification for its own task, not another's", async () => {
    const scripted = scriptedTaskClient([done]);
    const { outcome, clock } = follow(scripted.client);
    await clock.idle();
    scripted.status({ taskId: 'other', status: 'completed' });
    await new Promise((r) => setTimeout(r, 5));
    expect(scripted.gets).toEqual([]);
    scripted.status({ taskId: 't1', status: 'completed' });
    expect(await outcome).toEqual(done.result);
    expect(scripted.gets).toEqual(['t1']);
  });

  it('the system clock waits the time asked, or ends at once when stopped', async () => {
    vi.useFakeTimers();
    let woke = false;
    void systemTaskClock.sleep(1000, new AbortController().signal).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toBe(true);
    const stop = new AbortController();
    const stopped = systemTaskClock.sleep(60_000, stop.signal);
    stop.abort();
    await stopped;
    await systemTaskClock.sleep(60_000, stop.signal);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('failures while following', () => {
  it.each([
    ['a timeout', new McpCallError('timeout', 'slow')],
    ['a closed connection', new McpCallError('connection_closed', 'gone')],
    ['a server not running', new McpCallError('unavailable', 'stopped')],
    ['an SDK timeout', new SdkError(SdkErrorCode.RequestTimeout, 'timed out')],
    ['an SDK connection loss', new SdkError(SdkErrorCode.ConnectionClosed, 'closed')],
    ['an SDK without connection', new SdkError(SdkErrorCode.NotConnected, 'not connected')],
    ['an SDK send failure', new SdkError(SdkErrorCode.SendFailed, 'send failed')],
  ])('rides out %s and goes on polling', async (_what, error) => {
    expect(await ended([error, done])).toEqual(done.result);
  });

  it('ends at once on an answer that is an error', async () => {
    expect(await ended([new McpCallError('protocol', 'bad answer')])).toMatchObject({ kind: 'protocol', message: 'bad answer' });
    expect(await ended([new ProtocolError(-32603, 'internal')])).toMatchObject({ kind: 'protocol', message: 'following task t1: internal' });
    expect(await ended([new SdkError(SdkErrorCode.InvalidResult, 'odd')])).toMatchObject({ kind: 'protocol', message: 'following task t1: odd' });
  });

  it('a restored task waits for its server until its time to live runs out', async () => {
    const down = new McpCallError('unavailable', 'down');
    const created = { taskId: 't1', status: 'working' as const, createdAt: '2026-12-01T09:59:59Z', ttlMs: 2000 };
    const clock = new ManualClock();
    const scripted = scriptedTaskClient([down, down, down, down, down, down, done]);
    const kept = follow(scripted.client, { clock, created, waitForServer: true });
    for (let i = 0; i < 7; i++) await clock.tick();
    expect(await kept.outcome).toEqual(done.result);
    const expired = { ...created, ttlMs: 500 };
    const gone = follow(scriptedTaskClient([down]).client, { clock, created: expired, waitForServer: true });
    await clock.tick();
    expect(await gone.outcome).toMatchObject({ kind: 'unavailable', message: 'lost "s" while following task t1: down' });
  });

  it('says when cancelling the task on its server failed', async () => {
    const stop = new AbortController();
    const scripted = scriptedTaskClient([working], 'modern', { cancelError: new Error('no route') });
    const { outcome, clock } = follow(scripted.client, { signal: stop.signal });
    await clock.idle();
    stop.abort();
    expect(await outcome).toMatchObject({ kind: 'cancelled', message: 'the call was cancelled; cancelling task t1 on "s" failed: no route' });
  });
});

describe('a 2025-11-25 task', () => {
  it('asks for the result while the task waits on input, and ends with it', async () => {
    const result = vi.fn(async () => ({ content: [{ type: 'text' as const, text: 'answered' }] }));
    expect(await ended([{ status: 'input_required' }], 'legacy', { result })).toEqual({ content: [{ type: 'text', text: 'answered' }] });
    expect(result).toHaveBeenCalledTimes(1);
  });

  it('asks for the result again after a timeout, and fails with the server error it ends with', async () => {
    const answers = [new McpCallError('timeout', 'slow'), new ProtocolError(-32603, 'MCP error -32603: it broke')];
    const result = vi.fn(async () => {
      throw answers.shift();
    });
    const err = await ended([{ status: 'input_required' }], 'legacy', { result });
    expect(err).toMatchObject({ kind: 'protocol', message: 'task t1 failed: it broke', code: -32603 });
    expect(result).toHaveBeenCalledTimes(2);
  });

  it("fails a completed task whose result cannot be fetched with the server's message, or its status", async () => {
    const empty = async () => {
      throw new ProtocolError(-32603, '');
    };
    expect(await ended([{ status: 'failed', statusMessage: 'out of memory' }], 'legacy', { result: empty })).toMatchObject({ message: 'task t1 failed: out of memory' });
    expect(await ended([{ status: 'failed' }], 'legacy', { result: empty })).toMatchObject({ message: 'task t1 failed: no reason given', code: -32603 });
  });
});
