import { describe, expect, it } from 'vitest';
import { ChatClient } from '../../../webview/ChatClient';

describe('ChatClient: the context budget', () => {
  it('shows the budget init carries, each update, and none once the host clears it', () => {
    let listener: ((e: { data: unknown }) => void) | undefined;
    const client = new ChatClient({ postMessage: () => {}, getState: () => undefined, setState: () => {} }, () => {});
    client.start({ addEventListener: (_type, l) => (listener = l) });
    const receive = (data: unknown) => listener!({ data });
    const budget = { usedTokens: 120, contextWindow: 128_000, estimated: true };
    receive({ type: 'init', state: { conversationId: 'c', items: [], conversations: [], models: [], busy: false, budget } });
    expect(client.state.budget).toEqual(budget);
    receive({ type: 'budget', budget: { usedTokens: 25_000, contextWindow: 128_000, estimated: false } });
    expect(client.state.budget).toEqual({ usedTokens: 25_000, contextWindow: 128_000, estimated: false });
    receive({ type: 'budget' });
    expect(client.state.budget).toBeUndefined();
    // A malformed budget is refused like any other malformed message.
    receive({ type: 'budget', budget: { usedTokens: -1, contextWindow: 0, estimated: 'yes' } });
    expect(client.state.budget).toBeUndefined();
  });
});
