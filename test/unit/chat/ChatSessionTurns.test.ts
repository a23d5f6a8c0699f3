import { describe, expect, it } from 'vitest';
import type { IModelProvider } from '../../../src/core/agent/types';
import { NO_MODEL_HELP, type ChatAttachment, type IChatHooks } from '../../../src/core/chat';
import { ALLOW_ALL, chatRig, modelEntry, storeConversation } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';
import { say, ScriptedProvider } from '../../support/scriptedProvider';

const TOOLS = [{ name: 'alpha', description: 'The alpha tool' }, { name: 'beta', description: 'The beta tool' }];

/** Hooks that record how each conversation was opened and each prompt, and may warn or refuse. */
function recordingHooks(o: { warn?: string; block?: boolean } = {}) {
  const sources: string[] = [];
  const prompts: string[] = [];
  const hooks: IChatHooks = {
    sessionStart: async ({ source }) => (sources.push(source), { notes: [], messages: [], runs: [] }),
    userPromptSubmit: async ({ prompt }) => {
      prompts.push(prompt);
      return { notes: [], messages: o.warn ? [o.warn] : [], runs: [], ...(o.block ? { blocked: { hook: 'guard', reason: 'not today' } } : {}) };
    },
  };
  return { hooks, sources, prompts };
}

describe('ChatSession turns', () => {
  it('finds a model by itself for the first message and numbers what the turn shows by kind', async () => {
    const model = new ScriptedProvider([say('hello back')]);
    const { session, items } = chatRig({ model });
    await session.send('hello');
    expect(model.requests).toHaveLength(1);
    expect(items()).toStrictEqual([
      { kind: 'user', id: 'u1', text: 'hello' },
      { kind: 'assistant', id: 'a2', text: 'hello back' },
      { kind: 'usage', id: 'usage3', inputTokens: 10, outputTokens: 2 },
    ]);
  });

  it('says how to get a model when none is on offer', async () => {
    const { session, items } = chatRig();
    await session.send('hello?');
    expect(items()).toEqual([
      { kind: 'user', id: 'u1', text: 'hello?' },
      { kind: 'notice', id: 'n2', level: 'info', text: NO_MODEL_HELP },
    ]);
  });

  it('keeps the model it has rather than asking for the list again', async () => {
    const first = new ScriptedProvider([say('first')]);
    const second = new ScriptedProvider([say('second')]);
    let asked = 0;
    const entries = [modelEntry(first, 'x:first'), modelEntry(second, 'x:second')];
    const { session } = chatRig({ extra: { models: async () => ({ entries, selected: entries[asked++ === 0 ? 0 : 1] }) } });
    await session.refreshModels();
    await session.send('hi');
    expect([first.requests.length, second.requests.length]).toEqual([1, 0]);
  });

  it('answers direct commands itself even with a model, and shows /call only on its card', async () => {
    const model = new ScriptedProvider([]);
    const seen: Array<string | undefined> = [];
    const rig = chatRig({ model, gate: ALLOW_ALL, extra: { call: (r, o) => (seen.push(o.conversationId), rig.fx.call(r, o)) } });
    rig.fx.setTools('srv', TOOLS);
    await rig.session.refreshModels();
    await rig.session.send('/tools');
    expect(rig.items().at(-1)).toMatchObject({ kind: 'assistant', id: 'a2', text: expect.stringContaining('mcp__srv__alpha') });
    await rig.session.send('/call mcp__srv__beta {}');
    expect(rig.items().slice(2).map((i) => i.kind)).toEqual(['user', 'tool']);
    expect(rig.tools()[0]).toMatchObject({ state: 'done', output: expect.stringContaining('ran mcp__srv__beta') });
    expect(seen).toEqual([rig.session.state().conversationId]);
    expect(model.requests).toEqual([]);
  });

  it('shows a usage line when the provider counts only what it was sent', async () => {
    const model = new ScriptedProvider([[{ type: 'text', delta: 'ok' }, { type: 'usage', inputTokens: 7 }, { type: 'end', reason: 'stop' }]]);
    const { session, items } = chatRig({ model });
    await session.send('count');
    expect(items().at(-1)).toMatchObject({ kind: 'usage', id: 'usage3', inputTokens: 7 });
  });

  it('posts how full the context is when a request goes out and when the provider counts it', async () => {
    const model = new ScriptedProvider([say('hi')]);
    const { session, posted } = chatRig({ model });
    await session.refreshModels();
    posted.length = 0;
    await session.send('hello');
    const budgets = posted.flatMap((m) => (m.type === 'budget' ? [m.budget] : []));
    expect(budgets).toHaveLength(3);
    expect(budgets[0]).toMatchObject({ estimated: true });
    expect(budgets[1]).toEqual({ usedTokens: 12, contextWindow: 128_000, estimated: false });
    const firstAnswer = posted.findIndex((m) => m.type === 'upsert' && m.items.some((i) => i.kind === 'assistant'));
    expect(posted.findIndex((m) => m.type === 'budget')).toBeLessThan(firstAnswer);
  });

  it('switches to tool search by the configured budget and by the model\'s context window', async () => {
    const run = async (toolSearch: { maxTools?: number }, contextWindow?: number) => {
      const model = new ScriptedProvider([say('ok')]);
      const entry = modelEntry(model, 'x:m', contextWindow);
      const rig = chatRig({ extra: { models: async () => ({ entries: [entry], selected: entry }), settings: () => ({ maxSteps: 5, toolSearch, autoCompactThreshold: 0 }) } });
      rig.fx.setTools('srv', TOOLS);
      await rig.session.send('go');
      return model.requests[0]!.tools.map((t) => t.name);
    };
    expect(await run({})).toEqual(['mcp__srv__alpha', 'mcp__srv__beta']);
    expect(await run({ maxTools: 1 })).toEqual(['search_tools']);
    expect(await run({}, 200)).toEqual(['search_tools']);
  });

  it('sends an attached image to a model that takes its type', async () => {
    const model = new ScriptedProvider([say('a cat')]);
    const provider: IModelProvider = Object.assign(model, { imageTypes: () => ['image/png'] });
    const shot: ChatAttachment = { kind: 'file', label: 'cat.png', path: 'cat.png', text: '', images: [{ mimeType: 'image/png', data: 'iVBORw0K', summary: 'cat.png, PNG' }] };
    const { session, handle } = chatRig({ model: provider, extra: { pickContext: async () => shot } });
    await handle({ type: 'addContext' });
    await session.send('what is this?');
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', images: [{ mimeType: 'image/png', data: 'iVBORw0K' }] });
  });
});

