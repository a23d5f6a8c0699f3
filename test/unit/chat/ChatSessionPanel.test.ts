import { describe, expect, it } from 'vitest';
import { MemoryToolResultStore, type IToolResultStore } from '../../../src/core/agent/results/ToolResultStore';
import { Emitter } from '../../../src/core/base/event';
import { ChatRequestError, type IChatServerItems } from '../../../src/core/chat';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { ALLOW_ALL, askName, chatRig, heldModel, modelEntry, storeConversation, waitUntil, type ToolItem } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';
import { say, ScriptedProvider } from '../../support/scriptedProvider';

const card = (id: string, state: ToolItem['state'], task?: ToolItem['task']): ToolItem => ({
  kind: 'tool',
  id,
  toolName: 'mcp__srv__alpha',
  server: 'srv',
  tool: 'alpha',
  arguments: {},
  state,
  ...(task ? { task } : {}),
});

describe('ChatSession panel requests', () => {
  it('cancels a task from its card, and says why when it cannot', async () => {
    const memento = new MemoryMemento();
    const items: ChatItem[] = [
      { kind: 'user', id: 'u1', text: 'start it' },
      card('tool2', 'running', { server: 'srv', taskId: 't1', status: 'working' }),
      card('tool3', 'done', { server: 'srv', taskId: 't0', status: 'completed' }),
      card('tool4', 'done'),
    ];
    await storeConversation(memento, { id: 'c1', items, messages: [{ role: 'user', content: 'start it' }] });
    const cancelled: string[][] = [];
    const { handle } = chatRig({ memento, extra: { cancelTask: (server, taskId) => cancelled.push([server, taskId]) === 1 } });
    const notTask = 'This call does not run as a task now.';
    for (const itemId of ['missing', 'u1', 'tool3', 'tool4']) expect(await handle({ type: 'cancelTask', itemId })).toBe(notTask);
    expect(cancelled).toEqual([]);
    expect(await handle({ type: 'cancelTask', itemId: 'tool2' })).toBeUndefined();
    expect(await handle({ type: 'cancelTask', itemId: 'tool2' })).toBe('Task t1 is no longer running on srv.');
    expect(cancelled).toEqual([['srv', 't1'], ['srv', 't1']]);
    const bare = chatRig({ memento });
    expect(await bare.handle({ type: 'cancelTask', itemId: 'tool2' })).toBe('Cancelling a task is not available here.');
  });

  it('passes Insert, Copy and the notices\' buttons to the editor, and says when it cannot insert', async () => {
    const inserted: string[] = [];
    const copied: string[] = [];
    const actions: string[] = [];
    const { handle } = chatRig({ extra: { insert: async (t) => void inserted.push(t), copy: async (t) => void copied.push(t), runAction: async (a) => void actions.push(a) } });
    expect(await handle({ type: 'insert', text: 'const a = 1;' })).toBeUndefined();
    expect(await handle({ type: 'copy', text: 'npm test' })).toBeUndefined();
    expect(await handle({ type: 'action', action: 'showAuditLog' })).toBeUndefined();
    expect([inserted, copied, actions]).toEqual([['const a = 1;'], ['npm test'], ['showAuditLog']]);
    expect(await chatRig().handle({ type: 'insert', text: 'x' })).toBe('Inserting is not available here.');
  });

  it('refuses what this host does not offer: apps, context, previews, opening results', async () => {
    const { handle, session } = chatRig();
    expect(await handle({ type: 'appOpen', itemId: 'tool1' })).toBe('Apps are not shown here.');
    expect(await handle({ type: 'appLog', itemId: 'tool1', level: 'info', text: 'hi' })).toBe('Apps are not shown here.');
    expect(await handle({ type: 'addContext' })).toBe('Adding context is not available here.');
    expect(await handle({ type: 'previewChange', callId: 'tool1' })).toBe('This card is no longer waiting for an answer.');
    await expect(session.requests.answerAsk({ id: 'gone', action: 'submit', values: {} })).rejects.toBeInstanceOf(ChatRequestError);
    const h = await session.results.put(session.state().conversationId, 'mcp__srv__alpha', 'kept text');
    expect(await handle({ type: 'openResult', handle: h.handle })).toBe('This host cannot open results.');
    expect(await handle({ type: 'stop' })).toBeUndefined();
  });

  it('says a waiting write cannot be previewed where the host has no diff view', async () => {
    const { session, fx, handle, tools } = chatRig();
    fx.setTools('fs', [{ name: 'write_file', description: 'Write', inputSchema: { type: 'object' } }]);
    const turn = session.send('/call mcp__fs__write_file {"path":"/tmp/a.md","content":"x"}');
    await waitUntil(() => tools()[0]?.permission !== undefined);
    expect(await handle({ type: 'previewChange', callId: tools()[0]!.id })).toBe('Previewing a change is not available here.');
    session.stop();
    await turn;
  });

  it('shows a server\'s question beside the transcript as soon as it is asked', () => {
    const { session, posted } = chatRig();
    void askName(session);
    expect(posted.at(-1)).toMatchObject({ type: 'asks', asks: [{ kind: 'form', id: 'f1', server: 'srv' }] });
    session.dispose();
  });

  it('switches the model, shows its context window and keeps it with the conversation', async () => {
    const a = modelEntry(new ScriptedProvider([]), 'x:a');
    const b = modelEntry(new ScriptedProvider([]), 'x:b', 50_000);
    const picked: string[] = [];
    const { session, handle, posted, stored } = chatRig({ extra: { models: async () => ({ entries: [a, b], selected: a }), selectModel: async (id) => void picked.push(id) } });
    await session.refreshModels();
    expect(posted.at(-1)).toEqual({ type: 'models', models: [a.choice, b.choice], selectedModel: 'x:a' });
    expect(session.currentModel).toBe(a);
    await session.send('/help');
    expect(stored()?.model).toBe('x:a');
    expect(await handle({ type: 'selectModel', model: 'x:gone' })).toBe('The model "x:gone" is no longer on offer.');
    expect(await handle({ type: 'selectModel', model: 'x:b' })).toBeUndefined();
    expect(picked).toEqual(['x:b']);
    expect(session.currentModel).toBe(b);
    expect(posted.filter((m) => m.type === 'budget').at(-1)).toMatchObject({ budget: { contextWindow: 50_000 } });
    // Saved soon after, without waiting for the next message.
    await waitUntil(() => stored()?.model === 'x:b');
  });

  it('opens a kept result with the tool that made it, and its file when the store has one', async () => {
    const results = new MemoryToolResultStore();
    const opened: unknown[] = [];
    const { session, handle } = chatRig({ extra: { results, openResult: async (r) => void opened.push(r) } });
    expect(session.results).toBe(results);
    const id = session.state().conversationId;
    await results.put(id, 'mcp__srv__alpha', 'first');
    const second = await results.put(id, 'mcp__srv__beta', 'second text');
    expect(await handle({ type: 'openResult', handle: second.handle })).toBeUndefined();
    expect(opened).toEqual([{ handle: second.handle, toolName: 'mcp__srv__beta', text: 'second text' }]);

    const onDisk: IToolResultStore = { put: async () => second, read: async () => 'from disk', list: () => [], pathOf: () => '/results/r-0000000a.txt', deleteConversation: async () => {} };
    const other = chatRig({ extra: { results: onDisk, openResult: async (r) => void opened.push(r) } });
    expect(await other.handle({ type: 'openResult', handle: 'r-0000000a' })).toBeUndefined();
    expect(opened.at(-1)).toEqual({ handle: 'r-0000000a', toolName: 'tool', text: 'from disk', path: '/results/r-0000000a.txt' });
  });

  it('deletes another conversation and its kept results, leaving the open one on screen', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'old', items: [{ kind: 'user', id: 'u1', text: 'old one' }], messages: [] });
    const forgotten: string[] = [];
    const results: IToolResultStore = Object.assign(new MemoryToolResultStore(), { deleteConversation: async (id: string) => void forgotten.push(id) });
    const { session, handle, posted } = chatRig({ memento, extra: { results } });
    await session.newChat();
    const open = session.state().conversationId;
    expect(await handle({ type: 'deleteConversation', id: 'old' })).toBeUndefined();
    expect(session.state().conversationId).toBe(open);
    expect(forgotten).toEqual(['old']);
    expect(posted.at(-1)).toEqual({ type: 'conversations', conversations: [] });
    expect(await handle({ type: 'openConversation', id: 'old' })).toBe('That conversation is no longer stored.');
  });

  it('deletes a conversation even when its kept results cannot be removed, and logs why', async () => {
    const failing: IToolResultStore = Object.assign(new MemoryToolResultStore(), {
      deleteConversation: async () => {
        throw new Error('disk gone');
      },
    });
    const { session, handle, logs } = chatRig({ extra: { results: failing } });
    await session.send('/help');
    const first = session.state().conversationId;
    expect(await handle({ type: 'deleteConversation', id: first })).toBeUndefined();
    expect(session.state().conversationId).not.toBe(first);
    expect(logs).toEqual(['chat: removing the kept results of a conversation failed: disk gone']);
  });

  it('refuses to change or resend while a turn runs; Stop ends the turn', async () => {
    const model = heldModel();
    const { session, handle, posted } = chatRig({ model: model.provider });
    await session.refreshModels();
    const turn = session.send('wait');
    await waitUntil(() => model.requests.length === 1);
    expect([session.busy, session.state().busy]).toEqual([true, true]);
    expect(posted).toContainEqual({ type: 'busy', busy: true });
    const id = session.state().conversationId;
    const stopFirst = 'Stop the running turn first.';
    expect(await handle({ type: 'newChat' })).toBe(stopFirst);
    expect(await handle({ type: 'openConversation', id })).toBe(stopFirst);
    expect(await handle({ type: 'deleteConversation', id })).toBe(stopFirst);
    expect(await handle({ type: 'compact' })).toBe(stopFirst);
    expect(await handle({ type: 'send', text: 'more' })).toBe('A turn is still running: stop it first.');
    expect(await handle({ type: 'resend' })).toBe('A turn is still running: stop it first.');
    expect(session.state().items).toMatchObject([{ kind: 'user', text: 'wait' }]);
    expect(await handle({ type: 'stop' })).toBeUndefined();
    await turn;
    expect(session.busy).toBe(false);
    expect(await handle({ type: 'newChat' })).toBeUndefined();
    expect(session.state().conversationId).not.toBe(id);
  });

  it('opens a resource a result embedded as it came, without asking its server', async () => {
    const opened: Array<{ server: string; uri: string; label: string }> = [];
    const { session, fx, handle, tools } = chatRig({
      gate: ALLOW_ALL,
      handler: async () => ({ content: [{ type: 'resource', resource: { uri: 'file:///data.bin', blob: 'AAEC', mimeType: 'application/octet-stream' } }] }),
      extra: { openResource: async (r) => void opened.push(r) },
    });
    fx.setTools('srv', [{ name: 'fetch' }]);
    await session.send('/call mcp__srv__fetch {}');
    expect(tools()[0]?.resourceLinks).toHaveLength(1);
    expect(await handle({ type: 'openResource', server: 'srv', uri: 'file:///data.bin' })).toBeUndefined();
    expect(opened).toMatchObject([{ server: 'srv', uri: 'file:///data.bin', label: 'data.bin' }]);
    expect(await handle({ type: 'openResource', server: 'srv', uri: 'file:///other.bin' })).toBe("Servers' prompts and resources are not available here.");
  });
});

