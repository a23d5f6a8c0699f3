import { describe, expect, it } from 'vitest';
import { estimateMessages } from '../../../src/core/agent/contextEstimate';
import type { ChatMessage } from '../../../src/core/agent/types';
import { ChatBudget } from '../../../src/core/chat/ChatBudget';
import { ChatHistoryStore, MAX_CONVERSATIONS, type StoredConversation } from '../../../src/core/chat/ChatHistoryStore';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens } from '../../../src/core/tools/search/toolBudget';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { MemoryMemento } from '../../support/memento';

const CONVERSATION = 'mcpHarness.chat.conversation.';
const INDEX = 'mcpHarness.chat.index';

function conversation(id: string, items: ChatItem[] = [{ id: 'u1', kind: 'user', text: `hello ${id}` }], messages: ChatMessage[] = [{ role: 'user', content: `hello ${id}` }]): StoredConversation {
  return { id, title: `Title ${id}`, createdAt: 1, updatedAt: 2, items, messages };
}

describe('ChatHistoryStore', () => {
  it('starts empty, and reads an index that is not one as empty', () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    expect(store.list()).toEqual([]);
    expect(store.currentId()).toBeUndefined();
    memento.values.set(INDEX, { current: 'x', conversations: 'not a list' });
    expect(store.list()).toEqual([]);
    expect(store.currentId()).toBeUndefined();
  });

  it('lists saved conversations newest first, counting only messages of the user and the model', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    const items: ChatItem[] = [
      { id: 'u1', kind: 'user', text: 'hi' },
      { id: 't1', kind: 'tool', toolName: 'mcp__a__b', arguments: {}, state: 'done' },
      { id: 'a1', kind: 'assistant', text: 'hello' },
      { id: 'n1', kind: 'notice', level: 'info', text: 'note' },
      { id: 'g1', kind: 'usage', inputTokens: 1 },
    ];
    await store.save(conversation('one', items));
    await store.save(conversation('two'));
    expect(store.list()).toEqual([
      { id: 'two', title: 'Title two', updatedAt: 2, messageCount: 1 },
      { id: 'one', title: 'Title one', updatedAt: 2, messageCount: 2 },
    ]);
    expect(store.currentId()).toBe('two');
    // Saving one again moves it to the top, listed once.
    await store.save({ ...conversation('one', items), updatedAt: 9 });
    expect(store.list().map((c) => [c.id, c.updatedAt])).toEqual([
      ['one', 9],
      ['two', 2],
    ]);
    expect(store.load('one')).toMatchObject({ id: 'one', updatedAt: 9, items });
  });

  it('makes an empty conversation current without listing or storing it', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    await store.save(conversation('kept'));
    await store.save(conversation('empty', [], []));
    expect(store.currentId()).toBe('empty');
    expect(store.list().map((c) => c.id)).toEqual(['kept']);
    expect(memento.values.has(`${CONVERSATION}empty`)).toBe(false);
    expect(store.load('empty')).toBeUndefined();
  });

  it(`keeps the newest ${MAX_CONVERSATIONS} conversations and forgets the entries of older ones`, async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    for (let i = 0; i <= MAX_CONVERSATIONS + 1; i++) await store.save(conversation(`c${i}`));
    expect(store.list()).toHaveLength(MAX_CONVERSATIONS);
    expect(store.list()[0]!.id).toBe(`c${MAX_CONVERSATIONS + 1}`);
    expect(store.list().at(-1)!.id).toBe('c2');
    expect(memento.values.has(`${CONVERSATION}c0`)).toBe(false);
    expect(memento.values.has(`${CONVERSATION}c1`)).toBe(false);
    expect(memento.values.has(`${CONVERSATION}c2`)).toBe(true);
  });

  it('stores no attached image, only the text that names it', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'look at [image: a.png]', images: [{ mimeType: 'image/png', data: 'AAAA' }] },
      { role: 'assistant', content: 'a cat' },
      { role: 'user', content: 'and this?', images: [] },
    ];
    await store.save(conversation('img', undefined, messages));
    expect(store.load('img')!.messages).toEqual([
      { role: 'user', content: 'look at [image: a.png]' },
      { role: 'assistant', content: 'a cat' },
      { role: 'user', content: 'and this?', images: [] },
    ]);
  });

  it('skips an entry that does not parse', () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    for (const [id, value] of [
      ['text', 'garbage'],
      ['no-items', { messages: [] }],
      ['no-messages', { items: [] }],
      ['null', null],
    ] as const) {
      memento.values.set(CONVERSATION + id, value);
      expect(store.load(id)).toBeUndefined();
    }
  });

  it('reopens cards a closed window left waiting or running as cancelled, and answers their calls', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    const items: ChatItem[] = [
      { id: 'u1', kind: 'user', text: 'go' },
      { id: 't1', kind: 'tool', toolName: 'mcp__a__x', arguments: {}, state: 'running', progress: { progress: 1 } },
      { id: 't2', kind: 'tool', toolName: 'mcp__a__y', arguments: {}, state: 'waiting_for_approval', permission: { description: 'd', warnings: [] } as never },
      { id: 't3', kind: 'tool', toolName: 'mcp__a__z', arguments: {}, state: 'done', output: 'fine' },
    ];
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'mcp__a__x', arguments: '{}' }, { id: 'c3', name: 'mcp__a__z', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c3', toolName: 'mcp__a__z', content: 'fine', isError: false },
    ];
    await store.save(conversation('w', items, messages));
    const loaded = store.load('w')!;
    expect(loaded.items).toEqual([
      items[0],
      { id: 't1', kind: 'tool', toolName: 'mcp__a__x', arguments: {}, state: 'cancelled', output: 'The window closed before this call finished.' },
      { id: 't2', kind: 'tool', toolName: 'mcp__a__y', arguments: {}, state: 'cancelled', output: 'The window closed before this call finished.' },
      items[3],
    ]);
    expect(loaded.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(loaded.messages[2]).toMatchObject({ role: 'tool', toolCallId: 'c1', isError: true });
    // Nothing left open: the conversation comes back as it was saved, its calls all answered.
    await store.save(conversation('done', [items[0]!, items[3]!], messages.slice(0, 1)));
    expect(store.load('done')).toEqual(conversation('done', [items[0]!, items[3]!], messages.slice(0, 1)));
  });

  it('changes the current conversation, and forgets a deleted one (current only when it was)', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    await store.save(conversation('a'));
    await store.save(conversation('b'));
    await store.setCurrent('a');
    expect(store.currentId()).toBe('a');
    expect(store.list().map((c) => c.id)).toEqual(['b', 'a']);
    await store.delete('b');
    expect(store.currentId()).toBe('a');
    expect(store.list().map((c) => c.id)).toEqual(['a']);
    expect(memento.values.has(`${CONVERSATION}b`)).toBe(false);
    await store.delete('a');
    expect(store.currentId()).toBeUndefined();
    expect(store.list()).toEqual([]);
  });
});

