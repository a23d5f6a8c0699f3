import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createHarness, FileTaskStore, type FinishedTask, type McpHarness } from '../../src/core';
import { McpAgent, OpenAiCompatibleProvider, type AgentEvent } from '../../src/core/agent';
import { ChatHistoryStore, ChatSession, type ChatSessionOptions } from '../../src/core/chat';
import { PermissionGate } from '../../src/core/permissions';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { agentRig } from '../support/agentRig';
import { openAiChunk, sse, type FakeHandler } from '../support/fakeModelServer';
import { ScriptedPrompter } from '../support/permissions';
import { repoPath, startProcess, writeJson } from '../support/servers';
import { MemoryMemento } from '../support/memento';

// The agent loop (a loopback model speaking the OpenAI wire format) calling a tool of our task
// fixture that runs as a task: the result reaches the model, Stop cancels the task on the server,
// and a chat whose window closed while the task ran gets the result after the "reload".

const rig = agentRig('agent-tasks-');
const { tag, tmp, model, harnesses } = rig;
const record = path.join(tmp.dir, 'record.jsonl');
const ws = path.join(tmp.dir, 'ws');
let stopServer: () => Promise<void>;

const events = (taskId: string): string[] =>
  fs.existsSync(record) ? fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.taskId === taskId).map((e) => e.event) : [];

function callsStep(id: string, name: string, args: unknown): FakeHandler {
  return sse([[null, openAiChunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })], [null, openAiChunk({}, 'tool_calls')], [null, '[DONE]']]);
}
const sayStep = (text: string): FakeHandler => sse([[null, openAiChunk({ content: text })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]);
const provider = () => new OpenAiCompatibleProvider({ baseUrl: rig.modelUrl, model: 'gpt-test', apiKey: 'loopback', maxAttempts: 1 });
const gate = () => new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) });

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function harness(store?: string): Promise<McpHarness> {
  const h = await createHarness({ workspaceFolder: ws, ...(store ? { taskStore: new FileTaskStore(store, ws) } : {}) });
  harnesses.push(h);
  expect(h.servers()[0]).toMatchObject({ state: 'running', protocolVersion: '2026-07-28' });
  return h;
}

beforeAll(async () => {
  const server = await startProcess(process.execPath, [repoPath('test/fixtures/servers/tasks.mjs'), '--http=0', `--record=${record}`, '--poll-ms=50'], { env: tag.env, ready: /listening \d+/ });
  stopServer = server.stop;
  writeJson(ws, '.mcp.json', { mcpServers: { jobs: { type: 'http', url: `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}/mcp` } } });
});
afterAll(async () => stopServer?.());