describe('ChatSession context chips', () => {
  it('logs a resource whose updates cannot be followed, and keeps it attached', async () => {
    const items = {
      snapshots: () => [{ name: 'srv', capabilities: { resources: { subscribe: true } } }],
      subscribeResource: async () => {
        throw new Error('no subscriptions today');
      },
      onDidUpdateResource: new Emitter<{ server: string; uri: string }>().event,
    } as unknown as IChatServerItems;
    const pick = { kind: 'resource' as const, label: 'notes', path: 'mem://notes', text: 'n', server: 'srv' };
    const { session, handle, logs } = chatRig({ extra: { serverItems: items, pickContext: async () => pick } });
    expect(await handle({ type: 'addContext' })).toBeUndefined();
    expect(logs).toEqual(['chat: subscribing to mem://notes of srv failed: no subscriptions today']);
    expect(session.state().attachments).toEqual([{ id: 'ctx1', label: 'notes' }]);
    session.dispose();
  });
});

describe('ChatSession model choice', () => {
  it('reopens a conversation with its own model even when another is the default', async () => {
    const memento = new MemoryMemento();
    const a = modelEntry(new ScriptedProvider([say('from a')]), 'x:a');
    const b = modelEntry(new ScriptedProvider([say('from b')]), 'x:b');
    await storeConversation(memento, { id: 'c1', items: [{ kind: 'user', id: 'u1', text: 'hi' }], messages: [], model: 'x:b' });
    const { session, items } = chatRig({ memento, extra: { models: async () => ({ entries: [a, b], selected: a }) } });
    await session.refreshModels();
    expect(session.state().selectedModel).toBe('x:b');
    await session.send('again');
    expect(items().at(-2)).toMatchObject({ kind: 'assistant', text: 'from b' });
  });
});
