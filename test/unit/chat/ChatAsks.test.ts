import { describe, expect, it } from 'vitest';
import { ChatAskError, ChatAsks } from '../../../src/core/chat/ChatAsks';
import { parseElicitationForm } from '../../../src/core/requests/elicitationForm';
import type { ChatAsk } from '../../../src/shared/chatProtocol';
import { hostMessage } from '../../../src/shared/chatProtocol';

const parsed = parseElicitationForm('Who?', { type: 'object', properties: { email: { type: 'string', format: 'email', title: 'Email' }, age: { type: 'integer', minimum: 1 } }, required: ['email'] });
if (!parsed.ok) throw new Error(parsed.error);
const form = parsed.value;
const sampling = { id: 's1', server: 'b', messages: [{ role: 'user' as const, text: 'hi' }], maxTokens: { requested: 10, allowed: 5 }, tools: [] };

function setup() {
  const posts: ChatAsk[][] = [];
  const asks = new ChatAsks((a) => posts.push(a));
  return { asks, posts, last: () => posts.at(-1) ?? [] };
}

describe('ChatAsks', () => {
  it('shows several servers\' questions at once and takes answers in any order', async () => {
    const { asks, last } = setup();
    const signal = new AbortController().signal;
    const a = asks.askForm({ id: 'f1', server: 'a', form }, signal);
    const b = asks.askSampling(sampling, signal);
    const c = asks.askUrl({ id: 'u1', server: 'c', message: 'sign in', url: 'https://x.example/', host: 'x.example' }, signal);
    expect(last().map((v) => `${v.server}:${v.kind}`)).toEqual(['a:form', 'b:sampling', 'c:url']);
    asks.answer('u1', 'open', undefined);
    asks.answer('s1', 'session', undefined);
    asks.answer('f1', 'decline', undefined);
    expect(await Promise.all([a, b, c])).toEqual([{ action: 'decline' }, 'session', 'accept']);
    // The sampling card stays, running, until its outcome is shown and dismissed.
    expect(last()).toMatchObject([{ id: 's1', state: 'running' }]);
    asks.showSamplingOutcome(sampling, { ok: true, text: 'hello', model: 'm', toolCalls: [] });
    expect(last()).toMatchObject([{ id: 's1', state: 'done', result: 'hello', model: 'm' }]);
    asks.answer('s1', 'dismiss', undefined);
    expect(last()).toEqual([]);
  });

  it('keeps a form open with one message per field until its values fit', async () => {
    const { asks, last } = setup();
    const pending = asks.askForm({ id: 'f1', server: 'a', form }, new AbortController().signal);
    expect(asks.answer('f1', 'submit', { email: 'nope', age: 0 })).toEqual({ errors: { email: 'Email must be an email address', age: 'age must be at least 1' } });
    expect(last()).toHaveLength(1);
    expect(asks.answer('f1', 'submit', { email: 'a@b.co' })).toEqual({});
    expect(await pending).toEqual({ action: 'accept', values: { email: 'a@b.co' } });
    expect(() => asks.answer('f1', 'submit', {})).toThrow(ChatAskError);
  });

  it('removes a card the server gave up on, and cancels all when the chat closes', async () => {
    const { asks, last } = setup();
    const stop = new AbortController();
    const given = asks.askForm({ id: 'f1', server: 'a', form }, stop.signal);
    const other = asks.askSampling(sampling, new AbortController().signal);
    stop.abort();
    expect(await given).toEqual({ action: 'cancel' });
    expect(last().map((v) => v.id)).toEqual(['s1']);
    asks.cancelAll();
    expect(await other).toBe('deny');
    expect(last()).toEqual([]);
  });

  it('posts messages the panel accepts, without the values typed', () => {
    const { asks, last } = setup();
    void asks.askForm({ id: 'f1', server: 'a', form }, new AbortController().signal);
    expect(hostMessage({ type: 'asks', asks: last() }, 'message')).toBeUndefined();
    asks.answer('f1', 'submit', { email: 'secret@example.com' });
    expect(JSON.stringify(last())).not.toContain('secret@example.com');
  });
});
