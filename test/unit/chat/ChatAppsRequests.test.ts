import { describe, expect, it } from 'vitest';
import { keptAppResult, MAX_KEPT_APP_RESULT_CHARS } from '../../../src/core/chat/ChatApps';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { appsRig } from '../../support/appServers';

// What an app card may ask of the chat besides its tool calls (MCP Apps): links, messages,
// context and log lines, each under the name of the card's tool, never under what the app says.

function rigWithCard() {
  const rig = appsRig();
  rig.chat.card('card1');
  return rig;
}

const GONE = 'This app is no longer in the open conversation.';

describe('ChatApps: links an app asks to open', () => {
  it('asks the host to open a web or mail link, naming the app, and answers whether it opened', async () => {
    const rig = rigWithCard();
    const open = (url: string) => rig.apps.requests.appOpenLink({ itemId: 'card1', url });
    expect(await open('HTTPS://Example.com/a b')).toStrictEqual({ opened: true });
    expect(await open('http://example.com')).toStrictEqual({ opened: true });
    rig.agree = false;
    expect(await open('mailto:someone@example.com')).toStrictEqual({ opened: false });
    expect(rig.links).toEqual([
      { url: 'https://example.com/a%20b', app: '"Show Time"' },
      { url: 'http://example.com/', app: '"Show Time"' },
      { url: 'mailto:someone@example.com', app: '"Show Time"' },
    ]);
  });

  it('refuses other schemes and text that is not a URL without asking the host', async () => {
    const rig = rigWithCard();
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'not a url', '']) {
      expect(await rig.apps.requests.appOpenLink({ itemId: 'card1', url })).toStrictEqual({ opened: false });
    }
    expect(rig.links).toEqual([]);
  });
});

describe('ChatApps: messages, context and log lines of an app', () => {
  it("sends an app's message to the conversation as the app's", async () => {
    const rig = rigWithCard();
    await rig.apps.requests.appMessage({ itemId: 'card1', text: 'Show me Bergen too' });
    expect(rig.chat.messages).toEqual([{ text: 'Show me Bergen too', from: '"Show Time"' }]);
  });

  it("keeps an app's context under its card, labelled with the app's name", async () => {
    const rig = rigWithCard();
    await rig.apps.requests.appContext({ itemId: 'card1', text: 'It shows 10:00.' });
    await rig.apps.requests.appContext({ itemId: 'card1', text: '' });
    expect(rig.chat.contexts).toEqual([
      { key: 'app:card1', label: '"Show Time" (app)', text: 'It shows 10:00.' },
      { key: 'app:card1', label: '"Show Time" (app)', text: '' },
    ]);
  });

  it("writes an app's log line with its level, cut to 2000 characters", async () => {
    const rig = rigWithCard();
    await rig.apps.requests.appLog({ itemId: 'card1', level: 'warn', text: 'clicked' });
    await rig.apps.requests.appLog({ itemId: 'card1', level: 'info', text: `${'a'.repeat(2000)}b` });
    expect(rig.logs).toEqual(['app "Show Time" [warn]: clicked', `app "Show Time" [info]: ${'a'.repeat(2000)}`]);
  });

  it("names an app by its tool's title, else its tool's name, else the name it was called by", async () => {
    const rig = rigWithCard();
    rig.chat.card('untitled', { title: undefined });
    rig.chat.card('nameless', { title: undefined, tool: undefined, toolName: 'mcp__apps__show' });
    for (const itemId of ['card1', 'untitled', 'nameless']) await rig.apps.requests.appMessage({ itemId, text: 'hi' });
    expect(rig.chat.messages.map((m) => m.from)).toEqual(['"Show Time"', '"show"', '"mcp__apps__show"']);
  });
});

describe('ChatApps: which card an app is', () => {
  it('refuses every request of a card that is not in the open conversation', async () => {
    const { apps } = rigWithCard();
    const r = apps.requests;
    const itemId = 'card9';
    await expect(r.appOpen({ itemId })).rejects.toThrow(GONE);
    await expect(r.appCallTool({ itemId, name: 'show', arguments: {} })).rejects.toThrow(GONE);
    await expect(r.appOpenLink({ itemId, url: 'not a url' })).rejects.toThrow(GONE);
    await expect(r.appMessage({ itemId, text: 'hi' })).rejects.toThrow(GONE);
    await expect(r.appContext({ itemId, text: 'hi' })).rejects.toThrow(GONE);
    await expect(r.appLog({ itemId, level: 'info', text: 'hi' })).rejects.toThrow(GONE);
  });

  it('refuses items that are not app cards: a message, a call without an app, an app that cannot be shown, a call of no server', async () => {
    const rig = rigWithCard();
    const user: ChatItem = { id: 'user1', kind: 'user', text: 'hi' };
    rig.chat.items.set(user.id, user);
    rig.chat.card('plain', { app: undefined });
    rig.chat.card('broken', { app: { resourceUri: '', error: 'bad URI' } });
    rig.chat.card('builtin', { server: undefined });
    for (const itemId of ['user1', 'plain', 'broken', 'builtin']) {
      await expect(rig.apps.requests.appMessage({ itemId, text: 'hi' }), itemId).rejects.toThrow(GONE);
    }
    expect(rig.chat.messages).toEqual([]);
  });
});

describe('keptAppResult', () => {
  const text = (chars: number) => ({ isError: false, content: [{ type: 'text' as const, text: 'x'.repeat(chars) }] });
  const overhead = JSON.stringify({ content: [{ type: 'text', text: '' }] }).length;

  it("keeps a result's content, structured content and error flag for the app", () => {
    const content = [{ type: 'text' as const, text: 'failed' }];
    expect(keptAppResult({ isError: true, content, structuredContent: { n: 1 } })).toStrictEqual({ content, structuredContent: { n: 1 }, isError: true });
    expect(keptAppResult({ isError: false, content })).toStrictEqual({ content });
  });

  it('keeps a result of exactly the largest size, and none larger', () => {
    expect(keptAppResult(text(MAX_KEPT_APP_RESULT_CHARS - overhead))).toStrictEqual({ content: text(MAX_KEPT_APP_RESULT_CHARS - overhead).content });
    expect(keptAppResult(text(MAX_KEPT_APP_RESULT_CHARS - overhead + 1))).toBeUndefined();
  });

  it('keeps no result that cannot be written as JSON', () => {
    expect(keptAppResult({ isError: false, content: [], structuredContent: { big: 1n } })).toBeUndefined();
  });
});
