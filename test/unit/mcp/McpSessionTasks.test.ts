import type { CallToolResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpCallOptions } from '../../../src/core/mcp/McpSession';
import { McpClientTasks } from '../../../src/core/tasks/McpClientTasks';
import type { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import type { IMcpTaskHost, McpTaskCall } from '../../../src/core/tasks/taskHost';
import { TestTransportFactory } from '../../support/memoryTransports';
import { paramsOf, scriptedPeer, sessionOpener, type PeerAnswer } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

const call: McpCallOptions = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };
const TASKS = { tools: {}, tasks: { requests: { tools: { call: {} } } } };
const object = { type: 'object' };

/** A 2025-11-25 server whose tool calls all become task `t1`, already completed with `result`. */
function taskServer(tools: object[], result: CallToolResult, capabilities: Record<string, unknown> = TASKS) {
  return scriptedPeer(capabilities, (method): PeerAnswer | undefined => {
    if (method === 'tools/list') return { result: { tools } };
    if (method === 'tools/call') return { result: { task: { taskId: 't1', status: 'completed', createdAt: '2026-01-01T00:00:00Z' } } };
    if (method === 'tasks/result') return { result };
  });
}

/** A host that follows tasks by answering at once with `result`, and keeps each call it was handed. */
class RecordingTaskHost implements IMcpTaskHost {
  readonly calls: McpTaskCall[] = [];
  constructor(private readonly _result: CallToolResult) {}
  async follow(taskCall: McpTaskCall): Promise<CallToolResult> {
    this.calls.push(taskCall);
    return this._result;
  }
  clientTasks(server: string): McpClientTasks {
    return new McpClientTasks(server);
  }
}

describe('McpSession calls that become tasks', () => {
  it('follows a task to its result itself when no host follows tasks', async () => {
    const peer = taskServer([{ name: 'slow', inputSchema: object }], { content: [{ type: 'text', text: 'finished later' }] });
    const session = await open(new TestTransportFactory({ make: () => peer.transport })).opened;
    expect(await session.callTool('slow', {}, call)).toEqual({ content: [{ type: 'text', text: 'finished later' }] });
    expect(paramsOf(peer.received, 'tasks/result')).toMatchObject([{ taskId: 't1' }]);
  });

  it('hands a task to the host with the server, the tool, its title and the caller context', async () => {
    const tools = [
      { name: 'plain', inputSchema: object },
      { name: 'titled', title: 'Titled tool', inputSchema: object },
      { name: 'annotated', annotations: { title: 'Annotated tool' }, inputSchema: object },
    ];
    const peer = taskServer(tools, { content: [] });
    const host = new RecordingTaskHost({ content: [{ type: 'text', text: 'from the host' }] });
    const session = await open(new TestTransportFactory({ make: () => peer.transport }), { tasks: host }).opened;
    const context = { onTask: () => undefined };
    const progress = () => undefined;
    expect(await session.callTool('titled', {}, { ...call, timeoutMs: 4321, onProgress: progress, task: context })).toEqual({ content: [{ type: 'text', text: 'from the host' }] });
    for (const name of ['annotated', 'plain', 'gone']) await session.callTool(name, {}, call);

    expect(host.calls.map((c) => [c.tool, c.title])).toEqual([
      ['titled', 'Titled tool'],
      ['annotated', 'Annotated tool'],
      ['plain', 'plain'],
      ['gone', 'gone'],
    ]);
    const [first] = host.calls;
    expect(first).toMatchObject({ server: 'mem', timeoutMs: 4321, created: { task: { taskId: 't1', status: 'completed' } } });
    expect(first.context).toBe(context);
    expect(first.onProgress).toBe(progress);
    expect(await first.client(new AbortController().signal)).toBe(session.tasks);
  });

  it('gives the host the task operations it was opened with, for a follow that outlives the session', async () => {
    const peer = taskServer([{ name: 'slow', inputSchema: object }], { content: [] });
    const host = new RecordingTaskHost({ content: [] });
    const lasting = { era: 'legacy' } as unknown as McpTaskClient;
    const taskClient = async () => lasting;
    const session = await open(new TestTransportFactory({ make: () => peer.transport }), { tasks: host, taskClient }).opened;
    await session.callTool('slow', {}, call);
    expect(host.calls[0].client).toBe(taskClient);
  });

  it('checks a followed result against the output schema, unless the caller detached from the task', async () => {
    const typed = { name: 'typed', inputSchema: object, outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } };
    const peer = taskServer([typed], { content: [] });
    const host = new RecordingTaskHost({ content: [{ type: 'text', text: 'no structure' }] });
    const session = await open(new TestTransportFactory({ make: () => peer.transport }), { tasks: host }).opened;
    await expect(session.callTool('typed', {}, call)).rejects.toMatchObject({
      kind: 'protocol',
      message: 'tool "typed" declares an output schema but returned no structured content',
    });
    await expect(session.callTool('typed', {}, { ...call, task: { detach: true } })).resolves.toEqual({ content: [{ type: 'text', text: 'no structure' }] });
    await expect(session.callTool('typed', {}, { ...call, task: { detach: false } })).rejects.toMatchObject({ kind: 'protocol' });
  });
});

describe('McpSession asking a 2025-11-25 server for tasks', () => {
  const tools = [
    { name: 'quick', inputSchema: object },
    { name: 'long', inputSchema: object, execution: { taskSupport: 'optional' } },
    { name: 'must', inputSchema: object, execution: { taskSupport: 'required' } },
  ];
  const answered = (method: string): PeerAnswer | undefined => {
    if (method === 'tools/list') return { result: { tools } };
    if (method === 'tools/call') return { result: { content: [] } };
  };

  it('asks for a task only for the tools that allow one, on a server that offers tasks for tool calls', async () => {
    const peer = scriptedPeer(TASKS, answered);
    const session = await open(new TestTransportFactory({ make: () => peer.transport })).opened;
    for (const name of ['quick', 'long', 'must']) await session.callTool(name, { n: 1 }, call);
    const sent = paramsOf(peer.received, 'tools/call');
    expect(sent).toMatchObject([{ name: 'quick', arguments: { n: 1 } }, { name: 'long', arguments: { n: 1 }, task: {} }, { name: 'must', task: {} }]);
    expect(sent[0]).not.toHaveProperty('task');
  });

  it('never asks a server that does not offer tasks for tool calls', async () => {
    const peer = scriptedPeer({ tools: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } }, answered);
    const session = await open(new TestTransportFactory({ make: () => peer.transport })).opened;
    await session.callTool('long', {}, call);
    expect(paramsOf(peer.received, 'tools/call')[0]).not.toHaveProperty('task');
  });

  it('answers what a task waits on with the handlers it was given, as this server', async () => {
    const peer = scriptedPeer(TASKS, answered);
    const asked: string[] = [];
    const session = await open(new TestTransportFactory({ make: () => peer.transport }), {
      handlers: {
        elicit: async (server, params) => {
          asked.push(`${server}: ${params.mode} ${params.message}`);
          return { action: 'accept', content: { go: true } };
        },
      },
    }).opened;
    const answer = await session.tasks.answer({ method: 'elicitation/create', params: { message: 'Go on?', requestedSchema: object } }, new AbortController().signal);
    expect(answer).toEqual({ action: 'accept', content: { go: true } });
    expect(asked).toEqual(['mem: form Go on?']);
  });
});
