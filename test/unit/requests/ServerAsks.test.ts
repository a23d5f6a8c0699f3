import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { IModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { clientCapabilities } from '../../../src/core/requests/clientCapabilities';
import { SAMPLING_REJECTED_CODE, ServerAsks } from '../../../src/core/requests/ServerAsks';
import { ScriptedAsks } from '../../support/scriptedAsks';

const form = { mode: 'form' as const, message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };
const sampling = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }], maxTokens: 10 };

/** A provider that answers from a list, recording what it was asked. */
class ListProvider implements IModelProvider {
  readonly id = 'list';
  readonly label = 'List';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly _events: ModelStreamEvent[]) {}
  async models() {
    return [];
  }
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    yield* this._events;
  }
}

function rejection(promise: Promise<unknown>): Promise<ProtocolError> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => {
      expect(err).toBeInstanceOf(ProtocolError);
      return err as ProtocolError;
    },
  );
}

describe('ServerAsks', () => {
  it('declares what its handlers answer, and nothing more', () => {
    const provider = new ListProvider([]);
    const asks = new ServerAsks({ prompter: () => undefined, openUrl: async () => undefined, samplingModel: () => ({ provider, model: 'm' }) });
    expect(clientCapabilities({ roots: () => [], ...asks.handlers() })).toEqual({
      roots: { listChanged: true },
      elicitation: { form: { applyDefaults: true }, url: {} },
      sampling: { tools: {} },
      // What a 2025-11-25 server may also send as a task: run as tasks of the host's own.
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    });
    expect(clientCapabilities({})).toEqual({});
    // No way to open a page, no model: form elicitation only.
    expect(clientCapabilities(new ServerAsks({ prompter: () => undefined }).handlers())).toEqual({
      elicitation: { form: { applyDefaults: true } },
      tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } },
    });
  });

  it('cancels a form when the server gives up on it, and when nobody answers in time', async () => {
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person, askTimeoutMs: 20 });
    const server = new AbortController();
    const pending = asks.elicit('s', form, server.signal);
    server.abort();
    expect(await pending).toEqual({ action: 'cancel' });
    expect(await asks.elicit('s', form, new AbortController().signal)).toEqual({ action: 'cancel' });
    expect(person.aborted).toHaveLength(2);
  });

  it('declines, saying so, when nobody can be asked', async () => {
    const logs: string[] = [];
    const asks = new ServerAsks({ prompter: () => undefined, samplingModel: () => undefined, log: (s, m) => logs.push(`${s}: ${m}`) });
    expect(await asks.elicit('s', form, new AbortController().signal)).toEqual({ action: 'decline' });
    expect(logs).toEqual(['s: declined an elicitation request: nobody can be asked here']);
    const err = await rejection(asks.sample('s', sampling, new AbortController().signal));
    expect(err.code).toBe(-32603);
  });

  it('refuses a malformed form naming the field, before anything is shown', async () => {
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person });
    const bad = { ...form, requestedSchema: { type: 'object', properties: { n: { type: 'string', format: 'phone' } } } };
    const err = await rejection(asks.elicit('s', bad as never, new AbortController().signal));
    expect(err.code).toBe(-32602);
    expect(err.message).toContain('requestedSchema.properties.n: format "phone"');
    expect(person.forms).toEqual([]);
  });

  it('opens only web pages', async () => {
    const person = new ScriptedAsks();
    const opened: string[] = [];
    const asks = new ServerAsks({ prompter: () => person, openUrl: async (u) => void opened.push(u) });
    const err = await rejection(asks.elicit('s', { mode: 'url', message: 'go', url: 'file:///etc/passwd', elicitationId: '1' }, new AbortController().signal));
    expect(err.message).toContain('http or https');
    expect(person.urls).toEqual([]);
    expect(opened).toEqual([]);
  });

  it('answers "cancel" when an accepted page was not opened after all, and logs it', async () => {
    const person = new ScriptedAsks();
    const logs: string[] = [];
    const asks = new ServerAsks({ prompter: () => person, openUrl: async () => false, log: (s, m) => logs.push(`${s}: ${m}`) });
    person.urlAnswers.push(() => 'accept');
    expect(await asks.elicit('s', { mode: 'url', message: 'go', url: 'https://example.com/x', elicitationId: '1' }, new AbortController().signal)).toEqual({ action: 'cancel' });
    expect(logs).toContain('s: example.com was not opened: answered the server as cancelled');
  });

  it('bounds questions per server; other servers are still asked', async () => {
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person });
    const stop = new AbortController();
    const waiting = [1, 2, 3].map(() => asks.elicit('a', form, stop.signal));
    const refused = await rejection(asks.elicit('a', form, stop.signal));
    expect(refused.message).toBe('"a" already has 3 elicitation requests waiting for an answer; this one was refused (at most 3 at a time)');
    person.formAnswers.push(() => ({ action: 'accept', values: { name: 'b' } }));
    expect(await asks.elicit('b', form, stop.signal)).toEqual({ action: 'accept', content: { name: 'b' } });
    stop.abort();
    expect(await Promise.all(waiting)).toEqual([{ action: 'cancel' }, { action: 'cancel' }, { action: 'cancel' }]);
  });

  it('samples with the rule-allowed model, capped, and reports a failing model to the server and the card', async () => {
    const person = new ScriptedAsks();
    const provider = new ListProvider([{ type: 'text', delta: 'hello' }, { type: 'end', reason: 'length' }]);
    const asks = new ServerAsks({ prompter: () => person, samplingPolicy: () => ({ rule: 'allow', maxTokens: 4 }), samplingModel: () => ({ provider, model: 'm' }) });
    expect(await asks.sample('s', { ...sampling, systemPrompt: 'be brief' }, new AbortController().signal)).toEqual({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm', stopReason: 'maxTokens' });
    expect(provider.requests[0]).toMatchObject({ system: 'be brief', maxOutputTokens: 4, messages: [{ role: 'user', content: 'hi' }] });
    expect(person.samplings).toEqual([]);
    const failing: IModelProvider = { id: 'f', label: 'F', models: async () => [], stream: async function* () { throw new Error('rate limited'); } };
    const broken = new ServerAsks({ prompter: () => person, samplingPolicy: () => ({ rule: 'allow', maxTokens: 4 }), samplingModel: () => ({ provider: failing, model: 'm' }) });
    const err = await rejection(broken.sample('s', sampling, new AbortController().signal));
    expect(err.message).toContain('rate limited');
    expect(person.outcomes.at(-1)).toEqual({ ok: false, error: 'rate limited' });
  });

  it('ends a running sampling card when the server cancels the request', async () => {
    const person = new ScriptedAsks();
    const stop = new AbortController();
    const provider: IModelProvider = {
      id: 'slow',
      label: 'Slow',
      models: async () => [],
      stream: async function* (_request, signal) {
        stop.abort();
        if (signal.aborted) throw new Error('aborted');
        yield { type: 'end', reason: 'stop' };
      },
    };
    const asks = new ServerAsks({ prompter: () => person, samplingPolicy: () => ({ rule: 'allow', maxTokens: 4 }), samplingModel: () => ({ provider, model: 'm' }) });
    await expect(asks.sample('s', sampling, stop.signal)).rejects.toThrow('aborted');
    expect(person.outcomes).toEqual([{ ok: false, error: 'the server cancelled the request' }]);
  });

  it('denies with the spec\'s code, and asks again after the session is reset', async () => {
    const person = new ScriptedAsks();
    const provider = new ListProvider([{ type: 'text', delta: 'ok' }, { type: 'end', reason: 'stop' }]);
    const asks = new ServerAsks({ prompter: () => person, samplingModel: () => ({ provider, model: 'm' }) });
    person.samplingAnswers.push(() => 'deny');
    expect((await rejection(asks.sample('s', sampling, new AbortController().signal))).code).toBe(SAMPLING_REJECTED_CODE);
    person.samplingAnswers.push(() => 'session');
    await asks.sample('s', sampling, new AbortController().signal);
    await asks.sample('s', sampling, new AbortController().signal);
    expect(person.samplings).toHaveLength(2);
    asks.resetSession();
    person.samplingAnswers.push(() => 'once');
    await asks.sample('s', sampling, new AbortController().signal);
    expect(person.samplings).toHaveLength(3);
  });
});
