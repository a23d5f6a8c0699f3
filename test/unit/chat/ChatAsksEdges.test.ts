import { describe, expect, it } from 'vitest';
import { ChatAskError, ChatAsks } from '../../../src/core/chat/ChatAsks';
import { parseElicitationForm } from '../../../src/core/requests/elicitationForm';
import type { ElicitUrlAsk, SamplingAsk } from '../../../src/core/requests/types';
import type { ChatAsk } from '../../../src/shared/chatProtocol';

function formOf(schema: Record<string, unknown>) {
  const parsed = parseElicitationForm('Details?', schema);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}
const optionalForm = formOf({ type: 'object', properties: { note: { type: 'string' } } });
const requiredForm = formOf({ type: 'object', properties: { email: { type: 'string', title: 'Email' } }, required: ['email'] });
const page: ElicitUrlAsk = { id: 'u1', server: 'shop', message: 'Pay first', url: 'https://pay.example/', host: 'pay.example' };
const sampling: SamplingAsk = { id: 's1', server: 'b', messages: [{ role: 'user', text: 'hi' }], maxTokens: { requested: 10, allowed: 5 }, tools: ['search'] };
const withExtras: SamplingAsk = { ...sampling, systemPrompt: 'Be brief.', modelPreferences: 'hints: small' };

function panel() {
  const shown: ChatAsk[][] = [];
  const asks = new ChatAsks((a) => shown.push(a));
  return { asks, shown, now: () => shown.at(-1) ?? [] };
}

const open = () => new AbortController().signal;

/** The promise's value if it has settled by the next turn of the event loop. */
function settledNow<T>(p: Promise<T>): Promise<T | 'still pending'> {
  return Promise.race([p, new Promise<'still pending'>((r) => setImmediate(() => r('still pending')))]);
}

describe('ChatAsks: questions that end without an answer', () => {
  it('shows no card for a question already given up, and answers it as unanswered', async () => {
    const { asks, shown } = panel();
    const gone = AbortSignal.abort();
    const answers = [asks.askForm({ id: 'f1', server: 'a', form: optionalForm }, gone), asks.askUrl(page, gone), asks.askUrlFinished(page, gone), asks.askSampling(sampling, gone)];
    expect(asks.views()).toEqual([]);
    expect(shown).toEqual([]);
    expect(await settledNow(Promise.all(answers))).toEqual([{ action: 'cancel' }, 'cancel', 'cancel', 'deny']);
  });

  it('removes a page or a waiting sampling card the server gives up on', async () => {
    const { asks, now } = panel();
    const stops = [new AbortController(), new AbortController(), new AbortController()];
    const answers = [asks.askUrl(page, stops[0]!.signal), asks.askUrlFinished({ ...page, id: 'u2' }, stops[1]!.signal), asks.askSampling(sampling, stops[2]!.signal)];
    expect(now().map((v) => v.id)).toEqual(['u1', 'u2', 's1']);
    for (const stop of stops) stop.abort();
    expect(await Promise.all(answers)).toEqual(['cancel', 'cancel', 'deny']);
    expect(now()).toEqual([]);
  });

  it("keeps a sampling card's shown answer when its request is given up afterwards", async () => {
    const { asks, now } = panel();
    const stop = new AbortController();
    const choice = asks.askSampling(sampling, stop.signal);
    asks.showSamplingOutcome(sampling, { ok: true, text: 'hello', model: 'm', toolCalls: [] });
    stop.abort();
    expect(await choice).toBe('deny');
    expect(now()).toMatchObject([{ id: 's1', state: 'done', result: 'hello' }]);
  });

  it('answers a request given up after its card was dismissed', async () => {
    const { asks, now } = panel();
    const stop = new AbortController();
    const choice = asks.askSampling(sampling, stop.signal);
    asks.showSamplingOutcome(sampling, { ok: false, error: 'no model' });
    asks.answer('s1', 'dismiss', undefined);
    stop.abort();
    expect(await settledNow(choice)).toBe('deny');
    expect(now()).toEqual([]);
  });

  it('leaves a later question with the same id alone when an answered one is given up', async () => {
    const { asks, now } = panel();
    const first = new AbortController();
    const answered = asks.askUrl(page, first.signal);
    asks.answer('u1', 'open', undefined);
    expect(await answered).toBe('accept');
    void asks.askUrl({ ...page, message: 'Pay again' }, open());
    first.abort();
    expect(now()).toMatchObject([{ id: 'u1', message: 'Pay again' }]);
  });

  it('cancels forms and pages and clears finished sampling cards when the chat closes', async () => {
    const { asks, now } = panel();
    const form = asks.askForm({ id: 'f1', server: 'a', form: optionalForm }, open());
    const url = asks.askUrl(page, open());
    void asks.askSampling(sampling, open());
    asks.showSamplingOutcome(sampling, { ok: true, text: 'hello', model: 'm', toolCalls: [] });
    asks.cancelAll();
    expect(await Promise.all([form, url])).toEqual([{ action: 'cancel' }, 'cancel']);
    expect(now()).toEqual([]);
  });
});

