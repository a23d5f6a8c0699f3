import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryToolResultStore } from '../../../src/core/agent/results/ToolResultStore';
import type { IModelProvider, ModelRequest } from '../../../src/core/agent/types';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { askName, chatRig, heldModel, modelEntry, storeConversation, waitUntil } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';

/** Answers every request with the user messages it was sent, joined by " / ". */
function echoModel() {
  const requests: ModelRequest[] = [];
  const provider: IModelProvider = {
    id: 'user-echo',
    label: 'Echoes what users said',
    models: async () => [{ id: 'm', label: 'm' }],
    async *stream(request) {
      requests.push(request);
      yield { type: 'text', delta: request.messages.filter((m) => m.role === 'user').map((m) => m.content).join(' / ') };
      yield { type: 'end', reason: 'stop' };
    },
  };
  const sent = () => requests.map((r) => r.messages.filter((m) => m.role === 'user').map((m) => m.content).join(' / '));
  return { provider, sent };
}

const userTexts = (items: readonly ChatItem[]) => items.flatMap((i) => (i.kind === 'user' ? [i.text] : []));

afterEach(() => {
  vi.useRealTimers();
});

describe('ChatSession saving', () => {
  it('saves each turn with its messages, its title and its model, and lists it', async () => {
    const echo = echoModel();
    const { session, stored, posted } = chatRig({ model: echo.provider });
    await session.send('hello there');
    expect(stored()).toMatchObject({ title: 'Hello there', model: 'script:m', messages: [{ role: 'user', content: 'hello there' }, { role: 'assistant', content: 'hello there' }] });
    expect(posted.at(-2)).toEqual({ type: 'conversations', conversations: [expect.objectContaining({ title: 'Hello there', messageCount: 2 })] });
  });

  it('titles a conversation by its first message even when a notice comes before it', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c1', items: [{ kind: 'notice', id: 'n1', level: 'info', text: 'Welcome back' }, { kind: 'user', id: 'u2', text: 'the question' }], messages: [] });
    const { session, stored } = chatRig({ memento });
    await session.flush();
    expect(stored()!.title).toBe('The question');
    const lone = new MemoryMemento();
    await storeConversation(lone, { id: 'c2', items: [{ kind: 'notice', id: 'n1', level: 'info', text: 'Only a notice' }], messages: [] });
    const other = chatRig({ memento: lone });
    await other.session.flush();
    expect(other.stored()!.title).toBe('New chat');
    expect(other.logs).toEqual([]);
  });

  it('keeps the model a reopened conversation was given, even when it is no longer on offer', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c1', items: [{ kind: 'user', id: 'u1', text: 'hi' }], messages: [], model: 'gone:model' });
    const { session, stored } = chatRig({ memento, model: echoModel().provider });
    await session.refreshModels();
    expect(session.state().selectedModel).toBe('script:m');
    await session.flush();
    expect(stored()!.model).toBe('gone:model');
  });

  it('logs a save that fails and goes on', async () => {
    const memento = new MemoryMemento();
    memento.update = async () => {
      throw new Error('disk full');
    };
    const { session, logs, items } = chatRig({ memento });
    await session.send('/help');
    expect(items()).toHaveLength(2);
    expect(logs[0]).toBe('chat: saving the conversation failed: Error: disk full');
  });

  it('saves a running turn soon after it changes, with what the turn has added so far', async () => {
    const model = heldModel();
    const { session, stored } = chatRig({ model: model.provider });
    const turn = session.send('wait');
    await waitUntil(() => stored()?.messages.length === 1);
    expect(stored()).toMatchObject({ items: [{ kind: 'user', text: 'wait' }], messages: [{ role: 'user', content: 'wait' }] });
    model.release();
    await turn;
  });

  it('saves a turn being stopped only once it has ended, when the window closes', async () => {
    const model = heldModel(30);
    const { session, stored } = chatRig({ model: model.provider });
    const turn = session.send('wait');
    await waitUntil(() => model.requests.length === 1);
    session.stop();
    await session.flush();
    expect(stored()!.items.at(-1)).toMatchObject({ kind: 'notice', text: 'Stopped.' });
    await turn;
  });

  it('reopens a conversation with what the model saw of it', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c1', items: [{ kind: 'user', id: 'u1', text: 'earlier' }], messages: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'noted' }] });
    const echo = echoModel();
    const { session } = chatRig({ memento, model: echo.provider });
    await session.send('now');
    expect(echo.sent()).toEqual(['earlier / now']);
  });
});

