import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { IModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { redactFormAnswers, WITHHELD } from '../../../src/core/requests/redactAnswers';
import { ServerAskQueue } from '../../../src/core/requests/ServerAskQueue';
import { SAMPLING_REJECTED_CODE, ServerAsks } from '../../../src/core/requests/ServerAsks';
import { applyServerLogLevel } from '../../../src/core/requests/serverLogLevel';
import { ScriptedAsks } from '../../support/scriptedAsks';

const signal = () => new AbortController().signal;
const form = { mode: 'form' as const, message: 'Your details', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const }, age: { type: 'integer' as const, minimum: 0 } }, required: ['name'] } };

class Provider implements IModelProvider {
  readonly id = 'p';
  readonly label = 'P';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly _events: ModelStreamEvent[] | Error) {}
  async models() {
    return [];
  }
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    if (this._events instanceof Error) throw this._events;
    yield* this._events;
  }
}

async function rejected(promise: Promise<unknown>): Promise<ProtocolError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProtocolError);
  return err as ProtocolError;
}

describe('ServerAsks forms and pages', () => {
  it('puts a form to the person and sends the values it checked, or cancels values that do not fit', async () => {
    const person = new ScriptedAsks();
    const logs: string[] = [];
    const asks = new ServerAsks({ prompter: () => person, log: (s, m) => logs.push(`${s}: ${m}`) });
    person.formAnswers.push(async () => ({ action: 'accept', values: { name: 'Ada', age: 36 } }));
    expect(await asks.elicit('db', form, signal())).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(person.forms[0]).toMatchObject({ server: 'db', form: { message: 'Your details' } });
    person.formAnswers.push(async () => ({ action: 'accept', values: { age: -1 } }));
    expect(await asks.elicit('db', form, signal())).toEqual({ action: 'cancel' });
    person.formAnswers.push(async () => ({ action: 'decline' }));
    expect(await asks.elicit('db', form, signal())).toEqual({ action: 'decline' });
    expect(logs).toEqual([]);
  });

  it('opens a page only after the person accepted, and says so in the log', async () => {
    const person = new ScriptedAsks();
    const opened: string[] = [];
    const logs: string[] = [];
    const asks = new ServerAsks({ prompter: () => person, openUrl: async (u) => void opened.push(u), log: (s, m) => logs.push(`${s}: ${m}`) });
    const page = { mode: 'url' as const, message: 'Sign the form', url: 'https://example.com/sign?x=1', elicitationId: 'e1' };
    person.urlAnswers.push(async () => 'decline' as const);
    expect(await asks.elicit('s', page, signal())).toEqual({ action: 'decline' });
    expect(opened).toEqual([]);
    person.urlAnswers.push(async () => 'accept' as const);
    expect(await asks.elicit('s', page, signal())).toEqual({ action: 'accept' });
    expect(opened).toEqual(['https://example.com/sign?x=1']);
    expect(person.urls[1]).toMatchObject({ server: 's', message: 'Sign the form', url: 'https://example.com/sign?x=1', host: 'example.com' });
    expect(logs).toEqual(['s: opening example.com in the browser, as the server asked and the user accepted']);
    const unattended = new ServerAsks({ prompter: () => undefined, unattendedReason: 'running headless', log: (s, m) => logs.push(`${s}: ${m}`) });
    expect(await unattended.elicit('s', page, signal())).toEqual({ action: 'decline' });
    expect(logs.at(-1)).toBe('s: declined an elicitation request: running headless');
    const err = await rejected(asks.elicit('s', { ...page, url: 'not a url at all' }, signal()));
    expect(err.message).toContain('the URL to open must be an http or https address, not "not a url at all"');
  });
});