describe('tasks in the agent loop', () => {
  it("gives the model a task's result, and its card shows the task", async () => {
    const h = await harness();
    model.enqueue(callsStep('c1', 'mcp__jobs__slow_compute', { seconds: 0.5, label: 'agent' }), sayStep('the job is done'));
    const agent = new McpAgent({ tools: () => h.tools(), call: (r, o) => h.call(r, o), provider: provider(), gate: gate(), conversationId: 'conv-a' });
    const seen: AgentEvent[] = [];
    const first = model.requests.length;
    const result = await agent.runTurn([], 'run the job', { signal: new AbortController().signal, onEvent: (e) => seen.push(e) });
    expect(result.reason).toBe('done');
    const sent = model.requests.slice(first).map((r) => r.body as { messages: Array<{ role: string; content: string }> });
    expect(sent[1]!.messages.find((m) => m.role === 'tool')!.content).toBe('<tool_output tool="mcp__jobs__slow_compute">\ncomputed agent in 0.5 s\n</tool_output>');
    const cards = seen.filter((e): e is Extract<AgentEvent, { type: 'tool_call' }> => e.type === 'tool_call');
    expect(cards.at(-1)).toMatchObject({ state: 'done', output: 'computed agent in 0.5 s', task: { server: 'jobs', status: 'completed', origin: { conversationId: 'conv-a', modelCallId: 'c1' } } });
  });

  it('Stop cancels the task on the server', async () => {
    const h = await harness();
    model.enqueue(callsStep('c2', 'mcp__jobs__slow_compute', { seconds: 30 }));
    const stop = new AbortController();
    const agent = new McpAgent({ tools: () => h.tools(), call: (r, o) => h.call(r, o), provider: provider(), gate: gate() });
    let taskId = '';
    const turn = agent.runTurn([], 'run a long job', { signal: stop.signal, onEvent: (e) => e.type === 'tool_call' && (taskId ||= e.task?.taskId ?? '') });
    await until('the task to start', () => taskId);
    stop.abort();
    expect((await turn).reason).toBe('stopped');
    await until('the server to record the cancel', () => events(taskId).includes('cancelled'));
    expect(events(taskId)).toEqual(['created', 'cancelled']);
  });

  it("the card's Cancel Task cancels the task on the server, and the model reads that it was cancelled", async () => {
    const h = await harness();
    const { session, items } = chat(h, new MemoryMemento(), { cancelTask: (server, taskId) => h.cancelTask(server, taskId) });
    await session.refreshModels();
    model.enqueue(callsStep('c4', 'mcp__jobs__slow_compute', { seconds: 30 }), sayStep('the job was cancelled'));
    const sending = session.send('run a long job');
    const running = await until('the card to show a running task', () => items().find((i): i is Extract<ChatItem, { kind: 'tool' }> => i.kind === 'tool' && i.task?.status === 'working'));
    const taskId = running.task!.taskId;
    await session.requests.cancelTask({ itemId: running.id });
    await sending;
    expect(events(taskId)).toEqual(['created', 'cancelled']);
    expect(items().find((i) => i.kind === 'tool')).toMatchObject({ task: { taskId, status: 'cancelled' } });
    expect(items().at(-1)).toMatchObject({ kind: 'assistant', text: 'the job was cancelled' });
    await expect(session.requests.cancelTask({ itemId: running.id })).rejects.toThrow('This call does not run as a task now.');
    session.dispose();
  });

  it('a chat whose window closed while a task ran gets its result after the reload, and the model goes on', async () => {
    const store = path.join(tmp.dir, 'tasks.json');
    const memento = new MemoryMemento();
    const before = await harness(store);
    const first = chat(before, memento);
    await first.session.refreshModels();
    model.enqueue(callsStep('c3', 'mcp__jobs__slow_compute', { seconds: 2, label: 'reloaded' }), sayStep('thanks, the job reported back'));
    const sending = first.session.send('start the job');
    const running = await until('the card to show a running task', () => first.items().find((i): i is Extract<ChatItem, { kind: 'tool' }> => i.kind === 'tool' && i.task?.status === 'working'));
    const taskId = running.task!.taskId;
    // The window closes: tasks are left running, the turn stops, the chat is saved, the harness goes.
    before.suspendTasks();
    first.session.stop();
    await first.session.flush();
    await sending;
    first.session.dispose();
    await before.dispose();
    expect(events(taskId)).toEqual(['created']);

    // The window comes back: the card still runs its task, and the result reaches it and the model.
    const after = await harness(store);
    const second = chat(after, memento);
    await second.session.refreshModels();
    expect(second.items().find((i) => i.kind === 'tool')).toMatchObject({ state: 'running', task: { taskId } });
    const delivered = new Promise<FinishedTask>((resolve) => after.onDidFinishTask((f) => void second.session.deliverTaskResult(f).then(() => resolve(f))));
    const requestsBefore = model.requests.length;
    expect(await after.resumeTasks()).toMatchObject([{ taskId, resumed: true }]);
    expect((await delivered).result?.content).toEqual([{ type: 'text', text: 'computed reloaded in 2 s' }]);
    await until('the model to answer', () => second.items().some((i) => i.kind === 'assistant' && i.text === 'thanks, the job reported back'));
    expect(second.items().find((i) => i.kind === 'tool')).toMatchObject({ state: 'done', output: 'computed reloaded in 2 s', task: { taskId, status: 'completed' } });
    const continued = model.requests[requestsBefore]!.body as { messages: Array<{ role: string; content: string; tool_call_id?: string }> };
    expect(continued.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c3', content: '<tool_output tool="mcp__jobs__slow_compute">\ncomputed reloaded in 2 s\n</tool_output>' });
    expect(continued.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(events(taskId)).toEqual(['created', 'completed']);
    second.session.dispose();
  });
});

function chat(h: McpHarness, memento: MemoryMemento, extra: Partial<ChatSessionOptions> = {}) {
  const entry = { choice: { id: 'openai:gpt-test', label: 'GPT test' }, provider: provider(), model: 'gpt-test' };
  const session: ChatSession = new ChatSession({
    enabledTools: () => [...h.tools()],
    servers: () => h.servers(),
    call: (r, o) => h.call(r, o),
    gate: gate(),
    history: new ChatHistoryStore(memento),
    models: async () => ({ entries: [entry], selected: entry }),
    selectModel: async () => undefined,
    settings: () => ({ maxSteps: 5, toolSearch: {} }),
    post: () => undefined,
    runAction: async () => undefined,
    copy: async () => undefined,
    log: () => undefined,
    ...extra,
  });
  return { session, items: (): ChatItem[] => [...session.state().items] };
}
