import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/core/agent/types';
import { ChatHistoryStore, type StoredConversation } from '../../../src/core/chat';
import type { FinishedTask, HarnessTask } from '../../../src/core/tasks/taskTypes';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { chatRig, heldModel, storeConversation, waitUntil } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';
import { say, ScriptedProvider } from '../../support/scriptedProvider';

const CALL = { id: 'm1', name: 'mcp__jobs__build', arguments: '{}' };
const taskCard: ChatItem = { kind: 'tool', id: 'tool2', toolName: 'mcp__jobs__build', server: 'jobs', tool: 'build', arguments: {}, state: 'running', task: { server: 'jobs', taskId: 't1', status: 'working', modelCallId: 'm1' } };
const asked: ChatMessage[] = [{ role: 'user', content: 'build it' }, { role: 'assistant', content: '', toolCalls: [CALL] }];
/** A conversation whose last call runs as task t1 on "jobs" (the window closed while it ran). */
const waiting = (id = 'c1', more: Partial<StoredConversation> = {}) => ({ id, items: [{ kind: 'user', id: 'u1', text: 'build it' } as ChatItem, taskCard], messages: asked, ...more });

function finished(conversationId: string | undefined, taskId = 't1'): FinishedTask {
  return {
    task: { server: 'jobs', taskId, kind: 'tool', title: 'Build', status: 'completed', createdAt: 0, lastUpdatedAt: 0, ...(conversationId ? { origin: { callId: 'x', conversationId, modelCallId: 'm1' } } : {}) },
    result: { content: [{ type: 'text', text: 'built' }] },
  };
}

const cardOf = (items: readonly ChatItem[]) => items.find((i) => i.id === 'tool2');
const ARRIVED = 'The result of task t1 (Build) arrived: its card above shows it.';

describe('ChatSession task results', () => {
  it('finds no card for a result without a conversation, or for a task no stored card shows', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c0', items: [{ kind: 'user', id: 'u1', text: 'hello' }], messages: [] });
    await storeConversation(memento, waiting());
    const { session, items } = chatRig({ memento });
    expect(await session.deliverTaskResult(finished(undefined))).toBe(false);
    expect(await session.deliverTaskResult(finished('nowhere'))).toBe(false);
    expect(await session.deliverTaskResult(finished('c0'))).toBe(false);
    expect(await session.deliverTaskResult(finished('c1', 't9'))).toBe(false);
    expect(cardOf(items())).toMatchObject({ state: 'running' });
    expect(new ChatHistoryStore(memento).currentId()).toBe('c1');
  });

  it('puts the result into the open card and says it arrived when no model can go on', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, waiting());
    const { session, items, stored } = chatRig({ memento });
    expect(await session.deliverTaskResult(finished('c1'))).toBe(true);
    expect(cardOf(items())).toMatchObject({ state: 'done', output: 'built', task: { status: 'completed' } });
    expect(items().at(-1)).toMatchObject({ kind: 'notice', level: 'info', text: ARRIVED });
    expect(cardOf(stored()!.items)).toMatchObject({ state: 'done', output: 'built' });
  });

  it('lets the model go on from a result that ends the conversation', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, waiting());
    const model = new ScriptedProvider([say('It built.')]);
    const { session, items, posted, stored } = chatRig({ memento, model });
    await session.refreshModels();
    posted.length = 0;
    expect(await session.deliverTaskResult(finished('c1'))).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'm1', content: expect.stringContaining('built') });
    expect(items().map((i) => i.kind)).toEqual(['user', 'tool', 'assistant', 'usage']);
    expect(items().at(-2)).toMatchObject({ text: 'It built.' });
    expect(posted.filter((m) => m.type === 'busy')).toEqual([{ type: 'busy', busy: true }, { type: 'busy', busy: false }]);
    expect(session.busy).toBe(false);
    expect(stored()!.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'It built.' });
  });

  it('only shows a result the conversation has moved past, without asking the model', async () => {
    const memento = new MemoryMemento();
    const later: ChatMessage[] = [...asked, { role: 'user', content: 'meanwhile' }, { role: 'assistant', content: 'ok' }];
    await storeConversation(memento, waiting('c1', { messages: later }));
    const model = new ScriptedProvider([]);
    const { session, items } = chatRig({ memento, model });
    await session.refreshModels();
    expect(await session.deliverTaskResult(finished('c1'))).toBe(true);
    expect(model.requests).toEqual([]);
    expect(items().at(-1)).toMatchObject({ kind: 'notice', text: ARRIVED });
  });

  it('holds a result that arrives during a turn until the turn is over', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, waiting());
    const model = heldModel();
    const { session, items } = chatRig({ memento, model: model.provider });
    await session.refreshModels();
    const turn = session.send('meanwhile');
    await waitUntil(() => model.requests.length === 1);
    expect(await session.deliverTaskResult(finished('c1'))).toBe(true);
    expect(cardOf(items())).toMatchObject({ state: 'running' });
    model.release();
    await turn;
    await waitUntil(() => items().at(-1)?.kind === 'notice');
    expect(cardOf(items())).toMatchObject({ state: 'done', output: 'built' });
    expect(items().at(-1)).toMatchObject({ text: ARRIVED });
    expect(model.requests).toHaveLength(1);
  });

  it('delivers into a stored conversation that is not open, and the open one stays current', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, waiting());
    const { session, items, posted } = chatRig({ memento });
    await session.newChat();
    const open = session.state().conversationId;
    expect(await session.deliverTaskResult(finished('c1'))).toBe(true);
    const history = new ChatHistoryStore(memento);
    const c1 = history.load('c1')!;
    expect(cardOf(c1.items)).toMatchObject({ state: 'done', output: 'built' });
    expect(c1.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'm1', content: expect.stringContaining('built'), isError: false });
    expect(c1.updatedAt).toBeGreaterThan(1);
    expect(history.currentId()).toBe(open);
    expect(items()).toEqual([]);
    expect(posted.at(-1)).toEqual({ type: 'conversations', conversations: history.list() });
  });

  it('shows how a task picked up again after a reload stands now', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, waiting());
    const { session, items } = chatRig({ memento });
    const task: HarnessTask = { server: 'jobs', taskId: 't1', kind: 'tool', title: 'Build', status: 'input_required', statusMessage: 'needs a token', createdAt: 0, lastUpdatedAt: 0, resumed: true };
    session.showTaskStates([task]);
    expect(cardOf(items())).toMatchObject({ state: 'running', task: { status: 'input_required', statusMessage: 'needs a token' } });
  });
});
