import { describe, expect, it } from 'vitest';
import { ChatClient } from '../../../webview/ChatClient';

function setup() {
  const posted: unknown[] = [];
  const logs: string[] = [];
  let listener: ((e: { data: unknown }) => void) | undefined;
  const client = new ChatClient({ postMessage: (m) => posted.push(m), getState: () => undefined, setState: () => {} }, (l) => logs.push(l));
  client.start({ addEventListener: (_type, l) => (listener = l) });
  const receive = (data: unknown) => listener!({ data });
  return { client, posted, logs, receive };
}

const init = { type: 'init', state: { conversationId: 'c', items: [], conversations: [], models: [], busy: false } };

describe('ChatClient (the panel side of the message map)', () => {
  it('says ready first, then numbers its requests and resolves them with the answer of the same seq', async () => {
    const { client, posted, receive } = setup();
    expect(posted).toEqual([{ type: 'ready' }]);
    const first = client.request({ type: 'send', text: 'hi' });
    const second = client.request({ type: 'stop' });
    expect(posted.slice(1)).toEqual([{ type: 'send', text: 'hi', seq: 1 }, { type: 'stop', seq: 2 }]);
    receive({ type: 'response', seq: 2, ok: true });
    receive({ type: 'response', seq: 1, ok: false, error: 'busy' });
    expect(await first).toEqual({ ok: false, error: 'busy' });
    expect(await second).toEqual({ ok: true, error: undefined });
  });

  it('builds the transcript from init, upserts and streamed text', () => {
    const { client, receive } = setup();
    const changes: string[] = [];
    client.onDidChange((t) => changes.push(t));
    receive(init);
    receive({ type: 'upsert', items: [{ kind: 'user', id: 'u1', text: 'hi' }, { kind: 'assistant', id: 'a1', text: '' }] });
    receive({ type: 'append', id: 'a1', delta: 'Hel' });
    receive({ type: 'append', id: 'a1', delta: 'lo' });
    receive({ type: 'upsert', items: [{ kind: 'user', id: 'u1', text: 'hi!' }] });
    expect(client.state.items).toEqual([{ kind: 'user', id: 'u1', text: 'hi!' }, { kind: 'assistant', id: 'a1', text: 'Hello' }]);
    expect(changes).toEqual(['init', 'upsert', 'append', 'append', 'upsert']);
  });

  it('drops unknown and malformed messages with a log line, changing nothing', () => {
    const { client, logs, receive } = setup();
    receive(init);
    const before = client.state;
    receive({ type: 'eval', code: 'alert(1)' });
    receive({ type: 'upsert', items: [{ kind: 'tool', id: 't', toolName: 'x', arguments: {}, state: 'exploded' }] });
    receive({ type: 'append', id: 'nope', delta: 'x' });
    receive('not even an object');
    expect(client.state).toBe(before);
    expect(logs).toEqual([
      'chat: dropped a message from the extension: message.type is unknown ("eval")',
      'chat: dropped a message from the extension: message.items[0].state must be one of waiting_for_approval, running, done, error, denied, cancelled',
      'chat: dropped text for unknown message nope',
      'chat: dropped a message from the extension: message must be an object',
    ]);
  });

  it('keeps the servers\' questions the host sends beside the transcript, and drops malformed ones', () => {
    const { client, logs, receive } = setup();
    receive(init);
    const ask = { kind: 'url', id: 'u1', server: 's', message: 'Sign in', url: 'https://a.example/x', host: 'a.example' };
    receive({ type: 'asks', asks: [ask] });
    expect(client.state.asks).toEqual([ask]);
    expect(client.state.items).toEqual([]);
    receive({ type: 'asks', asks: [{ kind: 'form', id: 'f1', server: 's', message: 'x', fields: [{ name: 'n' }] }] });
    expect(client.state.asks).toEqual([ask]);
    expect(logs.at(-1)).toMatch(/dropped a message/);
    receive({ type: 'asks', asks: [] });
    expect(client.state.asks).toEqual([]);
  });
});

describe('ChatClient and the frames of MCP Apps', () => {
  it("takes messages only from the host's origin: an app's forged ones are dropped with one log line", () => {
    const logs: string[] = [];
    let listener: ((e: { data: unknown; origin?: string }) => void) | undefined;
    const client = new ChatClient({ postMessage: () => undefined, getState: () => undefined, setState: () => {} }, (l) => logs.push(l));
    client.start({ addEventListener: (_type, l) => (listener = l) }, 'vscode-webview://host');
    const forged = { type: 'upsert', items: [{ kind: 'notice', id: 'n', level: 'error', text: 'FORGED' }] };
    listener!({ data: init, origin: 'vscode-webview://host' });
    listener!({ data: forged, origin: 'null' });
    listener!({ data: forged, origin: 'http://127.0.0.1:4000' });
    expect(client.state.items).toEqual([]);
    expect(logs).toEqual(['chat: dropped a message from another frame (null); such messages are ignored']);
    listener!({ data: forged, origin: 'vscode-webview://host' });
    expect(client.state.items).toHaveLength(1);
  });
});
