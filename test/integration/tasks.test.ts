import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, FileTaskStore, type FinishedTask, type HarnessTask, type McpHarness, type ToolCallEvent } from '../../src/core';
import { ServerAsks } from '../../src/core/requests/ServerAsks';
import { OpenAiCompatibleProvider } from '../../src/core/agent';
import { FakeModelServer, openAiChunk, sse } from '../support/fakeModelServer';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { ScriptedAsks } from '../support/scriptedAsks';
import { referenceServers, repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const tasksServer = repoPath('test/fixtures/servers/tasks.mjs');

/** The fixture's record of task events (one JSON line each). */
function recorded(file: string): Array<{ event: string; taskId: string; tool: string; key?: string; action?: string }> {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Tool calls that come back as tasks, on both revisions: a fixture of ours (2025-11-25 over stdio,
// the 2026-07-28 extension over HTTP) that records what it was asked, cancellations included.
describe('tasks: tool calls that come back as tasks', () => {
  const tag = processTag();
  const tmp = tempDir('mcp-harness-tasks-');
  const record = path.join(tmp.dir, 'record.jsonl');
  const person = new ScriptedAsks();
  const stops: Array<() => Promise<void>> = [];
  let url = '';
  let harness: McpHarness;

  beforeAll(async () => {
    const server = await startProcess(process.execPath, [tasksServer, '--http=0', `--record=${record}`, '--poll-ms=50'], { env: tag.env, ready: /listening \d+/ });
    stops.push(server.stop);
    url = `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}/mcp`;
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        modern: { type: 'http', url },
        legacy: { command: process.execPath, args: [tasksServer, `--record=${record}`, '--poll-ms=50'], env: tag.env },
      },
    });
    const asks = new ServerAsks({ prompter: () => person });
    harness = await createHarness({ workspaceFolder: path.join(tmp.dir, 'ws'), asks: { prompter: () => person }, handlers: asks.handlers() });
    for (const s of harness.servers()) expect(s.state, `${s.name}: ${s.error}`).toBe('running');
  });

  afterAll(async () => {
    await harness?.dispose();
    await Promise.all(stops.map((s) => s()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('speaks each revision', () => {
    expect(harness.snapshot('modern')?.protocolVersion).toBe('2026-07-28');
    expect(harness.snapshot('legacy')?.protocolVersion).toBe('2025-11-25');
  });

  for (const server of ['modern', 'legacy']) {
    describe(server, () => {
      it('follows a task to its result, showing it among the running tasks meanwhile', async () => {
        const events: ToolCallEvent[] = [];
        const seen: HarnessTask[][] = [];
        const listener = harness.onDidChangeTasks(() => seen.push(harness.tasks()));
        const result = await harness.callTool(`mcp__${server}__slow_compute`, { seconds: 0.6, label: server }, { onEvent: (e) => events.push(e) });
        listener.dispose();
        expect(result).toMatchObject({ isError: false, text: `computed ${server} in 0.6 s` });
        const task = events.find((e) => e.task)?.task;
        expect(task).toMatchObject({ server, kind: 'tool', tool: 'slow_compute', title: 'Slow compute' });
        expect(events.at(-1)).toMatchObject({ state: 'done', task: { taskId: task!.taskId } });
        // Its status messages reached the call's card, and the task was listed while it ran.
        expect(events.map((e) => e.task?.statusMessage)).toEqual(expect.arrayContaining(['step 1 of 1']));
        expect(seen.some((list) => list.some((t) => t.taskId === task!.taskId && t.status === 'working'))).toBe(true);
        expect(harness.tasks()).toEqual([]);
        expect(recorded(record).filter((r) => r.taskId === task!.taskId).map((r) => r.event)).toEqual(['created', 'completed']);
      });

      it('asks the person what the task waits for, and sends the answer', async () => {
        person.formAnswers.push((ask) => ({ action: 'accept', values: { confirm: ask.form.fields.length === 1 } }));
        expect(await harness.callTool(`mcp__${server}__confirm_delete`, { filename: 'a.txt' })).toMatchObject({ isError: false, text: 'deleted a.txt' });
        expect(person.forms.at(-1)).toMatchObject({ server, form: { message: 'Delete a.txt?' } });
        person.formAnswers.push(() => ({ action: 'decline' }));
        expect((await harness.callTool(`mcp__${server}__confirm_delete`, { filename: 'b.txt' })).text).toBe('kept b.txt (decline)');
      });

      it('answers several questions of one task, in any order', async () => {
        let release!: () => void;
        const first = new Promise<void>((r) => (release = r));
        person.formAnswers.push(
          async () => {
            await first;
            return { action: 'accept', values: { name: 'Ada' } };
          },
          () => {
            release();
            return { action: 'accept', values: { confirm: true } };
          },
        );
        const result = await harness.callTool(`mcp__${server}__multi_input`, {});
        expect(result.text).toBe('first: {"action":"accept","content":{"name":"Ada"}}, second: {"action":"accept","content":{"confirm":true}}');
      });

      it("reports a tool's error as its result, and a failed task as the call's failure", async () => {
        expect(await harness.callTool(`mcp__${server}__failing_job`, {})).toMatchObject({ isError: true, errorKind: 'tool_error', text: 'the job failed: disk full' });
        const failed = await harness.callTool(`mcp__${server}__protocol_error_job`, {});
        expect(failed).toMatchObject({ isError: true, errorKind: 'protocol' });
        expect(failed.text).toMatch(/task \S+ failed: the job could not run/);
      });

      it('cancels the task on the server when the call is stopped', async () => {
        const stop = new AbortController();
        let taskId = '';
        const call = harness.callTool(`mcp__${server}__slow_compute`, { seconds: 30 }, { signal: stop.signal, onEvent: (e) => (taskId ||= e.task?.taskId ?? '') });
        await until('the task to start', () => taskId);
        stop.abort();
        expect(await call).toMatchObject({ isError: true, errorKind: 'cancelled' });
        await until('the cancel to reach the server', () => recorded(record).some((r) => r.taskId === taskId && r.event === 'cancelled'));
        expect(harness.tasks().filter((t) => t.taskId === taskId)).toEqual([]);
      });

      it('cancels a task by its id ("Cancel Task")', async () => {
        let taskId = '';
        const call = harness.callTool(`mcp__${server}__slow_compute`, { seconds: 30 }, { onEvent: (e) => (taskId ||= e.task?.taskId ?? '') });
        await until('the task to start', () => taskId);
        expect(harness.cancelTask(server, taskId)).toBe(true);
        const result = await call;
        expect(result).toMatchObject({ isError: true, errorKind: 'cancelled' });
        expect(result.text).toContain(`task ${taskId} was cancelled on "${server}"`);
        await until('the cancel to reach the server', () => recorded(record).some((r) => r.taskId === taskId && r.event === 'cancelled'));
        expect(harness.cancelTask(server, taskId)).toBe(false);
      });
    });
  }

  it('a 2026-07-28 tool that gathers input first, then runs as a task', async () => {
    person.formAnswers.push(() => ({ action: 'accept', values: { name: 'Grace' } }));
    expect(await harness.callTool('mcp__modern__test_tool_with_task', {})).toMatchObject({ isError: false, text: 'hello Grace' });
  });

  it('keeps running tasks across a restart and delivers their end to whoever started them', async () => {
    const file = path.join(tmp.dir, 'tasks.json');
    const ws = path.join(tmp.dir, 'ws');
    const first = await createHarness({ workspaceFolder: ws, taskStore: new FileTaskStore(file, ws) });
    let taskId = '';
    const origin = { conversationId: 'conv-1', modelCallId: 'call-1' };
    const call = first.call({ name: 'mcp__modern__slow_compute', arguments: { seconds: 1.5, label: 'kept' } }, { ...origin, onEvent: (e) => (taskId ||= e.task?.taskId ?? '') });
    await until('the task to start', () => taskId);
    const stored = await until('the task to be stored', async () => (await new FileTaskStore(file, ws).load()).find((t) => t.taskId === taskId));
    expect(stored).toMatchObject({ server: 'modern', taskId, tool: 'slow_compute', origin });
    // The host closes while the call waits: the task is left running, not cancelled.
    await first.dispose();
    expect((await call).state).not.toBe('done');

    const second = await createHarness({ workspaceFolder: ws, taskStore: new FileTaskStore(file, ws) });
    try {
      const finished = new Promise<FinishedTask>((resolve) => second.onDidFinishTask(resolve));
      expect(await second.resumeTasks()).toMatchObject([{ server: 'modern', taskId, resumed: true, origin }]);
      expect(second.tasks()).toMatchObject([{ taskId }]);
      const end = await finished;
      expect(end.task).toMatchObject({ taskId, status: 'completed', origin });
      expect(end.result?.content).toEqual([{ type: 'text', text: 'computed kept in 1.5 s' }]);
      expect(recorded(record).filter((r) => r.taskId === taskId).map((r) => r.event)).toEqual(['created', 'completed']);
      await until('the store to forget it', async () => (await new FileTaskStore(file, ws).load()).length === 0 || undefined);
    } finally {
      await second.dispose();
    }
  });
});

// The reference server's task tools: a tool that runs as a task and asks for clarification
// (2025-11-25 input through tasks/result), and its -async tools, which send the host sampling and
// elicitation requests as tasks that the host runs and the server polls.
describe('tasks with server-everything', () => {
  const tag = processTag();
  const tmp = tempDir('mcp-harness-tasks-everything-');
  const person = new ScriptedAsks();
  const model = new FakeModelServer();
  let harness: McpHarness;

  beforeAll(async () => {
    const url = await model.start();
    writeJson(tmp.dir, '.vscode/mcp.json', { servers: { everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env } } });
    const asks = new ServerAsks({
      prompter: () => person,
      openUrl: async () => undefined,
      samplingPolicy: () => ({ rule: 'allow', maxTokens: 50 }),
      samplingModel: () => ({ provider: new OpenAiCompatibleProvider({ baseUrl: `${url}/v1`, model: 'gpt-test', apiKey: 'loopback', maxAttempts: 1 }), model: 'gpt-test' }),
    });
    harness = await createHarness({ workspaceFolder: tmp.dir, handlers: asks.handlers() });
    expect(harness.servers()[0]!.state).toBe('running');
  });

  afterAll(async () => {
    await harness?.dispose();
    await model.stop();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('is offered all 19 tools, the two -async ones included', () => {
    const names = harness.snapshot('everything')!.tools.map((t) => t.name);
    expect(names).toHaveLength(19);
    expect(names).toEqual(expect.arrayContaining(['simulate-research-query', 'trigger-sampling-request-async', 'trigger-elicitation-request-async']));
  });

  it('follows simulate-research-query (a task) through its question to its report', async () => {
    const statuses: string[] = [];
    person.formAnswers.push((ask) => {
      statuses.push(...harness.tasks().map((t) => t.status));
      const field = ask.form.fields[0]!;
      return { action: 'accept', values: { [field.name]: 'programming' } };
    });
    const result = await harness.callTool('mcp__everything__simulate-research-query', { topic: 'python', ambiguous: true });
    expect(result.isError).toBe(false);
    expect(result.text).toContain('# Research Report: python (programming)');
    expect(statuses).toContain('input_required');
    expect(person.forms.at(-1)!.form.message).toContain('could have multiple interpretations');
  });

  it("runs the server's task-augmented elicitation as a task of its own, listed while it waits", async () => {
    let listed: unknown[] = [];
    person.formAnswers.push(() => {
      listed = harness.tasks();
      return { action: 'accept', values: { name: 'Ada' } };
    });
    const result = await harness.callTool('mcp__everything__trigger-elicitation-request-async', {});
    expect(result.text).toContain('[COMPLETED]');
    expect(result.text).toContain('Name: Ada');
    expect(listed).toMatchObject([{ server: 'everything', kind: 'elicitation', status: 'working' }]);
    expect(harness.tasks()).toEqual([]);
  });

  it("runs the server's task-augmented sampling on the model, and the server fetches the answer", async () => {
    model.enqueue(sse([[null, openAiChunk({ content: 'a sampled reply' })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]));
    const result = await harness.callTool('mcp__everything__trigger-sampling-request-async', { prompt: 'say something' });
    expect(result.text).toContain('[COMPLETED] Async sampling completed!');
    expect(result.text).toContain('a sampled reply');
  });
});