describe('ServerAsks sampling', () => {
  const request = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Summarise' } }], maxTokens: 500, systemPrompt: 'Be brief', modelPreferences: { hints: [{ name: 'claude' }] } };

  it('samples without asking when the rule allows, capped by the policy, through the chat model', async () => {
    const provider = new Provider([{ type: 'text', delta: 'Short ' }, { type: 'text', delta: 'summary' }, { type: 'end', reason: 'stop' }]);
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person, samplingModel: () => ({ provider, model: 'm-1' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 100 }) });
    expect(await asks.sample('s', request, signal())).toMatchObject({ role: 'assistant', content: { type: 'text', text: 'Short summary' }, model: 'm-1', stopReason: 'endTurn' });
    expect(person.samplings).toEqual([]);
    expect(provider.requests[0]).toMatchObject({ system: 'Be brief', model: 'm-1', maxOutputTokens: 100 });
    expect(person.outcomes).toEqual([{ ok: true, text: 'Short summary', model: 'm-1', toolCalls: [] }]);
  });

  it('asks with what the server wants, remembers "for this session", and refuses a decline with the spec code', async () => {
    const provider = new Provider([{ type: 'text', delta: 'ok' }, { type: 'end', reason: 'stop' }]);
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person, samplingModel: () => ({ provider, model: 'm' }) });
    person.samplingAnswers.push(async () => 'session' as const);
    await asks.sample('s', request, signal());
    expect(person.samplings[0]).toMatchObject({ server: 's', systemPrompt: 'Be brief', maxTokens: { requested: 500, allowed: 500 }, tools: [] });
    expect(person.samplings[0].modelPreferences).toBeDefined();
    await asks.sample('s', request, signal());
    expect(person.samplings).toHaveLength(1);
    person.samplingAnswers.push(async () => 'deny' as const);
    const err = await rejected(asks.sample('other', request, signal()));
    expect(err).toMatchObject({ code: SAMPLING_REJECTED_CODE, message: expect.stringContaining('the user declined the sampling request') });
  });

  it('refuses when the rule denies, when there is no model, and when nobody can approve', async () => {
    const provider = new Provider([]);
    expect((await rejected(new ServerAsks({ prompter: () => undefined, samplingModel: () => ({ provider, model: 'm' }), samplingPolicy: () => ({ rule: 'deny', maxTokens: 1 }) }).sample('s', request, signal()))).message).toContain(
      'sampling is denied for "s" by the host\'s settings',
    );
    expect((await rejected(new ServerAsks({ prompter: () => undefined, samplingModel: () => undefined }).sample('s', request, signal()))).message).toContain('the host has no language model available for sampling');
    const unattended = new ServerAsks({ prompter: () => undefined, samplingModel: () => ({ provider, model: 'm' }), unattendedReason: 'no window' });
    expect((await rejected(unattended.sample('s', request, signal()))).message).toContain("sampling needs the user's approval: no window");
    expect(new ServerAsks({ prompter: () => undefined }).handlers()).toEqual({ elicit: expect.any(Function), elicitUrl: false });
  });

  it('reports a model that fails, and a request the server cancelled', async () => {
    const failing = new ServerAsks({ prompter: () => new ScriptedAsks(), samplingModel: () => ({ provider: new Provider(new Error('quota exceeded')), model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) });
    const err = await rejected(failing.sample('s', request, signal()));
    expect(err.message).toContain('the model failed: quota exceeded');
    const person = new ScriptedAsks();
    const controller = new AbortController();
    controller.abort();
    const cancelled = new ServerAsks({ prompter: () => person, samplingModel: () => ({ provider: new Provider(new Error('aborted')), model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) });
    await expect(cancelled.sample('s', request, controller.signal)).rejects.toThrow('aborted');
    expect(person.outcomes).toEqual([{ ok: false, error: 'the server cancelled the request' }]);
  });
});

