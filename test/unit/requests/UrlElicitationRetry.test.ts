import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ChatAsks, ChatAskError } from '../../../src/core/chat/ChatAsks';
import type { ICallConnection } from '../../../src/core/calls/CallPipeline';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import { ServerAsks } from '../../../src/core/requests/ServerAsks';
import { requiredPages, URL_ELICITATION_REQUIRED, UrlElicitationRetry } from '../../../src/core/requests/UrlElicitationRetry';
import type { ChatAsk } from '../../../src/shared/chatProtocol';
import { ScriptedAsks } from '../../support/scriptedAsks';

const page = { mode: 'url', url: 'https://pay.example.com/go', message: 'Pay first', elicitationId: 'e1' };
const needsPage = (pages: unknown[] = [page]) => new McpCallError('protocol', 'server error -32042: A page must be visited', URL_ELICITATION_REQUIRED, { elicitations: pages });
const options = { timeoutMs: 1000, maxTotalTimeoutMs: 1000 };

/** A connection answering calls from a list: an error to throw, or a result. */
function connection(answers: Array<Error | CallToolResult>) {
  const calls: string[] = [];
  const c: ICallConnection = {
    definition: { toolTimeoutMs: 5 },
    state: { kind: 'running' },
    whenSettled: async () => undefined,
    describeUnavailable: () => 'unavailable',
    callTool: async (name) => {
      calls.push(name);
      const next = answers.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { c, calls };
}

const done: CallToolResult = { content: [{ type: 'text', text: 'done' }] };

describe('requiredPages', () => {
  it('reads the URL pages of a -32042 error, and nothing else', () => {
    expect(requiredPages(needsPage())).toEqual([{ url: 'https://pay.example.com/go', message: 'Pay first' }]);
    expect(requiredPages(needsPage([{ mode: 'url', url: 'https://a.example/' }]))).toEqual([{ url: 'https://a.example/', message: 'The server asks you to open this page.' }]);
    expect(requiredPages(needsPage([{ mode: 'form' }, 'x', null]))).toBeUndefined();
    expect(requiredPages(new McpCallError('protocol', 'x', URL_ELICITATION_REQUIRED))).toBeUndefined();
    expect(requiredPages(new McpCallError('protocol', 'x', -32600, { elicitations: [page] }))).toBeUndefined();
    expect(requiredPages(new Error('x'))).toBeUndefined();
  });
});

describe('UrlElicitationRetry', () => {
  function setup(answers: Array<Error | CallToolResult>) {
    const person = new ScriptedAsks();
    const opened: string[] = [];
    const asks = new ServerAsks({ prompter: () => person, openUrl: async (url) => void opened.push(url) });
    const { c, calls } = connection(answers);
    return { person, opened, calls, retry: new UrlElicitationRetry(c, 'shop', asks) };
  }

  it('passes everything but a -32042 error through, once', async () => {
    const { retry, calls } = setup([done, new McpCallError('timeout', 'slow')]);
    expect(await retry.callTool('buy', {}, options)).toBe(done);
    await expect(retry.callTool('buy', {}, options)).rejects.toThrow('slow');
    expect(calls).toEqual(['buy', 'buy']);
    expect(retry.definition.toolTimeoutMs).toBe(5);
    expect(retry.state.kind).toBe('running');
    expect(retry.describeUnavailable()).toBe('unavailable');
  });

  it('asks, opens the page once accepted, waits for "finished", and calls again', async () => {
    const { retry, calls, person, opened } = setup([needsPage(), done]);
    person.urlAnswers.push(() => 'accept');
    person.finishAnswers.push(() => 'done');
    expect(await retry.callTool('buy', {}, options)).toBe(done);
    expect(calls).toEqual(['buy', 'buy']);
    expect(opened).toEqual(['https://pay.example.com/go']);
    expect(person.urls[0]).toMatchObject({ server: 'shop', host: 'pay.example.com', required: true });
  });

  it.each([
    ['decline', undefined, 'the user declined to open it, so the tool did not run'],
    ['cancel', undefined, 'the user cancelled, so the tool did not run'],
    ['accept', 'cancel', 'the user opened it but did not finish there, so the tool did not run'],
  ] as const)('ends with the reason when the person answers %s then %s', async (answer, finish, reason) => {
    const { retry, calls, opened, person } = setup([needsPage(), done]);
    person.urlAnswers.push(() => answer);
    if (finish) person.finishAnswers.push(() => finish);
    const err = await retry.callTool('buy', {}, options).then(
      () => undefined,
      (e: unknown) => e as McpCallError,
    );
    expect(err).toBeInstanceOf(McpCallError);
    expect(err!.message).toBe(`the server needs the user to open a page on pay.example.com first ("Pay first"); ${reason}`);
    expect(err!.code).toBe(URL_ELICITATION_REQUIRED);
    expect(calls).toEqual(['buy']);
    expect(opened).toEqual(answer === 'accept' ? ['https://pay.example.com/go'] : []);
  });

  it('ends without a retry when the page was not opened (the person said no to the editor)', async () => {
    const person = new ScriptedAsks();
    const asks = new ServerAsks({ prompter: () => person, openUrl: async () => false });
    const { c, calls } = connection([needsPage(), done]);
    person.urlAnswers.push(() => 'accept');
    const err = await new UrlElicitationRetry(c, 'shop', asks).callTool('buy', {}, options).then(
      () => undefined,
      (e: unknown) => e as McpCallError,
    );
    expect(err!.message).toBe('the server needs the user to open a page on pay.example.com first ("Pay first"); the page was not opened, so the tool did not run');
    expect(calls).toEqual(['buy']);
    expect(person.finished).toEqual([]);
  });

  it('retries only once', async () => {
    const { retry, calls, person } = setup([needsPage(), needsPage()]);
    person.urlAnswers.push(() => 'accept');
    person.finishAnswers.push(() => 'done');
    await expect(retry.callTool('buy', {}, options)).rejects.toThrow(/still asks for a page after the user finished there .* is not tried again$/);
    expect(calls).toEqual(['buy', 'buy']);
  });

  it('refuses a page that is not a web address, and says when nobody can be asked', async () => {
    const { retry } = setup([needsPage([{ mode: 'url', url: 'file:///etc/passwd', message: 'x' }])]);
    await expect(retry.callTool('buy', {}, options)).rejects.toThrow('the server asks for a page that is not an http or https address ("file:///etc/passwd"); the tool did not run');
    const alone = new UrlElicitationRetry(connection([needsPage()]).c, 'shop', new ServerAsks({ prompter: () => undefined, openUrl: async () => undefined, unattendedReason: 'no terminal' }));
    await expect(alone.callTool('buy', {}, options)).rejects.toThrow('the server needs the user to open a page on pay.example.com first ("Pay first"); nobody could be asked (no terminal), so the tool did not run');
  });

  it('is cancelled with its call', async () => {
    const { retry, calls } = setup([needsPage(), done]);
    const abort = new AbortController();
    const call = retry.callTool('buy', {}, { ...options, signal: abort.signal });
    await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    await expect(call).rejects.toMatchObject({ kind: 'cancelled' });
    expect(calls).toEqual(['buy']);
  });
});

describe('ChatAsks: a page a call waits for', () => {
  it('shows the page card, then the same card waiting for "I\'ve Finished"', async () => {
    let shown: ChatAsk[] = [];
    const asks = new ChatAsks((a) => (shown = a));
    const ask = { id: 'p1', server: 'shop', message: 'Pay first', url: 'https://pay.example.com/go', host: 'pay.example.com', required: true };
    const signal = new AbortController().signal;
    const opening = asks.askUrl(ask, signal);
    expect(shown).toEqual([{ kind: 'url', id: 'p1', server: 'shop', message: 'Pay first', url: 'https://pay.example.com/go', host: 'pay.example.com', required: true, phase: 'open' }]);
    expect(() => asks.answer('p1', 'done', undefined)).toThrow(ChatAskError);
    asks.answer('p1', 'open', undefined);
    expect(await opening).toBe('accept');
    const finishing = asks.askUrlFinished(ask, signal);
    expect(shown).toMatchObject([{ id: 'p1', phase: 'finish' }]);
    expect(() => asks.answer('p1', 'open', undefined)).toThrow('An opened page cannot be answered with "open".');
    asks.answer('p1', 'done', undefined);
    expect(await finishing).toBe('done');
    expect(shown).toEqual([]);
  });

  it('cancels a card waiting for "finished" when the chat closes', async () => {
    const asks = new ChatAsks(() => undefined);
    const finishing = asks.askUrlFinished({ id: 'p2', server: 's', message: 'm', url: 'https://a.example/', host: 'a.example', required: true }, new AbortController().signal);
    asks.cancelAll();
    expect(await finishing).toBe('cancel');
  });

  it('shows an ordinary page card without a phase', () => {
    let shown: ChatAsk[] = [];
    const asks = new ChatAsks((a) => (shown = a));
    void asks.askUrl({ id: 'p3', server: 's', message: 'm', url: 'https://a.example/', host: 'a.example' }, new AbortController().signal);
    expect(shown[0]).not.toHaveProperty('phase');
    expect(shown[0]).not.toHaveProperty('required');
  });
});
