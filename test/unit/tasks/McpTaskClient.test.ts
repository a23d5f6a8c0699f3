import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { afterEach, describe, expect, it } from 'vitest';
import { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import { McpTaskWire } from '../../../src/core/tasks/McpTaskWire';
import { TASKS_EXTENSION } from '../../../src/core/tasks/taskTypes';

const Params = z.looseObject({ taskId: z.string() });
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((c) => c()));
});

/** A 2025-11-25 SDK server answering each task method with what `answers` gives; the task requests sent are kept. */
async function connect(answers: Record<string, (params: Record<string, unknown>) => Record<string, unknown>>) {
  const server = new Server({ name: 's', version: '1' }, { capabilities: { tasks: { cancel: {}, requests: { tools: { call: {} } } } } });
  const received: unknown[] = [];
  for (const [method, answer] of Object.entries(answers)) {
    server.setRequestHandler(method as 'tasks/get', { params: Params }, (params: Record<string, unknown>) => answer(params) as never);
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // What the client sent, as sent (the SDK's server hands a handler only the params it knows).
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    if ('method' in message && message.method.startsWith('tasks/')) received.push([message.method, message.params]);
    return send(message, options);
  };
  await server.connect(serverSide);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  closing.push(() => client.close());
  const answered: unknown[] = [];
  const tasks = new McpTaskClient(client, new McpTaskWire(), async (request) => (answered.push(request), { ok: true }));
  return { tasks, received, answered };
}

const opts = { timeoutMs: 5000 };

describe('McpTaskClient', () => {
  it('tells whether a server runs tool calls as tasks, in each revision', () => {
    expect(McpTaskClient.serverSupports({ extensions: { [TASKS_EXTENSION]: {} } }, true)).toBe(true);
    expect(McpTaskClient.serverSupports({ extensions: {} }, true)).toBe(false);
    expect(McpTaskClient.serverSupports({ tasks: { requests: { tools: { call: {} } } } }, true)).toBe(false);
    expect(McpTaskClient.serverSupports(undefined, true)).toBe(false);
    expect(McpTaskClient.serverSupports({ tasks: { requests: { tools: { call: {} } } } }, false)).toBe(true);
    expect(McpTaskClient.serverSupports({ tasks: { requests: {} } }, false)).toBe(false);
    expect(McpTaskClient.serverSupports({ tasks: {} }, false)).toBe(false);
    expect(McpTaskClient.serverSupports({ extensions: { [TASKS_EXTENSION]: {} } }, false)).toBe(false);
    expect(McpTaskClient.serverSupports(undefined, false)).toBe(false);
  });

  it('lets a call ask for a task only of a tool that allows or requires one', () => {
    const tool = (taskSupport?: string) => ({ name: 't', inputSchema: { type: 'object' as const }, ...(taskSupport ? { execution: { taskSupport } } : {}) });
    expect(McpTaskClient.allowsTask(tool('required') as never)).toBe(true);
    expect(McpTaskClient.allowsTask(tool('optional') as never)).toBe(true);
    expect(McpTaskClient.allowsTask(tool('forbidden') as never)).toBe(false);
    expect(McpTaskClient.allowsTask(tool() as never)).toBe(false);
    expect(McpTaskClient.allowsTask(undefined)).toBe(false);
  });

  it("reads a task's state, and refuses an answer that is not a task", async () => {
    const { tasks, received } = await connect({
      'tasks/get': (p) => (p.taskId === 't1' ? { taskId: 't1', status: 'working', statusMessage: 'busy' } : { nothing: true }),
    });
    expect(tasks.era).toBe('legacy');
    expect(await tasks.get('t1', opts)).toMatchObject({ taskId: 't1', status: 'working', statusMessage: 'busy' });
    await expect(tasks.get('t2', opts)).rejects.toMatchObject({ kind: 'protocol', message: expect.stringMatching(/^the server's answer to tasks\/get is not a task: /) });
    expect(received).toEqual([
      ['tasks/get', { taskId: 't1' }],
      ['tasks/get', { taskId: 't2' }],
    ]);
  });

  it('fetches a tool result, structured or not, and refuses anything else', async () => {
    const { tasks } = await connect({
      'tasks/result': (p) => (p.taskId === 'a' ? { content: [] } : p.taskId === 'b' ? { structuredContent: { n: 1 } } : { other: 1 }),
    });
    expect(await tasks.result('a', opts)).toEqual({ content: [] });
    expect(await tasks.result('b', opts)).toEqual({ structuredContent: { n: 1 } });
    await expect(tasks.result('c', opts)).rejects.toMatchObject({ kind: 'protocol', message: 'tasks/result for c is not a tool result' });
  });

  it('cancels a task, with the state the server reports when it reports one', async () => {
    const { tasks, received } = await connect({
      'tasks/cancel': (p) => (p.taskId === 't1' ? { taskId: 't1', status: 'cancelled' } : {}),
    });
    expect(await tasks.cancel('t1', opts)).toMatchObject({ taskId: 't1', status: 'cancelled' });
    expect(await tasks.cancel('t2', opts)).toBeUndefined();
    expect(received).toEqual([
      ['tasks/cancel', { taskId: 't1' }],
      ['tasks/cancel', { taskId: 't2' }],
    ]);
  });

  it("sends the answers a task waits on, and answers input with the client's own answerer", async () => {
    const { tasks, received, answered } = await connect({ 'tasks/update': () => ({}) });
    await tasks.update('t1', { a: { action: 'accept' } }, opts);
    expect(received).toEqual([['tasks/update', { taskId: 't1', inputResponses: { a: { action: 'accept' } } }]]);
    expect(await tasks.answer({ method: 'roots/list' }, new AbortController().signal)).toEqual({ ok: true });
    expect(answered).toEqual([{ method: 'roots/list' }]);
  });
});
