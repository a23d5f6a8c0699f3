import { ProtocolError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createdTaskFrom, McpTaskWire, TASK_CREATED_CODE, type McpTaskProgress } from '../../../src/core/tasks/McpTaskWire';
import type { McpTaskState } from '../../../src/core/tasks/taskTypes';

const call = (id: number, token?: string): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'job', ...(token ? { _meta: { progressToken: token } } : {}) } });
const taskAnswer = (id: number, task: unknown = { taskId: `t${id}`, status: 'working' }): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { task } });
const progress = (params: Record<string, unknown>): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: params as never });

/** The created task an incoming answer was turned into, as the caller gets it. */
function created(wire: McpTaskWire, message: JSONRPCMessage) {
  const out = wire.received(message) as { error?: { code: number; message: string; data?: unknown } };
  return createdTaskFrom(new ProtocolError(out.error!.code, out.error!.message, out.error!.data));
}

describe('the wire view of tasks below the SDK', () => {
  it("hands a tools/call answer that created a task to the caller as an error carrying the task and the call's token", () => {
    const wire = new McpTaskWire();
    wire.sent(call(1, 'p1'));
    wire.sent(call(2));
    const out = wire.received(taskAnswer(1)) as { error: { code: number; message: string } };
    expect(out.error).toMatchObject({ code: TASK_CREATED_CODE, message: 'the call became task t1' });
    wire.sent(call(1, 'p1'));
    expect(created(wire, taskAnswer(1))).toEqual({ task: { taskId: 't1', status: 'working' }, progressToken: 'p1' });
    expect(created(wire, taskAnswer(2))).toEqual({ task: { taskId: 't2', status: 'working' } });
  });

  it('leaves every other answer to the SDK untouched', () => {
    const wire = new McpTaskWire();
    const lone = taskAnswer(9);
    expect(wire.received(lone)).toBe(lone);
    wire.sent({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    wire.sent({ jsonrpc: '2.0', method: 'tools/call' } as JSONRPCMessage);
    wire.sent({ jsonrpc: '2.0', id: 4, result: {} });
    wire.sent(call(5));
    for (const m of [taskAnswer(3), taskAnswer(4), taskAnswer(6)]) expect(wire.received(m)).toBe(m);
    const failed: JSONRPCMessage = { jsonrpc: '2.0', id: 5, error: { code: -1, message: 'no' } };
    expect(wire.received(failed)).toBe(failed);
    wire.sent(call(7));
    const plain: JSONRPCMessage = { jsonrpc: '2.0', id: 7, result: { content: [], task: { taskId: 'x', status: 'working' } } };
    expect(wire.received(plain)).toBe(plain);
    const request: JSONRPCMessage = { jsonrpc: '2.0', id: 8, method: 'ping' };
    expect(wire.received(request)).toBe(request);
  });

  it('refuses a created task that cannot be followed', () => {
    const wire = new McpTaskWire();
    wire.sent(call(1));
    expect(wire.received(taskAnswer(1, { taskId: 't1', status: 'sleeping' }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: expect.stringMatching(/^the server created a task that cannot be followed: the task's "status" "sleeping"/) },
    });
  });

  it('forgets the oldest call once 1000 are in flight, and every call when disposed', () => {
    const wire = new McpTaskWire();
    for (let id = 0; id <= 1000; id++) wire.sent(call(id));
    const oldest = taskAnswer(0);
    expect(wire.received(oldest)).toBe(oldest);
    expect(wire.received(taskAnswer(1))).toHaveProperty('error');
    expect(wire.received(taskAnswer(1000))).toHaveProperty('error');
    wire.dispose();
    const after = taskAnswer(500);
    expect(wire.received(after)).toBe(after);
  });

  it("keeps a task's progress until its follower listens, then gives it live, and no longer once it stops listening", () => {
    const wire = new McpTaskWire();
    wire.sent(call(1, 'p1'));
    wire.received(taskAnswer(1));
    expect(wire.received(progress({ progressToken: 'p1', progress: 1, total: 'x', message: 7 }))).toBeUndefined();
    expect(wire.received(progress({ progressToken: 'p1', progress: 2, total: 5, message: 'two' }))).toBeUndefined();
    const heard: McpTaskProgress[] = [];
    const listening = wire.onProgress('p1', (p) => heard.push(p));
    expect(heard).toEqual([{ progress: 2, total: 5, message: 'two' }]);
    wire.received(progress({ progressToken: 'p1', progress: 3 }));
    expect(heard.at(-1)).toEqual({ progress: 3 });
    const odd = progress({ progressToken: 'p1', progress: 'lots' });
    expect(wire.received(odd)).toBe(odd);
    const other = progress({ progressToken: 'p2', progress: 1 });
    expect(wire.received(other)).toBe(other);
    const noToken = progress({ progress: 1 });
    expect(wire.received(noToken)).toBe(noToken);
    listening.dispose();
    const late = progress({ progressToken: 'p1', progress: 4 });
    expect(wire.received(late)).toBe(late);
    expect(heard).toHaveLength(2);
  });

  it('keeps a newer listener of a token when an older one is disposed again', () => {
    const wire = new McpTaskWire();
    const older = wire.onProgress('p', () => undefined);
    older.dispose();
    const heard: number[] = [];
    wire.onProgress('p', (p) => heard.push(p.progress));
    older.dispose();
    expect(wire.received(progress({ progressToken: 'p', progress: 9 }))).toBeUndefined();
    expect(heard).toEqual([9]);
  });

  it('announces task status notifications instead of passing them on, and ignores malformed ones', () => {
    const wire = new McpTaskWire();
    const states: McpTaskState[] = [];
    wire.onStatus((s) => states.push(s));
    expect(wire.received({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 't1', status: 'completed' } })).toBeUndefined();
    expect(wire.received({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { status: 'completed' } })).toBeUndefined();
    expect(states).toEqual([{ taskId: 't1', status: 'completed' }]);
    const other: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
    expect(wire.received(other)).toBe(other);
  });

  it('finds a created task only in the error the wire made for it', () => {
    expect(createdTaskFrom(new Error('x'))).toBeUndefined();
    expect(createdTaskFrom(new ProtocolError(-32603, 'x', { 'mcp-harness/createdTask': { task: {} } }))).toBeUndefined();
    expect(createdTaskFrom(new ProtocolError(TASK_CREATED_CODE, 'x'))).toBeUndefined();
  });
});