describe('ChatAsks: sampling cards', () => {
  it('shows the system prompt and model preferences only when the server gave them', () => {
    const { asks, now } = panel();
    void asks.askSampling(withExtras, open());
    void asks.askSampling({ ...sampling, id: 's2' }, open());
    expect(now()).toStrictEqual([
      { kind: 'sampling', id: 's1', server: 'b', messages: [{ role: 'user', text: 'hi' }], systemPrompt: 'Be brief.', maxTokens: { requested: 10, allowed: 5 }, modelPreferences: 'hints: small', tools: ['search'], state: 'waiting' },
      { kind: 'sampling', id: 's2', server: 'b', messages: [{ role: 'user', text: 'hi' }], maxTokens: { requested: 10, allowed: 5 }, tools: ['search'], state: 'waiting' },
    ]);
  });

  it('runs once, or is denied and removed', async () => {
    const { asks, now } = panel();
    const once = asks.askSampling(sampling, open());
    const denied = asks.askSampling({ ...sampling, id: 's2' }, open());
    asks.answer('s1', 'once', undefined);
    asks.answer('s2', 'deny', undefined);
    expect(await Promise.all([once, denied])).toEqual(['once', 'deny']);
    expect(now()).toMatchObject([{ id: 's1', state: 'running' }]);
  });

  it('takes only its own answers while waiting or running, and dismiss only once finished', () => {
    const { asks, now } = panel();
    void asks.askSampling(sampling, open());
    expect(() => asks.answer('s1', 'submit', undefined)).toThrow(new ChatAskError('This sampling card cannot be answered with "submit".'));
    expect(() => asks.answer('s1', 'dismiss', undefined)).toThrow('This sampling card cannot be answered with "dismiss".');
    expect(now()).toMatchObject([{ id: 's1', state: 'waiting' }]);
    asks.answer('s1', 'session', undefined);
    expect(() => asks.answer('s1', 'dismiss', undefined)).toThrow('This sampling card cannot be answered with "dismiss".');
    expect(now()).toMatchObject([{ id: 's1', state: 'running' }]);
    asks.showSamplingOutcome(sampling, { ok: true, text: 'hello', model: 'm', toolCalls: [] });
    expect(() => asks.answer('s1', 'once', undefined)).toThrow('This sampling card cannot be answered with "once".');
    expect(now()).toMatchObject([{ id: 's1', state: 'done' }]);
  });

  it("keeps what the server asked on the card when the model's answer arrives", () => {
    const { asks, now } = panel();
    void asks.askSampling(withExtras, open());
    asks.answer('s1', 'once', undefined);
    asks.showSamplingOutcome(withExtras, { ok: true, text: 'hello', model: 'm', toolCalls: ['search', 'fetch'] });
    expect(now()).toStrictEqual([
      { kind: 'sampling', id: 's1', server: 'b', messages: [{ role: 'user', text: 'hi' }], systemPrompt: 'Be brief.', maxTokens: { requested: 10, allowed: 5 }, modelPreferences: 'hints: small', tools: ['search'], state: 'done', result: 'hello\n\n(asks for tools: search, fetch)', model: 'm' },
    ]);
  });

  it('shows the answer of a request allowed without asking as a new card, with what the server asked for', () => {
    const { asks, now } = panel();
    asks.showSamplingOutcome(withExtras, { ok: true, text: 'hello', model: 'm', toolCalls: [] });
    asks.showSamplingOutcome({ ...sampling, id: 's2' }, { ok: false, error: 'the model refused' });
    expect(now()).toStrictEqual([
      { kind: 'sampling', id: 's1', server: 'b', messages: [{ role: 'user', text: 'hi' }], maxTokens: { requested: 10, allowed: 5 }, modelPreferences: 'hints: small', tools: ['search'], state: 'done', systemPrompt: 'Be brief.', result: 'hello', model: 'm' },
      { kind: 'sampling', id: 's2', server: 'b', messages: [{ role: 'user', text: 'hi' }], maxTokens: { requested: 10, allowed: 5 }, tools: ['search'], state: 'error', result: 'the model refused' },
    ]);
  });
});

