import { describe, expect, it } from 'vitest';
import type { IModelProvider } from '../../../src/core/agent/types';
import type { IAppServers } from '../../../src/core/chat/ChatApps';
import type { IAuditSink } from '../../../src/core/permissions/AuditLog';
import type { ChatSessionOptions, IChatHooks } from '../../../src/core/chat';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { chatRig, heldModel, storeConversation, waitUntil } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';
import { say, ScriptedProvider } from '../../support/scriptedProvider';

const appCard: ChatItem = { kind: 'tool', id: 'tool2', toolName: 'mcp__ui__show', server: 'ui', tool: 'show', title: 'Weather', arguments: {}, state: 'done', app: { resourceUri: 'ui://weather' } };
const FROM_APP = 'Message from the app "Weather" (sent by the app, not typed by the user):\n';

/** A chat whose open conversation has the app card of "Weather" (server "ui", tools show and refresh). */
async function appChat(o: { model?: IModelProvider; extra?: Partial<ChatSessionOptions> } = {}) {
  const memento = new MemoryMemento();
  await storeConversation(memento, { id: 'c1', items: [{ kind: 'user', id: 'u1', text: 'weather?' }, appCard], messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: 'shown' }] });
  const calledIn: Array<string | undefined> = [];
  const servers: IAppServers = {
    snapshot: (server) => (server === 'ui' ? { state: { kind: 'running' }, tools: rig.fx.tools().map((t) => ({ name: t.originalName, inputSchema: { type: 'object' as const } })) } : undefined),
    tools: () => rig.fx.tools(),
    readResource: async () => ({ contents: [] }),
    whenSettled: async () => {},
  };
  const rig = chatRig({
    memento,
    ...(o.model ? { model: o.model } : {}),
    extra: {
      apps: { servers, host: { sandboxUrl: async () => 'http://127.0.0.1:1/sandbox', openLink: async () => false } },
      call: (r, options) => (calledIn.push(options.conversationId), rig.fx.call(r, options)),
      ...o.extra,
    },
  });
  rig.fx.setTools('ui', [{ name: 'show' }, { name: 'refresh', title: 'Refresh' }]);
  return { ...rig, calledIn };
}