describe('ServerAskQueue', () => {
  it('holds a server to its limit, frees a place when a question settles, and keeps at least one', async () => {
    const queue = new ServerAskQueue({ maxPendingPerServer: 0 });
    let release!: () => void;
    const first = queue.run('s', 'elicitation', () => new Promise<string>((resolve) => (release = () => resolve('done'))));
    expect(queue.pending('s')).toBe(1);
    await expect(queue.run('s', 'elicitation', async () => 'x')).rejects.toThrow('"s" already has 1 elicitation requests waiting for an answer; this one was refused (at most 1 at a time)');
    release();
    expect(await first).toBe('done');
    expect(queue.pending('s')).toBe(0);
    await expect(queue.run('s', 'sampling', async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(queue.pending('s')).toBe(0);
  });
});

describe('redactFormAnswers', () => {
  it('withholds the values of an accepted form, in a response or a retry, and leaves the rest alone', () => {
    const response = { jsonrpc: '2.0' as const, id: 1, result: { action: 'accept', content: { password: 'x' } } };
    expect(redactFormAnswers(response)).toEqual({ jsonrpc: '2.0', id: 1, result: { action: 'accept', content: WITHHELD } });
    const declined = { jsonrpc: '2.0' as const, id: 1, result: { action: 'decline', content: { a: 1 } } };
    expect(redactFormAnswers(declined)).toBe(declined);
    const listed = { jsonrpc: '2.0' as const, id: 1, result: { action: 'accept', content: ['a'] } };
    expect(redactFormAnswers(listed)).toBe(listed);
    const retry = { jsonrpc: '2.0' as const, id: 2, method: 'tools/call', params: { name: 't', inputResponses: { ask: { action: 'accept', content: { pin: '1234' } }, other: { action: 'decline' } } } };
    expect(redactFormAnswers(retry)).toEqual({ ...retry, params: { ...retry.params, inputResponses: { ask: { action: 'accept', content: WITHHELD }, other: { action: 'decline' } } } });
    const plain = { jsonrpc: '2.0' as const, id: 3, method: 'tools/call', params: { inputResponses: { other: { action: 'decline' } } } };
    expect(redactFormAnswers(plain)).toBe(plain);
    const nullResult = { jsonrpc: '2.0' as const, id: 4, result: null as never };
    expect(redactFormAnswers(nullResult)).toBe(nullResult);
    const noResponses = { jsonrpc: '2.0' as const, id: 5, method: 'tools/call', params: { inputResponses: null } };
    expect(redactFormAnswers(noResponses as never)).toBe(noResponses);
    for (const content of ['typed', null]) {
      const odd = { jsonrpc: '2.0' as const, id: 6, result: { action: 'accept', content } };
      expect(redactFormAnswers(odd as never)).toBe(odd);
    }
  });
});

describe('applyServerLogLevel', () => {
  const connection = (snapshot: object, sent: object[]) => ({
    snapshot: snapshot as never,
    definition: {} as never,
    request: async (r: object, options: object) => {
      sent.push(r, options);
      return {} as never;
    },
  });

  it('asks a running 2025-era server that offers logging, and leaves every other alone, saying why', async () => {
    const sent: object[] = [];
    expect(await applyServerLogLevel(undefined, 'info')).toBe('not_running');
    expect(await applyServerLogLevel(connection({ state: { kind: 'stopped' } }, sent) as never, 'info')).toBe('not_running');
    expect(await applyServerLogLevel(connection({ state: { kind: 'running' }, capabilities: {} }, sent) as never, 'info')).toBe('no_logging');
    expect(await applyServerLogLevel(connection({ state: { kind: 'running' } }, sent) as never, 'info')).toBe('no_logging');
    expect(await applyServerLogLevel(connection({ state: { kind: 'running' }, capabilities: { logging: {} }, protocolVersion: '2026-07-28' }, sent) as never, 'info')).toBe('modern');
    expect(sent).toEqual([]);
    expect(await applyServerLogLevel(connection({ state: { kind: 'running' }, capabilities: { logging: {} }, protocolVersion: '2025-11-25' }, sent) as never, 'warning')).toBe('set');
    expect(sent).toEqual([{ method: 'logging/setLevel', params: { level: 'warning' } }, { timeoutMs: 10_000, maxTotalTimeoutMs: 10_000 }]);
  });
});