describe('ChatAsks: forms and pages', () => {
  it('cancels a form, and refuses answers a form does not offer', async () => {
    const { asks, now } = panel();
    const answer = asks.askForm({ id: 'f1', server: 'a', form: optionalForm }, open());
    expect(() => asks.answer('f1', 'open', undefined)).toThrow(new ChatAskError('A form cannot be answered with "open".'));
    expect(() => asks.answer('f1', 'dismiss', undefined)).toThrow('A form cannot be answered with "dismiss".');
    expect(now()).toHaveLength(1);
    expect(asks.answer('f1', 'cancel', undefined)).toEqual({});
    expect(await answer).toEqual({ action: 'cancel' });
    expect(now()).toEqual([]);
  });

  it('reads submitted values that are not an object as no values at all', async () => {
    const { asks } = panel();
    void asks.askForm({ id: 'f1', server: 'a', form: requiredForm }, open());
    const required = { errors: { email: 'Email is required' } };
    expect(asks.answer('f1', 'submit', null)).toEqual(required);
    expect(asks.answer('f1', 'submit', ['a@b.co'])).toEqual(required);
    expect(asks.answer('f1', 'submit', Object.assign(() => undefined, { email: 'a@b.co' }))).toEqual(required);
    const optional = asks.askForm({ id: 'f2', server: 'a', form: optionalForm }, open());
    expect(asks.answer('f2', 'submit', null)).toEqual({});
    expect(await optional).toEqual({ action: 'accept', values: {} });
  });

  it('declines or cancels a page, and refuses answers a page does not offer', async () => {
    const { asks, now } = panel();
    const declined = asks.askUrl(page, open());
    const cancelled = asks.askUrl({ ...page, id: 'u2' }, open());
    expect(() => asks.answer('u1', 'done', undefined)).toThrow(new ChatAskError('A page request cannot be answered with "done".'));
    asks.answer('u1', 'decline', undefined);
    asks.answer('u2', 'cancel', undefined);
    expect(await Promise.all([declined, cancelled])).toEqual(['decline', 'cancel']);
    expect(now()).toEqual([]);
  });

  it('lets the person give up on an opened page', async () => {
    const { asks, now } = panel();
    const finished = asks.askUrlFinished({ ...page, required: true }, open());
    expect(() => asks.answer('u1', 'decline', undefined)).toThrow(new ChatAskError('An opened page cannot be answered with "decline".'));
    asks.answer('u1', 'cancel', undefined);
    expect(await finished).toBe('cancel');
    expect(now()).toEqual([]);
  });

  it('says the question is gone, by an error the host can tell apart', () => {
    const asks = new ChatAsks(() => undefined);
    expect(() => asks.answer('nope', 'submit', {})).toThrow(ChatAskError);
    expect(() => asks.answer('nope', 'submit', {})).toThrow(expect.objectContaining({ name: 'ChatAskError', message: 'This question is no longer waiting for an answer.' }));
  });
});
