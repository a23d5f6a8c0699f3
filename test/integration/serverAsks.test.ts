import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { OpenAiCompatibleProvider } from '../../src/core/agent';
import { ServerAsks } from '../../src/core/requests/ServerAsks';
import type { SamplingPolicy } from '../../src/core/requests/types';
import { FakeModelServer, openAiChunk, sse } from '../support/fakeModelServer';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { referenceServers, repoPath, startProcess, tempDir, writeJson } from '../support/servers';
import { ScriptedAsks } from '../support/scriptedAsks';

const askerServer = repoPath('test/fixtures/servers/asker.mjs');
const say = (text: string) => sse([[null, openAiChunk({ content: text })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]);

// Servers asking the host: the reference server (2025-11-25 requests) and a fixture that answers
// with input_required results (2026-07-28 over HTTP; the same tools as 2025-11-25 requests over stdio).
describe('server asks: elicitation and sampling on both revisions', () => {
  const tag = processTag();
  const tmp = tempDir();
  const stops: Array<() => Promise<void>> = [];
  const model = new FakeModelServer();
  const person = new ScriptedAsks();
  const opened: string[] = [];
  const logs: string[] = [];
  const policies = new Map<string, SamplingPolicy>();
  let harness: McpHarness;

  beforeAll(async () => {
    const modelUrl = await model.start();
    const asker = await startProcess(process.execPath, [askerServer, '--http=0'], { env: tag.env, ready: /listening \d+/ });
    stops.push(asker.stop);
    const port = /listening (\d+)/.exec(asker.output())![1];
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
        'asker-http': { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
        'asker-stdio': { command: process.execPath, args: [askerServer], env: tag.env },
      },
    });
    const asks = new ServerAsks({
      prompter: () => person,
      openUrl: async (url) => void opened.push(url),
      samplingPolicy: (server) => policies.get(server) ?? { rule: 'ask', maxTokens: 50 },
      samplingModel: () => ({ provider: new OpenAiCompatibleProvider({ baseUrl: `${modelUrl}/v1`, model: 'gpt-test', apiKey: 'loopback', maxAttempts: 1 }), model: 'gpt-test' }),
      log: (server, message) => logs.push(`${server}: ${message}`),
    });
    harness = await createHarness({ workspaceFolder: `${tmp.dir}/ws`, handlers: asks.handlers(), traceEnabled: () => true });
    harness.onDidLog((e) => logs.push(`${e.server} ${e.source}: ${e.message}`));
    for (const s of harness.servers()) expect(s.state, `${s.name}: ${s.error}`).toBe('running');
  });

  afterAll(async () => {
    await harness?.dispose();
    await model.stop();
    await Promise.all(stops.map((s) => s()));
    tmp.cleanup();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('speaks each revision', () => {
    expect(harness.snapshot('asker-http')?.protocolVersion).toBe('2026-07-28');
    expect(harness.snapshot('asker-stdio')?.protocolVersion).toBe('2025-11-25');
  });

  it('is offered every tool the reference server has for elicitation (form and URL), sampling, roots and their tasks', () => {
    const names = harness.snapshot('everything')!.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['get-roots-list', 'trigger-elicitation-request', 'trigger-url-elicitation', 'trigger-sampling-request', 'trigger-sampling-request-async', 'trigger-elicitation-request-async']),
    );
    expect(names).toHaveLength(19);
  });

  it('fills in the reference server\'s form and sends the values; decline declines', async () => {
    person.formAnswers.push((ask) => ({ action: 'accept', values: { ...defaults(ask.form.fields), name: 'Ada', email: 'ada@example.com' } }));
    const accepted = await harness.callTool('mcp__everything__trigger-elicitation-request', {});
    expect(accepted.isError).toBe(false);
    expect(accepted.text).toContain('Ada');
    expect(accepted.text).toContain('ada@example.com');
    const form = person.forms.at(-1)!.form;
    expect(form.fields.map((f) => f.kind)).toEqual(expect.arrayContaining(['string', 'boolean', 'number', 'enum', 'multi']));
    person.formAnswers.push(() => ({ action: 'decline' }));
    const declined = await harness.callTool('mcp__everything__trigger-elicitation-request', {});
    expect(declined.text.toLowerCase()).toContain('decline');
  });

  for (const server of ['asker-http', 'asker-stdio']) {
    describe(server, () => {
      it('sends checked form values, and never values that do not fit', async () => {
        person.formAnswers.push(() => ({ action: 'accept', values: { name: 'Ada', email: 'ada@example.com', age: 36, color: 'r' } }));
        const result = await harness.callTool(`mcp__${server}__profile`, {});
        // The SDK fills in defaults the person left out (the client declares elicitation.form.applyDefaults).
        expect(JSON.parse(result.text)).toEqual({ action: 'accept', content: { name: 'Ada', email: 'ada@example.com', age: 36, color: 'r', agree: false } });
        person.formAnswers.push(() => ({ action: 'accept', values: { name: 'Ada', email: 'not an address', age: 500 } }));
        expect(JSON.parse((await harness.callTool(`mcp__${server}__profile`, {})).text)).toEqual({ action: 'cancel' });
      });

      it('declines and cancels', async () => {
        person.formAnswers.push(() => ({ action: 'decline' }), () => ({ action: 'cancel' }));
        expect(JSON.parse((await harness.callTool(`mcp__${server}__profile`, {})).text)).toEqual({ action: 'decline' });
        expect(JSON.parse((await harness.callTool(`mcp__${server}__profile`, {})).text)).toEqual({ action: 'cancel' });
      });

      it('refuses a malformed form with the reason and shows nothing', async () => {
        const shown = person.forms.length;
        const result = await harness.callTool(`mcp__${server}__bad_form`, {});
        expect(person.forms).toHaveLength(shown);
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(/address/);
      });

      it('opens a page only after the person accepts, naming its host', async () => {
        person.urlAnswers.push(() => 'decline');
        expect((await harness.callTool(`mcp__${server}__open_page`, { url: 'https://auth.example.com/start?x=1' })).text).toBe('action: decline');
        expect(opened).toEqual([]);
        person.urlAnswers.push(() => 'accept');
        expect((await harness.callTool(`mcp__${server}__open_page`, { url: 'https://auth.example.com/start?x=1' })).text).toBe('action: accept');
        expect(opened).toEqual(['https://auth.example.com/start?x=1']);
        expect(person.urls.at(-1)).toMatchObject({ server, host: 'auth.example.com' });
        opened.length = 0;
      });

      it('bounds a flood: a few questions shown, the rest refused with a reason', async () => {
        const shown = person.forms.length;
        // Nobody answers until three questions wait: the server asks six at once.
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        person.formAnswers.push(...Array.from({ length: 3 }, () => async () => (await released, { action: 'accept' as const, values: { ok: true } })));
        const call = harness.callTool(`mcp__${server}__flood`, { count: 6 });
        await vi.waitFor(() => expect(person.forms.length - shown).toBe(3));
        release();
        const result = await call;
        expect(person.forms.length - shown).toBe(3);
        expect(result.text).toMatch(/at most 3 at a time/);
      });

      it('samples on the host model after "Allow once", capped by the server\'s limit, and shows the answer', async () => {
        model.enqueue(say('A short summary.'));
        person.samplingAnswers.push(() => 'once');
        const result = await harness.callTool(`mcp__${server}__summarize`, { text: 'a long story', maxTokens: 500 });
        expect(result.text).toBe('model gpt-test said: A short summary.');
        const ask = person.samplings.at(-1)!;
        expect(ask).toMatchObject({ server, systemPrompt: 'You summarize.', maxTokens: { requested: 500, allowed: 50 } });
        expect(ask.modelPreferences).toContain('small');
        expect(ask.messages).toEqual([{ role: 'user', text: 'Summarize: a long story' }]);
        const body = model.requests.at(-1)!.body as { max_tokens?: number; max_completion_tokens?: number; messages: Array<{ content: string }> };
        expect(body.max_tokens ?? body.max_completion_tokens).toBe(50);
        expect(JSON.stringify(body.messages)).toContain('Summarize: a long story');
        expect(person.outcomes.at(-1)).toEqual({ ok: true, text: 'A short summary.', model: 'gpt-test', toolCalls: [] });
      });

      it('denies sampling when the person denies, and by rule without asking', async () => {
        const requests = model.requests.length;
        person.samplingAnswers.push(() => 'deny');
        const denied = await harness.callTool(`mcp__${server}__summarize`, { text: 'x' });
        expect(denied.isError).toBe(true);
        expect(denied.text).toMatch(/declined/);
        policies.set(server, { rule: 'deny', maxTokens: 50 });
        const asked = person.samplings.length;
        const byRule = await harness.callTool(`mcp__${server}__summarize`, { text: 'x' });
        expect(byRule.text).toMatch(/denied for "asker-/);
        expect(person.samplings).toHaveLength(asked);
        expect(model.requests).toHaveLength(requests);
        policies.delete(server);
      });

      it('asks once when allowed for the session', async () => {
        const asked = person.samplings.length;
        model.enqueue(say('one'), say('two'));
        person.samplingAnswers.push(() => 'session');
        expect((await harness.callTool(`mcp__${server}__summarize`, { text: 'x' })).text).toContain('one');
        expect((await harness.callTool(`mcp__${server}__summarize`, { text: 'y' })).text).toContain('two');
        expect(person.samplings.length - asked).toBe(1);
      });

      it('offers a sampling request\'s tools to the model and returns its tool use', async () => {
        policies.set(server, { rule: 'allow', maxTokens: 100 });
        model.enqueue(
          sse([
            [null, openAiChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] })],
            [null, openAiChunk({}, 'tool_calls')],
            [null, '[DONE]'],
          ]),
        );
        const result = JSON.parse((await harness.callTool(`mcp__${server}__weather_agent`, { city: 'Oslo' })).text);
        expect(result).toMatchObject({ role: 'assistant', stopReason: 'toolUse', model: 'gpt-test' });
        expect(result.content).toContainEqual({ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } });
        const body = model.requests.at(-1)!.body as { tools: Array<{ function: { name: string } }> };
        expect(body.tools.map((t) => t.function.name)).toEqual(['get_weather']);
        policies.delete(server);
      });
    });
  }

  it('tells servers when the roots change (roots.listChanged)', async () => {
    const before = await harness.callTool('mcp__everything__get-roots-list', {});
    expect(before.text).toContain('/ws');
    fs.mkdirSync(`${tmp.dir}/second`, { recursive: true });
    await harness.applyConfig({ workspaceFolders: [`${tmp.dir}/ws`, `${tmp.dir}/second`] });
    // The reference server keeps the roots it was given and asks again only when told they changed.
    await vi.waitFor(async () => expect((await harness.callTool('mcp__everything__get-roots-list', {})).text).toContain('/second'));
  });

  it('never writes form values to the log, not even the JSON-RPC trace', () => {
    // What the host sends (answers, retries with inputResponses) is traced without the values; the
    // servers here echo them in their results, which are theirs to send.
    const sent = logs.filter((l) => / rpc: →/.test(l)).join('\n');
    expect(sent).toContain('[form values withheld]');
    expect(sent).not.toContain('ada@example.com');
    expect(logs.filter((l) => !/ rpc: /.test(l)).join('\n')).not.toContain('ada@example.com');
  });
});

function defaults(fields: ReadonlyArray<{ name: string; default?: unknown }>): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default]));
}
