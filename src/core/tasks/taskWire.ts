import type { CallToolResult } from '@modelcontextprotocol/client';
import { fail, ok, type Result } from '../base/result';
import { TASK_STATUSES, type McpTaskInputRequest, type McpTaskState, type McpTaskStatus } from './taskTypes';

/** Longest status message kept (a server's text, shown in a tree row and a tooltip). */
const MAX_STATUS_MESSAGE = 2000;
/** Longest task id accepted: ids travel in headers and file names. */
const MAX_TASK_ID = 512;

/**
 * The task a `tools/call` answer created, if it is one: 2025-11-25 wraps it (`{ task: {...} }`),
 * 2026-07-28 sends it flat with `resultType: "task"`. A malformed one is an error naming the field.
 */
export function createdTaskOf(result: unknown): Result<McpTaskState> | undefined {
  if (!isObject(result)) return undefined;
  if (result.resultType === 'task') return parseTaskState(result);
  if (isObject(result.task) && !('content' in result)) return parseTaskState(result.task);
  return undefined;
}

/** A task as either revision sends it (`tasks/get`, a created task, a status notification). */
export function parseTaskState(raw: unknown): Result<McpTaskState> {
  if (!isObject(raw)) return fail('the task is not an object');
  const { taskId, status } = raw;
  if (typeof taskId !== 'string' || taskId === '' || taskId.length > MAX_TASK_ID) return fail(`the task's "taskId" is not a string of 1 to ${MAX_TASK_ID} characters`);
  if (typeof status !== 'string' || !(TASK_STATUSES as readonly string[]).includes(status)) return fail(`the task's "status" ${JSON.stringify(status)} is not one of ${TASK_STATUSES.join(', ')}`);
  const ttl = raw.ttlMs !== undefined ? raw.ttlMs : raw.ttl;
  const pollInterval = raw.pollIntervalMs !== undefined ? raw.pollIntervalMs : raw.pollInterval;
  const inputRequests = parseInputRequests(raw.inputRequests);
  const state: McpTaskState = {
    taskId,
    status: status as McpTaskStatus,
    ...(typeof raw.statusMessage === 'string' ? { statusMessage: raw.statusMessage.slice(0, MAX_STATUS_MESSAGE) } : {}),
    ...(typeof raw.createdAt === 'string' ? { createdAt: raw.createdAt } : {}),
    ...(typeof raw.lastUpdatedAt === 'string' ? { lastUpdatedAt: raw.lastUpdatedAt } : {}),
    ...(ttl === null ? { ttlMs: null } : isPositive(ttl) ? { ttlMs: ttl } : {}),
    ...(isPositive(pollInterval) ? { pollIntervalMs: pollInterval } : {}),
    ...(isCallToolResult(raw.result) ? { result: raw.result } : {}),
    ...(isObject(raw.error) && typeof raw.error.code === 'number' && typeof raw.error.message === 'string' ? { error: { code: raw.error.code, message: raw.error.message } } : {}),
    ...(inputRequests ? { inputRequests } : {}),
  };
  return ok(state);
}

/** Epoch milliseconds of an ISO 8601 time a server sent, or `fallback` when it is not one. */
export function taskTime(iso: string | undefined, fallback: number): number {
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : fallback;
}

function parseInputRequests(raw: unknown): Record<string, McpTaskInputRequest> | undefined {
  if (!isObject(raw)) return undefined;
  const entries = Object.entries(raw).filter((e): e is [string, { method: string; params?: Record<string, unknown> }] => isObject(e[1]) && typeof e[1].method === 'string');
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([key, r]) => [key, { method: r.method, ...(isObject(r.params) ? { params: r.params } : {}) }]));
}

function isCallToolResult(value: unknown): value is CallToolResult {
  return isObject(value) && (Array.isArray(value.content) || isObject(value.structuredContent));
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
