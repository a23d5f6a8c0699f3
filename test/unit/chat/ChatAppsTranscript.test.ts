import { describe, expect, it } from 'vitest';
import { MAX_KEPT_APP_RESULT_CHARS } from '../../../src/core/chat/ChatApps';
import { withContext } from '../../../src/core/chat/ChatContext';
import { ChatTranscript } from '../../../src/core/chat/ChatTranscript';
import type { AgentEvent } from '../../../src/core/agent/types';
import type { HarnessTool } from '../../../src/core/tools/types';
import type { HostMessage } from '../../../src/shared/chatProtocol';

const tool = (name: string): HarnessTool => ({ name: `mcp__s__${name}`, description: '', inputSchema: { type: 'object' }, server: 's', originalName: name, pin: 'p' });
const ui = { uiOf: (t: HarnessTool) => (t.originalName === 'show' ? { resourceUri: 'ui://s/app.html' } : t.originalName === 'broken' ? { error: 'bad URI' } : undefined) };
const call = (name: string, patch: Partial<Extract<AgentEvent, { type: 'tool_call' }>> = {}): AgentEvent => ({ type: 'tool_call', modelCallId: 'm', callId: `c-${name}`, toolName: `mcp__s__${name}`, tool: tool(name), arguments: {}, state: 'done', ...patch });

describe('app cards in the transcript (MCP Apps)', () => {
  it("marks calls of tools with a UI, keeping the call's result for the app", () => {
    const posted: HostMessage[] = [];
    const t = new ChatTranscript('c', [], (m) => posted.push(m), undefined, ui);
    t.onAgentEvent(call('show', { state: 'running' }));
    t.onAgentEvent(call('show', { result: { isError: false, content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } } }));
    t.onAgentEvent(call('plain'));
    t.onAgentEvent(call('broken'));
    const [shown, plain, broken] = t.items;
    expect(shown).toMatchObject({ kind: 'tool', state: 'done', app: { resourceUri: 'ui://s/app.html', result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } } } });
    expect(plain).not.toHaveProperty('app');
    expect(broken).toMatchObject({ app: { resourceUri: '', error: 'bad URI' } });
    expect(t.item(shown!.id)).toBe(shown);
  });

  it("keeps no result too large to store, and shows an app's own calls with their caller and no second app", () => {
    const t = new ChatTranscript('c', [], () => undefined, undefined, ui);
    t.onAgentEvent(call('show', { result: { isError: false, content: [{ type: 'text', text: 'x'.repeat(MAX_KEPT_APP_RESULT_CHARS) }] } }));
    t.onAgentEvent(call('show', { callId: 'again', caller: 'the app of "Show"', result: { isError: false, content: [] } }));
    expect(t.items[0]).toMatchObject({ app: { resourceUri: 'ui://s/app.html' } });
    expect(t.items[0]).not.toHaveProperty('app.result');
    expect(t.items[1]).toMatchObject({ caller: 'the app of "Show"' });
    expect(t.items[1]).not.toHaveProperty('app');
  });
});

describe("apps' context for the model", () => {
  it("goes after the user's attachments, labelled as the apps' and not the user's", () => {
    const text = withContext('q', [
      { kind: 'app', label: '"Clock" (app)', path: '"Clock" (app)', text: 'shows 10:00' },
      { kind: 'file', label: 'a.ts', path: 'a.ts', text: 'code' },
    ]);
    expect(text).toBe(
      'q\n\nAttached by the user:\n\n<context kind="file" path="a.ts">\ncode\n</context>\n\nWhat apps in this conversation show now (kept by each app, not written by the user):\n\n<context kind="app" path="%22Clock%22 (app)">\nshows 10:00\n</context>',
    );
  });
});
