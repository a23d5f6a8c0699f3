import { describe, expect, it } from 'vitest';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { serverTool, toolCall, transcriptRig } from '../../support/transcriptRig';

const user = (id: string, text = 'hi'): ChatItem => ({ kind: 'user', id, text });

describe('a transcript opened on a stored conversation', () => {
  it('finds the stored items by id and replaces one in place when it is shown again', () => {
    const { transcript } = transcriptRig({ items: [user('u1'), { kind: 'assistant', id: 'a2', text: 'hello' }] });
    expect(transcript.item('u1')).toEqual(user('u1'));
    transcript.add(user('u1', 'edited'));
    expect(transcript.items).toEqual([user('u1', 'edited'), { kind: 'assistant', id: 'a2', text: 'hello' }]);
    expect(transcript.item('missing')).toBeUndefined();
  });

  it('numbers new items after the stored ones, skipping an id already taken', () => {
    const { transcript } = transcriptRig({ items: [user('u1'), { kind: 'notice', id: 'n3', level: 'info', text: 'old' }] });
    transcript.onAgentEvent({ type: 'notice', level: 'info', message: 'new' });
    transcript.onAgentEvent({ type: 'text', delta: 'x' });
    expect(transcript.items.map((i) => i.id)).toEqual(['u1', 'n3', 'n4', 'a5']);
    expect(transcript.item('n3')).toMatchObject({ text: 'old' });
    expect(transcript.nextId('u')).toBe('u6');
  });
});

describe('streamed answers', () => {
  it('puts streamed text into one answer, posting the empty answer once and then each piece', () => {
    const { transcript, posted } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'Hel' });
    transcript.onAgentEvent({ type: 'text', delta: '' });
    transcript.onAgentEvent({ type: 'text', delta: 'lo' });
    expect(posted).toEqual([
      { type: 'upsert', items: [{ kind: 'assistant', id: 'a1', text: '' }] },
      { type: 'append', id: 'a1', delta: 'Hel' },
      { type: 'append', id: 'a1', delta: 'lo' },
    ]);
    expect(transcript.items).toEqual([{ kind: 'assistant', id: 'a1', text: 'Hello' }]);
  });

  it('posts nothing for an empty piece of text before any answer', () => {
    const { transcript, posted } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: '' });
    expect(posted).toEqual([]);
    expect(transcript.items).toEqual([]);
  });

  it('keeps streaming into the answer after the host shows it again', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'one ' });
    transcript.add({ kind: 'assistant', id: 'a1', text: 'one ' });
    transcript.onAgentEvent({ type: 'text', delta: 'two' });
    expect(transcript.items).toEqual([{ kind: 'assistant', id: 'a1', text: 'one two' }]);
  });

  it('starts a new answer after a user message and after a tool card, so text and cards keep their order', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'first' });
    transcript.add(user('u9'));
    transcript.onAgentEvent({ type: 'text', delta: 'second' });
    transcript.onAgentEvent(toolCall(serverTool('read')));
    transcript.onAgentEvent({ type: 'text', delta: 'third' });
    expect(transcript.items.map((i) => [i.kind, i.kind === 'assistant' ? i.text : i.id])).toEqual([
      ['assistant', 'first'],
      ['user', 'u9'],
      ['assistant', 'second'],
      ['tool', 'tool3'],
      ['assistant', 'third'],
    ]);
  });

  it('starts afresh after a turn is dropped: the dropped items are gone and new text gets a new answer', () => {
    const { transcript } = transcriptRig({ items: [user('u1')] });
    transcript.onAgentEvent({ type: 'text', delta: 'old answer' });
    transcript.truncate(1);
    expect(transcript.items).toEqual([user('u1')]);
    expect(transcript.item('a2')).toBeUndefined();
    transcript.onAgentEvent({ type: 'text', delta: 'new' });
    expect(transcript.items).toEqual([user('u1'), { kind: 'assistant', id: 'a3', text: 'new' }]);
  });
});

