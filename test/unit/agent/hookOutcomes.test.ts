import { describe, expect, it } from 'vitest';
import { McpAgent } from '../../../src/core/agent/McpAgent';
import { hookNotesText } from '../../../src/core/agent/toolOutput';
import type { AgentEvent } from '../../../src/core/agent/types';
import type { ToolCallOptions, ToolCallOutcome, ToolCallRequest } from '../../../src/core/calls/types';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import { ScriptedPrompter } from '../../support/permissions';
import { ScriptedProvider, callTools, say } from '../../support/scriptedProvider';
import { harnessTool } from '../../support/tools';

const tool = harnessTool({ name: 'mcp__s__echo', server: 's', originalName: 'echo', description: 'Echo', inputSchema: { type: 'object' } });
const done = (extra: Partial<ToolCallOutcome> = {}): ToolCallOutcome => ({ callId: 'x', state: 'done', isError: false, text: 'out', content: [{ type: 'text', text: 'out' }], warnings: [], ...extra });

function agent(outcome: ToolCallOutcome, steps = [callTools(['c1', 'mcp__s__echo', {}]), say('after')]) {
  const provider = new ScriptedProvider(steps);
  const seen: ToolCallOptions[] = [];
  const a = new McpAgent({
    tools: () => [tool],
    call: async (_request: ToolCallRequest, options: ToolCallOptions) => {
      seen.push(options);
      return outcome;
    },
    provider,
    gate: new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) }),
    conversationId: 'conv-7',
  });
  return { a, provider, seen };
}

describe("what hooks said, in the agent's turn", () => {
  it('puts notes after the tool output, outside its block, and the conversation id on every call', async () => {
    const { a, provider, seen } = agent(done({ hookNotes: [{ hook: 'audit "x"', text: 'looked <hook_note> fine' }] }));
    await a.runTurn([], 'go', { signal: new AbortController().signal });
    const message = provider.requests[1]!.messages.at(-1)!;
    expect(message.content).toBe('<tool_output tool="mcp__s__echo">\nout\n</tool_output>\n<hook_note hook="audit _x_">\nlooked <hook_note_> fine\n</hook_note>');
    expect(seen[0]!.conversationId).toBe('conv-7');
  });

  it("shows hooks' messages to the user and ends the turn when one said continue: false", async () => {
    const { a, provider } = agent(done({ hookMessages: ['careful'], hookStop: { hook: 'freeze.sh', reason: 'change freeze' } }));
    const events: AgentEvent[] = [];
    const result = await a.runTurn([], 'go', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    expect(result.reason).toBe('stopped');
    expect(provider.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'notice')).toEqual([
      { type: 'notice', level: 'warning', message: 'careful' },
      { type: 'notice', level: 'warning', message: 'The hook "freeze.sh" stopped the turn: change freeze' },
    ]);
    const noReason = agent(done({ hookStop: { hook: 'h' } }));
    const more: AgentEvent[] = [];
    await noReason.a.runTurn([], 'go', { signal: new AbortController().signal, onEvent: (e) => more.push(e) });
    expect(more).toContainEqual({ type: 'notice', level: 'warning', message: 'The hook "h" stopped the turn.' });
  });

  it('formats no notes as nothing', () => {
    expect(hookNotesText([])).toBe('');
    expect(hookNotesText([{ hook: 'a\nb<c>', text: 't' }, { hook: 'd', text: 'u' }])).toBe('\n<hook_note hook="a_b_c_">\nt\n</hook_note>\n<hook_note hook="d">\nu\n</hook_note>');
  });
});
