import { describe, expect, it } from 'vitest';
import { createdTaskOf, parseTaskState, taskTime } from '../../../src/core/tasks/taskWire';
import { describeTask, formatTaskAge } from '../../../src/core/tasks/describeTask';
import { nextPollMs, DEFAULT_POLL_MS, MAX_POLL_MS, MIN_POLL_MS } from '../../../src/core/tasks/McpTaskFollow';
import type { HarnessTask } from '../../../src/core/tasks/taskTypes';

const base = { taskId: 't1', status: 'working', createdAt: '2026-12-01T10:00:00.000Z', lastUpdatedAt: '2026-12-01T10:00:01.000Z' };

describe('task wire shapes', () => {
  it('reads the task a 2025-11-25 call created (wrapped) and a 2026-07-28 one (flat, resultType task)', () => {
    expect(createdTaskOf({ task: { ...base, ttl: 60_000, pollInterval: 250 } })).toEqual({ ok: true, value: { ...base, ttlMs: 60_000, pollIntervalMs: 250 } });
    expect(createdTaskOf({ resultType: 'task', ...base, ttlMs: null, pollIntervalMs: 1000, statusMessage: 'queued' })).toEqual({
      ok: true,
      value: { ...base, ttlMs: null, pollIntervalMs: 1000, statusMessage: 'queued' },
    });
  });

  it('leaves ordinary results alone, including one that carries a field named task beside its content', () => {
    expect(createdTaskOf({ content: [{ type: 'text', text: 'hi' }] })).toBeUndefined();
    expect(createdTaskOf({ content: [], task: { taskId: 'x' } })).toBeUndefined();
    expect(createdTaskOf('text')).toBeUndefined();
    expect(createdTaskOf({ resultType: 'complete', ...base })).toBeUndefined();
  });

  it('refuses a malformed task, naming the field', () => {
    expect(createdTaskOf({ resultType: 'task', status: 'working' })).toEqual({ ok: false, error: `the task's "taskId" is not a string of 1 to 512 characters` });
    expect(parseTaskState({ taskId: 'a', status: 'sleeping' })).toEqual({ ok: false, error: `the task's "status" "sleeping" is not one of working, input_required, completed, failed, cancelled` });
    expect(parseTaskState({ taskId: 'x'.repeat(513), status: 'working' }).ok).toBe(false);
    expect(parseTaskState(null)).toEqual({ ok: false, error: 'the task is not an object' });
  });

  it('keeps what a 2026-07-28 tasks/get inlines: the result, the error, what it waits on', () => {
    const result = { content: [{ type: 'text', text: 'done' }] };
    expect(parseTaskState({ ...base, status: 'completed', result })).toMatchObject({ value: { result } });
    expect(parseTaskState({ ...base, status: 'failed', error: { code: -32603, message: 'boom', data: 1 } })).toMatchObject({ value: { error: { code: -32603, message: 'boom' } } });
    const waits = parseTaskState({
      ...base,
      status: 'input_required',
      inputRequests: { a: { method: 'elicitation/create', params: { message: 'Go?' } }, b: 'not a request', c: { params: {} } },
    });
    expect(waits).toMatchObject({ value: { inputRequests: { a: { method: 'elicitation/create', params: { message: 'Go?' } } } } });
    expect(Object.keys((waits as { value: { inputRequests: object } }).value.inputRequests)).toEqual(['a']);
  });

  it('drops intervals and lifetimes that are not positive numbers, and cuts a long status message', () => {
    const state = parseTaskState({ ...base, ttl: -1, pollInterval: 'soon', statusMessage: 'x'.repeat(5000) });
    expect(state.ok && state.value).toMatchObject({ taskId: 't1' });
    expect(state.ok && 'ttlMs' in state.value).toBe(false);
    expect(state.ok && 'pollIntervalMs' in state.value).toBe(false);
    expect(state.ok && state.value.statusMessage).toHaveLength(2000);
  });

  it('reads times as the server sent them, else falls back', () => {
    expect(taskTime('2026-12-01T10:00:00.000Z', 5)).toBe(Date.UTC(2026, 11, 1, 10));
    expect(taskTime('yesterday', 5)).toBe(5);
    expect(taskTime(undefined, 7)).toBe(7);
  });
});

describe('polling', () => {
  it("waits the server's interval, never less than the floor, and the default when it names none", () => {
    expect(nextPollMs(2000, undefined, true)).toBe(2000);
    expect(nextPollMs(1, undefined, true)).toBe(MIN_POLL_MS);
    expect(nextPollMs(undefined, undefined, true)).toBe(DEFAULT_POLL_MS);
  });

  it('backs off by half while nothing changes, up to the cap, and starts over on a change', () => {
    const waits: number[] = [];
    let wait: number | undefined;
    for (let i = 0; i < 12; i++) waits.push((wait = nextPollMs(1000, wait, false)));
    expect(waits.slice(0, 4)).toEqual([1000, 1500, 2250, 3375]);
    expect(Math.max(...waits)).toBe(MAX_POLL_MS);
    expect(nextPollMs(1000, MAX_POLL_MS, true)).toBe(1000);
  });

  it("never polls faster than a slow server asks, even past the cap", () => {
    expect(nextPollMs(60_000, undefined, false)).toBe(60_000);
    expect(nextPollMs(60_000, 60_000, false)).toBe(60_000);
  });
});

describe('describing a task', () => {
  const task: HarnessTask = { server: 's', taskId: 't', kind: 'tool', title: 'Build', status: 'working', createdAt: 0, lastUpdatedAt: 0 };

  it('says its age shortly', () => {
    expect(formatTaskAge(0, 12_400)).toBe('12 s');
    expect(formatTaskAge(0, 3 * 60_000 + 5000)).toBe('3 min');
    expect(formatTaskAge(0, 2 * 3_600_000)).toBe('2 h');
    expect(formatTaskAge(0, 2 * 3_600_000 + 5 * 60_000)).toBe('2 h 5 min');
    expect(formatTaskAge(0, 28 * 3_600_000)).toBe('1 d 4 h');
    expect(formatTaskAge(10, 0)).toBe('0 s');
  });

  it('shows status, progress and age in one line, the server\'s message last (a narrow row cuts it first)', () => {
    expect(describeTask({ ...task, statusMessage: 'step 2 of 5', progress: { progress: 2, total: 5 } }, 65_000)).toBe('working · 40% · 1 min · step 2 of 5');
    expect(describeTask({ ...task, status: 'input_required' }, 1000)).toBe('waiting for input · 1 s');
    expect(describeTask({ ...task, progress: { progress: 3, message: 'copying' } }, 0)).toBe('working · 3 · 0 s · copying');
    expect(describeTask({ ...task, statusMessage: 'working' }, 0)).toBe('working · 0 s');
    // Without a time, no age (a terminal prints each new state once).
    expect(describeTask({ ...task, statusMessage: 'step 2 of 5' })).toBe('working · step 2 of 5');
  });
});