describe('ChatSession app requests', () => {
  it("logs what an app logs under its card's name", async () => {
    const { handle, logs } = await appChat();
    expect(await handle({ type: 'appLog', itemId: 'tool2', level: 'info', text: 'ready' })).toBeUndefined();
    expect(logs).toEqual(['app "Weather" [info]: ready']);
    expect(await handle({ type: 'appLog', itemId: 'u1', level: 'info', text: 'x' })).toBe('This app is no longer in the open conversation.');
  });

  it("sends an app's message to the model as the app's, never as a direct command, and Retry keeps it the app's", async () => {
    const model = new ScriptedProvider([say('listed'), say('listed again')]);
    const { session, handle, items } = await appChat({ model });
    await session.refreshModels();
    expect(await handle({ type: 'appMessage', itemId: 'tool2', text: '/tools' })).toBeUndefined();
    await waitUntil(() => model.requests.length === 1 && !session.busy);
    expect(items()[2]).toStrictEqual({ kind: 'user', id: 'u3', text: '/tools', from: '"Weather"' });
    expect(model.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: `${FROM_APP}/tools` });
    expect(await handle({ type: 'resend', text: '   ' })).toBeUndefined();
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['weather?', `${FROM_APP}/tools`]);
    expect(items().filter((i) => i.kind === 'user').at(-1)).toMatchObject({ text: '/tools', from: '"Weather"' });
  });

  it("refuses an app's message while a turn runs, and logs one that fails", async () => {
    const held = heldModel();
    const busy = await appChat({ model: held.provider });
    const turn = busy.session.send('wait');
    await waitUntil(() => held.requests.length === 1);
    expect(await busy.handle({ type: 'appMessage', itemId: 'tool2', text: 'hi' })).toBe("A turn is running: the app's message was not sent.");
    held.release();
    await turn;

    const broken: IChatHooks = {
      sessionStart: async () => ({ notes: [], messages: [], runs: [] }),
      userPromptSubmit: async () => {
        throw new Error('hook broke');
      },
    };
    const failing = await appChat({ model: new ScriptedProvider([]), extra: { hooks: broken } });
    expect(await failing.handle({ type: 'appMessage', itemId: 'tool2', text: 'hi' })).toBeUndefined();
    await waitUntil(() => failing.logs.length > 0);
    expect(failing.logs).toEqual(['chat: the message of the app "Weather" failed: hook broke']);
  });

  it('keeps what an app shows as a chip sent with the next message, dropped when the app clears it', async () => {
    const model = new ScriptedProvider([say('ok')]);
    const { session, handle } = await appChat({ model });
    expect(await handle({ type: 'appContext', itemId: 'tool2', text: 'Sunny, 21 degrees' })).toBeUndefined();
    expect(session.state().attachments).toMatchObject([{ label: '"Weather" (app)' }]);
    expect(await handle({ type: 'appContext', itemId: 'tool2', text: '  ' })).toBeUndefined();
    expect(session.state().attachments).toBeUndefined();
    await handle({ type: 'appContext', itemId: 'tool2', text: 'Rain, 12 degrees' });
    await session.send('what now?');
    const sent = String(model.requests[0]!.messages.at(-1)!.content);
    expect(sent).toContain('What apps in this conversation show now');
    expect(sent).toContain('<context kind="app" path="%22Weather%22 (app)">\nRain, 12 degrees\n</context>');
  });

  it("asks on a card naming the app before its call runs in this conversation", async () => {
    const audited: string[] = [];
    const audit: IAuditSink = { start: (e) => (audited.push(`start ${e.tool}`), 'a1'), end: (id, r) => void audited.push(`end ${id} ${r.outcome}`), denied: () => {} };
    const { session, handle, tools, calledIn } = await appChat({ extra: { audit } });
    const result = session.requests.appCallTool({ itemId: 'tool2', name: 'refresh', arguments: {} });
    await waitUntil(() => tools().some((t) => t.permission));
    const card = tools().find((t) => t.permission)!;
    expect(card).toMatchObject({ toolName: 'mcp__ui__refresh', caller: 'the app of "Weather"', state: 'waiting_for_approval' });
    expect(await handle({ type: 'answerPermission', callId: card.id, choice: 'once' })).toBeUndefined();
    expect(await result).toMatchObject({ content: [{ type: 'text', text: 'ran mcp__ui__refresh' }] });
    expect(calledIn).toEqual(['c1']);
    expect(audited).toEqual(['start mcp__ui__refresh', 'end a1 ok']);
  });

  it("keeps an app's card open when a turn ends meanwhile: the card is the app's, not the turn's", async () => {
    const model = new ScriptedProvider([say('hello')]);
    const { session, handle, tools } = await appChat({ model });
    await session.refreshModels();
    const result = session.requests.appCallTool({ itemId: 'tool2', name: 'refresh', arguments: {} });
    await waitUntil(() => tools().some((t) => t.permission));
    await session.send('hi');
    const card = tools().find((t) => t.permission)!;
    expect(card).toMatchObject({ caller: 'the app of "Weather"', state: 'waiting_for_approval' });
    expect(await handle({ type: 'answerPermission', callId: card.id, choice: 'once' })).toBeUndefined();
    expect(await result).toMatchObject({ content: [{ type: 'text', text: 'ran mcp__ui__refresh' }] });
  });

  it("stops an app's call in flight when the window closes", async () => {
    const { session, tools } = await appChat();
    const result = session.requests.appCallTool({ itemId: 'tool2', name: 'refresh', arguments: {} });
    await waitUntil(() => tools().some((t) => t.permission));
    session.dispose();
    expect(await result).toMatchObject({ isError: true });
  });
});