describe('ChatSession Retry and Edit', () => {
  it('sends the only message once again on Retry', async () => {
    const echo = echoModel();
    const { session, handle, items } = chatRig({ model: echo.provider });
    await session.send('one');
    expect(await handle({ type: 'resend' })).toBeUndefined();
    expect(echo.sent()).toEqual(['one', 'one']);
    expect(userTexts(items())).toEqual(['one']);
  });

  it('runs a direct command again without dropping what the model saw before it', async () => {
    const echo = echoModel();
    const { session, handle, items } = chatRig({ model: echo.provider });
    await session.send('hello');
    await session.send('/help');
    expect(await handle({ type: 'resend' })).toBeUndefined();
    expect(userTexts(items())).toEqual(['hello', '/help']);
    await session.send('next');
    expect(echo.sent().at(-1)).toBe('hello / next');
    const alone = chatRig();
    await alone.session.send('/help');
    expect(await alone.handle({ type: 'resend' })).toBeUndefined();
    expect(alone.items().map((i) => i.kind)).toEqual(['user', 'assistant']);
  });

  it('sends an edited message without the spaces around it', async () => {
    const echo = echoModel();
    const { session, handle, items } = chatRig({ model: echo.provider });
    await session.send('one');
    expect(await handle({ type: 'resend', text: '  two  ' })).toBeUndefined();
    expect(userTexts(items())).toEqual(['two']);
  });

  it('retries a message sent before the window reloaded', async () => {
    const memento = new MemoryMemento();
    const echo = echoModel();
    await chatRig({ memento, model: echo.provider }).session.send('one');
    const reloaded = chatRig({ memento, model: echo.provider });
    expect(await reloaded.handle({ type: 'resend' })).toBeUndefined();
    expect(echo.sent()).toEqual(['one', 'one']);
  });
});

describe('ChatSession changing conversation', () => {
  it('sends a message typed during a second change of conversation to where that change lands', async () => {
    let release!: () => void;
    const forgetting = new Promise<void>((r) => (release = r));
    const results = Object.assign(new MemoryToolResultStore(), { deleteConversation: () => forgetting });
    const { session, handle, items } = chatRig({ extra: { results } });
    await session.send('/help');
    const first = session.state().conversationId;
    const newChat = session.newChat();
    const deleting = handle({ type: 'deleteConversation', id: first });
    await newChat;
    await new Promise((r) => setTimeout(r, 0));
    const sending = session.send('/mcp');
    release();
    expect(await deleting).toBeUndefined();
    await sending;
    expect(userTexts(items())).toEqual(['/mcp']);
  });
});

describe('ChatSession closing', () => {
  it('stops the turn and cancels the open questions when the window closes', async () => {
    const model = heldModel();
    const { session, items } = chatRig({ model: model.provider });
    const turn = session.send('wait');
    await waitUntil(() => model.requests.length === 1);
    const answer = askName(session);
    session.dispose();
    await turn;
    expect(items().at(-1)).toMatchObject({ kind: 'notice', text: 'Stopped.' });
    expect(await answer).toEqual({ action: 'cancel' });
  });

  it('drops a save still waiting when the window closes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const entry = modelEntry(echoModel().provider);
    const { session, handle, posted } = chatRig({ extra: { models: async () => ({ entries: [entry], selected: entry }) } });
    await session.refreshModels();
    await session.send('/help');
    await handle({ type: 'selectModel', model: 'script:m' });
    const saves = posted.filter((m) => m.type === 'conversations').length;
    session.dispose();
    await vi.advanceTimersByTimeAsync(1000);
    expect(posted.filter((m) => m.type === 'conversations')).toHaveLength(saves);
  });
});