describe('ChatSession hooks', () => {
  it('tells SessionStart how each conversation was opened', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c0', items: [{ kind: 'user', id: 'u1', text: 'earlier' }], messages: [] });
    await storeConversation(memento, { id: 'c9', items: [{ kind: 'user', id: 'u1', text: 'later' }], messages: [] });
    const model = new ScriptedProvider([say('1'), say('2'), say('3'), say('4')]);
    const { hooks, sources } = recordingHooks();
    const { session, handle } = chatRig({ memento, model, extra: { hooks } });
    await session.send('reopened at start');
    await session.newChat();
    await session.send('after New Chat');
    expect(await handle({ type: 'openConversation', id: 'c0' })).toBeUndefined();
    await session.send('reopened from the list');
    expect(sources).toEqual(['resume', 'clear', 'resume']);
    const fresh = recordingHooks();
    const blank = chatRig({ model: new ScriptedProvider([say('5')]), extra: { hooks: fresh.hooks } });
    await blank.session.send('first ever');
    expect(fresh.sources).toEqual(['startup']);
  });

  it('shows what a hook says as a warning, and sends nothing a hook refused', async () => {
    const model = new ScriptedProvider([say('fine')]);
    const warned = recordingHooks({ warn: 'Mind the secrets.' });
    const rig = chatRig({ model, extra: { hooks: warned.hooks } });
    await rig.session.send('hello');
    expect(warned.prompts).toEqual(['hello']);
    expect(rig.items()[1]).toEqual({ kind: 'notice', id: 'n2', level: 'warning', text: 'Mind the secrets.' });
    const refusing = recordingHooks({ block: true });
    const silent = new ScriptedProvider([]);
    const blocked = chatRig({ model: silent, extra: { hooks: refusing.hooks } });
    await blocked.session.send('rm -rf /');
    expect(silent.requests).toEqual([]);
    expect(blocked.items().at(-1)).toMatchObject({ kind: 'notice', level: 'warning', text: expect.stringContaining('"guard" refused this message: not today') });
  });
});