describe('how a turn ends', () => {
  it('marks a partial answer as stopped when the user stops the turn', () => {
    const { transcript, posted } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'partial' });
    transcript.onAgentEvent({ type: 'end', reason: 'stopped' });
    expect(transcript.items).toStrictEqual([{ kind: 'assistant', id: 'a1', text: 'partial', stopped: true }]);
    expect(posted.at(-1)).toEqual({ type: 'upsert', items: [{ kind: 'assistant', id: 'a1', text: 'partial', stopped: true }] });
  });

  it('says "Stopped." when the user stops a turn before any text came', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'end', reason: 'stopped' });
    expect(transcript.items).toStrictEqual([{ kind: 'notice', id: 'n1', level: 'info', text: 'Stopped.' }]);
  });

  it('adds nothing when a turn ends normally, nor for usage and request sizes', () => {
    const { transcript, posted } = transcriptRig();
    transcript.onAgentEvent({ type: 'usage', inputTokens: 10, outputTokens: 2 });
    transcript.onAgentEvent({ type: 'request', estimate: { system: 1, tools: 1, messages: 1, total: 3 } });
    transcript.onAgentEvent({ type: 'end', reason: 'done' });
    expect(posted).toEqual([]);
    expect(transcript.items).toEqual([]);
  });

  it("shows a hook's message as a notice of its level", () => {
    const { transcript, posted } = transcriptRig();
    transcript.onAgentEvent({ type: 'notice', level: 'warning', message: 'the hook "audit" says: careful' });
    const notice = { kind: 'notice', id: 'n1', level: 'warning', text: 'the hook "audit" says: careful' };
    expect(transcript.items).toStrictEqual([notice]);
    expect(posted).toEqual([{ type: 'upsert', items: [notice] }]);
  });

  it('offers to set the API key when the model refused the key', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'ignored' });
    transcript.onAgentEvent({ type: 'error', kind: 'auth', message: 'invalid x-api-key' });
    expect(transcript.items[1]).toStrictEqual({ kind: 'notice', id: 'n2', level: 'error', text: 'invalid x-api-key', action: { id: 'setApiKey', label: 'Set API Key...' } });
    expect(transcript.items[0]).not.toHaveProperty('error');
  });

  it('warns, in a notice of its own, when the turn reached its step limit', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'working' });
    transcript.onAgentEvent({ type: 'error', kind: 'step_limit', message: 'Stopped after 25 steps.' });
    expect(transcript.items).toStrictEqual([
      { kind: 'assistant', id: 'a1', text: 'working' },
      { kind: 'notice', id: 'n2', level: 'warning', text: 'Stopped after 25 steps.' },
    ]);
  });

  it('puts any other error under the answer it interrupted', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'so far' });
    transcript.onAgentEvent({ type: 'error', kind: 'server', message: 'overloaded' });
    expect(transcript.items).toStrictEqual([{ kind: 'assistant', id: 'a1', text: 'so far', error: 'overloaded' }]);
  });

  it('shows an error as an empty answer when no text had come', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'error', kind: 'connection', message: 'offline' });
    expect(transcript.items).toStrictEqual([{ kind: 'assistant', id: 'a1', text: '', error: 'offline' }]);
  });

  it('shows an error after a tool card as a new answer below it', () => {
    const { transcript } = transcriptRig();
    transcript.onAgentEvent({ type: 'text', delta: 'calling' });
    transcript.onAgentEvent(toolCall(serverTool('read')));
    transcript.onAgentEvent({ type: 'error', kind: 'rate_limit', message: 'slow down' });
    expect(transcript.items.map((i) => i.id)).toEqual(['a1', 'tool2', 'a3']);
    expect(transcript.items[0]).not.toHaveProperty('error');
    expect(transcript.items[2]).toStrictEqual({ kind: 'assistant', id: 'a3', text: '', error: 'slow down' });
  });
});
