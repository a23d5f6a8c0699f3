import { describe, expect, it } from 'vitest';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/parseChatMessage';

describe('parseWebviewMessage', () => {
  it('accepts every message the panel sends', () => {
    const messages = [
      { type: 'ready' },
      { type: 'send', seq: 1, text: 'hello' },
      { type: 'stop', seq: 2 },
      { type: 'newChat', seq: 3 },
      { type: 'openConversation', seq: 4, id: 'c1' },
      { type: 'deleteConversation', seq: 5, id: 'c1' },
      { type: 'answerPermission', seq: 6, callId: 'call_1', choice: 'deny', reason: 'not now' },
      { type: 'selectModel', seq: 7, model: 'openai:gpt' },
      { type: 'action', seq: 8, action: 'setApiKey' },
      { type: 'copy', seq: 9, text: 'code' },
    ];
    for (const m of messages) expect(parseWebviewMessage(m)).toEqual({ ok: true, value: m });
  });

  it.each([
    [null, 'message must be an object'],
    [{ type: 'runCommand', seq: 1, command: 'workbench.action.terminal.new' }, 'message.type is unknown ("runCommand")'],
    [{ type: 'send', text: 'no seq' }, 'message.seq must be an integer >= 0'],
    [{ type: 'send', seq: -1, text: 'x' }, 'message.seq must be an integer >= 0'],
    [{ type: 'send', seq: 1, text: 42 }, 'message.text must be a string'],
    [{ type: 'answerPermission', seq: 1, callId: 'c', choice: 'always' }, 'message.choice must be one of once, session, workspace, server_session, deny'],
    [{ type: 'action', seq: 1, action: 'runShell' }, 'message.action must be one of setApiKey, openSettings, showAuditLog, resetApprovals'],
    [{ type: '__proto__', seq: 1 }, 'message.type is unknown ("__proto__")'],
  ])('drops %j with the field at fault', (data, error) => {
    expect(parseWebviewMessage(data)).toEqual({ ok: false, error });
  });

  it('refuses text over the size limit', () => {
    const result = parseWebviewMessage({ type: 'send', seq: 1, text: 'x'.repeat(1_000_001) });
    expect(result.ok).toBe(false);
  });
});

describe('parseHostMessage', () => {
  it('accepts an init with every kind of item', () => {
    const m = {
      type: 'init',
      state: {
        conversationId: 'c1',
        busy: false,
        models: [{ id: 'openai:demo', label: 'Demo model (offline, scripted)' }],
        selectedModel: 'openai:demo',
        conversations: [{ id: 'c1', title: 'Hi', updatedAt: 1, messageCount: 2 }],
        items: [
          { kind: 'user', id: 'u1', text: 'hi' },
          { kind: 'assistant', id: 'a1', text: 'hello', error: 'connection dropped' },
          {
            kind: 'tool', id: 'call_1', toolName: 'mcp__s__t', server: 's', tool: 't', arguments: { a: 1 }, state: 'waiting_for_approval',
            permission: { description: 'd', annotations: { readOnlyHint: true }, warnings: [{ where: 'description', kind: 'instructions', excerpt: 'ignore previous' }] },
          },
          { kind: 'usage', id: 'usage1', inputTokens: 10, outputTokens: 3 },
          { kind: 'notice', id: 'n1', level: 'error', text: 'API key rejected by api.example', action: { id: 'setApiKey', label: 'Set API Key' } },
        ],
      },
    };
    expect(parseHostMessage(m)).toEqual({ ok: true, value: m });
  });

  it('names the nested field at fault', () => {
    const result = parseHostMessage({ type: 'upsert', items: [{ kind: 'tool', id: 'c', toolName: 't', arguments: {}, state: 'exploded' }] });
    expect(result).toEqual({ ok: false, error: 'message.items[0].state must be one of waiting_for_approval, running, done, error, denied, cancelled' });
  });
});
