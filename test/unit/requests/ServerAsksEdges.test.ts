import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { IModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { ServerAskQueue } from '../../../src/core/requests/ServerAskQueue';
import { ServerAsks } from '../../../src/core/requests/ServerAsks';
import type { IServerAskPrompter } from '../../../src/core/requests/types';
import { ScriptedAsks } from '../../support/scriptedAsks';

const signal = () => new AbortController().signal;
const form = { mode: 'form' as const, message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
const page = { mode: 'url' as const, message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e' };
const withTools = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'weather?' } }],
  maxTokens: 50,
  tools: [{ name: 'get_weather', inputSchema: { type: 'object' as const } }],
};

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

/** A person who answers but shows no sampling outcome (a host without that card). */
function plainPerson(answers: Partial<IServerAskPrompter> = {}): IServerAskPrompter {
  return {
    askForm: async () => ({ action: 'accept', values: { name: 'Ada' } }),
    askUrl: async () => 'accept',
    askSampling: async () => 'once',
    ...answers,
  };
}

describe('ServerAsks, each path', () => {
  it('answers through the handlers it gives a harness', async () => {
    const provider = new Provider([{ type: 'text', delta: 'hi' }]);
    const handlers = new ServerAsks({ prompter: () => plainPerson(), samplingModel: () => ({ provider, model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) }).handlers();
    expect(await handlers.elicit!('s', form, signal())).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(await handlers.sample!('s', { messages: [], maxTokens: 5 }, signal())).toMatchObject({ content: { type: 'text', text: 'hi' }, model: 'm' });
  });

  it('runs without a log, a page opener or a sampling card', async () => {
    const asks = new ServerAsks({ prompter: () => plainPerson(), samplingModel: () => ({ provider: new Provider([{ type: 'text', delta: 'ok' }]), model: 'm' }) });
    expect(await asks.elicit('s', page, signal())).toEqual({ action: 'accept' });
    await expect(asks.elicit('s', { ...form, requestedSchema: { type: 'nope' } } as never, signal())).rejects.toBeInstanceOf(ProtocolError);
    expect(await new ServerAsks({ prompter: () => undefined }).elicit('s', form, signal())).toEqual({ action: 'decline' });
    expect(await asks.sample('s', withTools, signal())).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
    const failing = new ServerAsks({ prompter: () => plainPerson(), samplingModel: () => ({ provider: new Provider(new Error('down')), model: 'm' }) });
    await expect(failing.sample('s', withTools, signal())).rejects.toThrow('the model failed: down');
    const stop = new AbortController();
    stop.abort(new Error('server gave up'));
    const allowed = new ServerAsks({ prompter: () => plainPerson(), samplingModel: () => ({ provider: new Provider(new Error('down')), model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) });
    await expect(allowed.sample('s', withTools, stop.signal)).rejects.toThrow('down');
    const queue = new ServerAskQueue({ maxPendingPerServer: 1 });
    const held = new ServerAsks({ prompter: () => plainPerson({ askForm: () => new Promise(() => undefined) }), queue });
    void held.elicit('s', form, signal());
    await expect(held.elicit('s', form, signal())).rejects.toThrow(/already has 1 elicitation requests waiting/);
  });

  it('logs a refused form with its reason, and a page question past the bound as an elicitation', async () => {
    const logs: string[] = [];
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person, log: (server, line) => logs.push(`${server}: ${line}`), openUrl: async () => undefined, queue: new ServerAskQueue({ maxPendingPerServer: 1 }) });
    await expect(asks.elicit('s', { ...form, requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } } as never, signal())).rejects.toThrow(/the requested form cannot be shown: /);
    expect(logs).toEqual(['s: refused an elicitation whose form cannot be shown: requestedSchema.properties.a: type "object" cannot be shown (string, number, integer, boolean, or an array of choices)']);
    const stop = new AbortController();
    const waiting = asks.elicit('s', page, stop.signal);
    await expect(asks.elicit('s', page, signal())).rejects.toThrow('"s" already has 1 elicitation requests waiting for an answer; this one was refused (at most 1 at a time)');
    stop.abort();
    // A page question the server gave up on is cancelled, not declined.
    expect(await waiting).toEqual({ action: 'cancel' });
  });

  it('lets a prompter failure through as it is', async () => {
    const asks = new ServerAsks({ prompter: () => plainPerson({ askForm: async () => Promise.reject(new Error('the window closed')) }) });
    const err = await asks.elicit('s', form, signal()).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ProtocolError);
    expect((err as Error).message).toBe('the window closed');
  });

  it('opens plain http pages too, and quotes at most 200 characters of a refused address', async () => {
    const opened: string[] = [];
    const asks = new ServerAsks({ prompter: () => plainPerson(), openUrl: async (url) => void opened.push(url) });
    expect(await asks.elicit('s', { ...page, url: 'http://localhost:8080/cb' }, signal())).toEqual({ action: 'accept' });
    expect(opened).toEqual(['http://localhost:8080/cb']);
    const long = `ftp://${'x'.repeat(300)}`;
    await expect(asks.elicit('s', { ...page, url: long }, signal())).rejects.toThrow(`not ${JSON.stringify(long.slice(0, 200))}`);
  });

  it('has no model to sample with unless given one, and says why nobody can approve', async () => {
    await expect(new ServerAsks({ prompter: () => plainPerson() }).sample('s', withTools, signal())).rejects.toThrow('the host has no language model available for sampling');
    const unattended = new ServerAsks({ prompter: () => undefined, samplingModel: () => ({ provider: new Provider([]), model: 'm' }) });
    await expect(unattended.sample('s', withTools, signal())).rejects.toThrow("sampling needs the user's approval: nobody can be asked here");
  });

  it('shows the tools a sampling request offers, asks again after "once", and counts a question the server gave up on as declined', async () => {
    const person = new ScriptedAsks();
    person.samplingAnswers.push(() => 'once', () => 'once');
    const provider = new Provider([{ type: 'text', delta: 'x' }]);
    const asks = new ServerAsks({ prompter: () => person, samplingModel: () => ({ provider, model: 'm' }) });
    await asks.sample('s', withTools, signal());
    await asks.sample('s', withTools, signal());
    expect(person.samplings.map((a) => a.tools)).toEqual([['get_weather'], ['get_weather']]);
    expect(provider.requests[0]!.system).toBe('');
    const stop = new AbortController();
    const pending = asks.sample('s', withTools, stop.signal);
    await expect.poll(() => person.samplings.length).toBe(3);
    stop.abort();
    await expect(pending).rejects.toThrow('the user declined the sampling request');
  });

  it('sends back the tool calls the model made, and the reason it stopped, whatever came after', async () => {
    const call = { id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' };
    const provider = new Provider([{ type: 'tool_call', call }, { type: 'end', reason: 'length' }, { type: 'usage', outputTokens: 3 }]);
    const asks = new ServerAsks({ prompter: () => undefined, samplingModel: () => ({ provider, model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) });
    expect(await asks.sample('s', withTools, signal())).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Oslo' } }], model: 'm', stopReason: 'toolUse' });
    const cut = new ServerAsks({ prompter: () => undefined, samplingModel: () => ({ provider: new Provider([{ type: 'text', delta: 'a' }, { type: 'end', reason: 'length' }, { type: 'usage' }]), model: 'm' }), samplingPolicy: () => ({ rule: 'allow', maxTokens: 10 }) });
    expect(await cut.sample('s', { messages: [], maxTokens: 5 }, signal())).toMatchObject({ stopReason: 'maxTokens' });
  });
});
