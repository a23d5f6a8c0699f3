import { describe, expect, it } from 'vitest';
import { formatTaskAge } from '../../../src/core/tasks/describeTask';
import { isTerminalStatus, TASK_STATUSES } from '../../../src/core/tasks/taskTypes';
import { createdTaskOf, parseTaskState } from '../../../src/core/tasks/taskWire';

const state = (raw: Record<string, unknown>) => {
  const parsed = parseTaskState({ taskId: 't1', status: 'working', ...raw });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('task wire edges', () => {
  it('tells which statuses are an end', () => {
    expect(TASK_STATUSES.filter(isTerminalStatus)).toEqual(['completed', 'failed', 'cancelled']);
  });

  it('refuses an empty or over-long task id and a status that is not text, and takes an id of 512 characters', () => {
    expect(parseTaskState({ taskId: '', status: 'working' }).ok).toBe(false);
    expect(parseTaskState({ taskId: 7, status: 'working' }).ok).toBe(false);
    expect(parseTaskState({ taskId: 'x'.repeat(512), status: 'working' }).ok).toBe(true);
    expect(parseTaskState({ taskId: 't', status: 3 })).toEqual({ ok: false, error: `the task's "status" 3 is not one of working, input_required, completed, failed, cancelled` });
    expect(parseTaskState([1]).ok).toBe(false);
  });

  it("prefers 2026-07-28's field names to 2025-11-25's, and keeps an unlimited time to live", () => {
    expect(state({ ttlMs: 10, ttl: 20, pollIntervalMs: 300, pollInterval: 400 })).toMatchObject({ ttlMs: 10, pollIntervalMs: 300 });
    expect(state({ ttl: null })).toMatchObject({ ttlMs: null });
    expect(state({ ttl: 0, pollInterval: Infinity })).toEqual({ taskId: 't1', status: 'working' });
  });

  it('drops fields of the wrong type', () => {
    expect(state({ createdAt: 1, lastUpdatedAt: true, statusMessage: 5, result: { text: 'x' }, error: { code: '1', message: 'm' }, inputRequests: { a: 'x' } })).toEqual({ taskId: 't1', status: 'working' });
    expect(state({ error: { code: 1, message: 2 } })).not.toHaveProperty('error');
    expect(state({ inputRequests: [] })).not.toHaveProperty('inputRequests');
  });

  it('keeps a structured result, and a request waited on without usable params', () => {
    expect(state({ result: { structuredContent: { n: 1 } } }).result).toEqual({ structuredContent: { n: 1 } });
    expect(state({ inputRequests: { a: { method: 'roots/list', params: 'x' } } }).inputRequests).toEqual({ a: { method: 'roots/list' } });
  });

  it('reads no created task from a result whose task is not an object', () => {
    expect(createdTaskOf({ task: 'later' })).toBeUndefined();
    expect(createdTaskOf(null)).toBeUndefined();
  });

  it('says the age at each unit boundary', () => {
    expect(formatTaskAge(1000, 60_999)).toBe('59 s');
    expect(formatTaskAge(1000, 61_000)).toBe('1 min');
    expect(formatTaskAge(0, 3_599_999)).toBe('59 min');
    expect(formatTaskAge(0, 3_600_000)).toBe('1 h');
    expect(formatTaskAge(0, 86_399_999)).toBe('23 h 59 min');
    expect(formatTaskAge(0, 86_400_000)).toBe('1 d');
    expect(formatTaskAge(0, 3 * 86_400_000)).toBe('3 d');
  });
});