describe('ChatBudget', () => {
  const messages: ChatMessage[] = [
    { role: 'user', content: 'x'.repeat(400) },
    { role: 'assistant', content: 'y'.repeat(40) },
  ];

  it('starts from the system prompt, estimated, in the default window', () => {
    const budget = new ChatBudget(undefined, 'p'.repeat(800));
    expect(budget.usedTokens).toBe(estimateTokens('p'.repeat(800)));
    expect(budget.contextWindow).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(budget.view()).toEqual({ usedTokens: budget.usedTokens, contextWindow: DEFAULT_CONTEXT_WINDOW, estimated: true });
    expect(new ChatBudget(1000).usedTokens).toBe(0);
  });

  it('takes a window the model names, whole tokens, else the default', () => {
    const budget = new ChatBudget(1000);
    budget.setContextWindow(2000.7);
    expect(budget.contextWindow).toBe(2000);
    for (const bad of [undefined, 0, -5]) {
      budget.setContextWindow(bad);
      expect(budget.contextWindow).toBe(DEFAULT_CONTEXT_WINDOW);
    }
  });

  it("follows a request's estimate, then the provider's count, which a turn's end keeps", () => {
    const budget = new ChatBudget(1000, 'system');
    budget.onAgentEvent({ type: 'request', estimate: { system: 30, tools: 20, messages: 50, total: 100 } } as never);
    expect(budget.view()).toEqual({ usedTokens: 100, contextWindow: 1000, estimated: true });
    expect(budget.fullness).toBe(0.1);
    // A count without input tokens says nothing.
    budget.onAgentEvent({ type: 'usage', outputTokens: 7 });
    expect(budget.usedTokens).toBe(100);
    budget.onAgentEvent({ type: 'usage', inputTokens: 300, outputTokens: 25 });
    expect(budget.view()).toEqual({ usedTokens: 325, contextWindow: 1000, estimated: false });
    budget.afterTurn(messages);
    expect(budget.usedTokens).toBe(325);
    budget.onAgentEvent({ type: 'usage', inputTokens: 400 });
    expect(budget.usedTokens).toBe(400);
    budget.onAgentEvent({ type: 'text', delta: 'ignored' } as never);
    expect(budget.usedTokens).toBe(400);
  });

  it('estimates the conversation on the last request\'s system prompt and tools when no count came', () => {
    const budget = new ChatBudget(1000, 'system');
    budget.onAgentEvent({ type: 'request', estimate: { system: 30, tools: 20, messages: 50, total: 100 } } as never);
    budget.afterTurn(messages);
    expect(budget.view()).toEqual({ usedTokens: Math.round(50 + estimateMessages(messages)), contextWindow: 1000, estimated: true });
    // Compaction or another conversation: estimated again even after a count.
    budget.onAgentEvent({ type: 'usage', inputTokens: 900 });
    budget.reestimate([]);
    expect(budget.view()).toEqual({ usedTokens: 50, contextWindow: 1000, estimated: true });
  });
});
