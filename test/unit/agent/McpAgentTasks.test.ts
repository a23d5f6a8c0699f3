import { describe, expect, it } from 'vitest';
import { McpAgent } from '../../../src/core/agent/McpAgent';
import type { ChatMessage } from '../../../src/core/agent/types';
import type { McpCallOptions } from '../../../src/core/mcp/McpSession';
import { PipelineFixture } from '../../support/pipeline';
import { ScriptedProvider, callTools, say } from '../../support/scriptedProvider';

const allowAll = { decide: async () => ({ outcome: 'allow' as const, decider: { by: 'rule' as const, rule: '*' } }) };

describe('McpAgent, for calls that may outlive a turn', () => {
  it("gives each call the model's id for it, and the messages of the turn as they are added", async () => {
    const seen: McpCallOptions[] = [];
    const fx = new PipelineFixture(async (_name, _args, options) => {
      seen.push(options);
      return { isError: false, text: 'ok' };
    }).setTools('fx', [{ name: 'echo' }]);
    const provider = new ScriptedProvider([callTools(['c1', 'mcp__fx__echo', {}]), say('done')]);
    const agent = new McpAgent({ tools: () => fx.tools(), call: fx.call, provider, gate: allowAll, conversationId: 'conv' });
    const snapshots: ChatMessage[][] = [];
    await agent.runTurn([], 'go', { signal: new AbortController().signal, onMessages: (added) => snapshots.push([...added]) });
    expect(seen[0]!.task!.origin).toMatchObject({ conversationId: 'conv', modelCallId: 'c1' });
    expect(snapshots.map((s) => s.map((m) => m.role))).toEqual([['user'], ['user', 'assistant'], ['user', 'assistant', 'tool'], ['user', 'assistant', 'tool', 'assistant']]);
  });

  it('goes on from the history alone when given no text (a result that arrived later)', async () => {
    const fx = new PipelineFixture().setTools('fx', [{ name: 'echo' }]);
    const provider = new ScriptedProvider([say('thanks for the result')]);
    const agent = new McpAgent({ tools: () => fx.tools(), call: fx.call, provider, gate: allowAll });
    const history: ChatMessage[] = [
      { role: 'user', content: 'run it' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'mcp__fx__echo', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'mcp__fx__echo', content: 'late result', isError: false },
    ];
    const result = await agent.runTurn(history, undefined, { signal: new AbortController().signal });
    expect(result.messages).toEqual([{ role: 'assistant', content: 'thanks for the result' }]);
    expect(provider.requests[0]!.messages).toEqual(history);
  });
});
