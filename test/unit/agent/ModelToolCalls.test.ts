import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVERSATION, ModelToolCalls } from '../../../src/core/agent/ModelToolCalls';
import { MemoryToolResultStore } from '../../../src/core/agent/results';
import type { AgentEvent } from '../../../src/core/agent/types';
import type { ToolCallOptions, ToolCallOutcome } from '../../../src/core/calls/types';
import type { HarnessTool } from '../../../src/core/tools/types';
import { PipelineFixture } from '../../support/pipeline';
import { harnessTool } from '../../support/tools';

// One model tool call through the pipeline: which tools it may reach, what the card learns of the
// result's resources, and what the model reads when a result is kept whole.

const allowAll = { decide: async () => ({ outcome: 'allow' as const, decider: { by: 'rule' as const, rule: '*' } }) };
const signal = new AbortController().signal;
const serverTool = harnessTool({ name: 'mcp__s__res', server: 's', originalName: 'res', description: '', inputSchema: { type: 'object' } });
const outcome = (extra: Partial<ToolCallOutcome> = {}): ToolCallOutcome => ({ callId: 'x', state: 'done', isError: false, text: 'out', content: [], warnings: [], tool: serverTool, ...extra });

/** Runs one call whose pipeline answers `result` (reporting a card only when `card` is set). */
async function runWith(result: ToolCallOutcome, options: { card?: boolean; results?: MemoryToolResultStore; conversationId?: string } = {}) {
  const seen: ToolCallOptions[] = [];
  const calls = new ModelToolCalls({
    call: async (_request, callOptions) => {
      seen.push(callOptions);
      if (options.card) callOptions.onEvent?.({ callId: 'x', toolName: 'mcp__s__res', arguments: {}, state: 'done', output: result.text });
      return result;
    },
    decider: allowAll,
    tools: () => [serverTool],
    ...(options.results ? { results: options.results } : {}),
    ...(options.conversationId ? { conversationId: () => options.conversationId } : {}),
  });
  const events: AgentEvent[] = [];
  const ran = await calls.run({ id: 'c1', name: 'mcp__s__res', arguments: '{}' }, signal, (e) => events.push(e));
  return { ...ran, events, seen };
}

async function linksOf(content: unknown[]) {
  const { events } = await runWith(outcome({ content: content as never }), { card: true });
  const last = events.at(-1);
  return last?.type === 'tool_call' ? last.resourceLinks : undefined;
}

describe('the resources a result offers its card', () => {
  it('keeps the title, description and type of a link, and names it by its URI when its name is empty or not text', async () => {
    expect(
      await linksOf([
        { type: 'resource_link', uri: 'x://a', name: 'a', title: 'The A', description: 'first', mimeType: 'text/markdown' },
        { type: 'resource_link', uri: 'x://b', name: '', title: '', description: 7, mimeType: '' },
        { type: 'resource_link', uri: 'x://c', name: 42, title: ['t'] },
      ]),
    ).toStrictEqual([
      { uri: 'x://a', name: 'a', title: 'The A', description: 'first', mimeType: 'text/markdown' },
      { uri: 'x://b', name: 'x://b' },
      { uri: 'x://c', name: 'x://c' },
    ]);
  });

  it('offers only resource_link blocks as links and only resource blocks as embedded', async () => {
    expect(
      await linksOf([
        { type: 'text', text: 'see', uri: 'x://not-a-link' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png', resource: { uri: 'x://not-embedded', blob: 'AAAA' } },
      ]),
    ).toBeUndefined();
  });

  it('skips an embedded resource whose URI is not text, and leaves out a mime type that is empty or not text', async () => {
    expect(
      await linksOf([
        { type: 'resource', resource: { uri: 42, blob: 'AAAA' } },
        { type: 'resource', resource: { uri: 'x://d/one.bin', blob: 'AAAA', mimeType: '' } },
        { type: 'resource', resource: { uri: 'x://d/two.bin', blob: 'AAAA', mimeType: 5 } },
      ]),
    ).toStrictEqual([
      { uri: 'x://d/one.bin', name: 'one.bin', description: 'embedded in the result, 3 B', embedded: { uri: 'x://d/one.bin', blob: 'AAAA' } },
      { uri: 'x://d/two.bin', name: 'two.bin', description: 'embedded in the result, 3 B', embedded: { uri: 'x://d/two.bin', blob: 'AAAA' } },
    ]);
  });

  it('names an embedded resource by the last part of its path, without query, fragment or trailing slashes', async () => {
    const names = (await linksOf([
      { type: 'resource', resource: { uri: 'file:///r/q3.pdf?version=12', blob: '' } },
      { type: 'resource', resource: { uri: 'file:///r/q4.pdf#page=20', blob: '' } },
      { type: 'resource', resource: { uri: 'x://r/docs//', blob: '' } },
    ]))!.map((l) => l.name);
    expect(names).toEqual(['q3.pdf', 'q4.pdf', 'docs']);
  });

  it('offers no resources from a result that is not a server tool’s', async () => {
    const builtin = { ...serverTool, server: undefined, name: 'own' };
    const { events } = await runWith(outcome({ tool: builtin, content: [{ type: 'resource_link', uri: 'x://a', name: 'a' }] }), { card: true });
    expect(events).toHaveLength(1);
    expect(events[0]).not.toHaveProperty('resourceLinks');
  });

  it('offers nothing for a result without content', async () => {
    const { events } = await runWith(outcome({ content: undefined as never }), { card: true });
    expect(events).toEqual([{ type: 'tool_call', modelCallId: 'c1', callId: 'x', toolName: 'mcp__s__res', arguments: {}, state: 'done', output: 'out' }]);
  });
});

describe('a result over the output cap', () => {
  const big = 'x'.repeat(300);
  const over = outcome({ text: `${big.slice(0, 100)} [cut]`, fullText: big, shownChars: 100 });

  it('reaches the model as the pipeline cut it when nothing keeps results', async () => {
    const { message } = await runWith(over);
    expect(message.content).toBe(`<tool_output tool="mcp__s__res">\n${big.slice(0, 100)} [cut]\n</tool_output>`);
  });

  it('is kept whole under the default conversation when the host names none', async () => {
    const results = new MemoryToolResultStore();
    const { message } = await runWith(over, { results });
    const [kept] = results.list(DEFAULT_CONVERSATION);
    expect(DEFAULT_CONVERSATION).toBe('default');
    expect(kept).toMatchObject({ toolName: 'mcp__s__res', chars: 300 });
    expect(message.content).toContain(`"${kept!.handle}"`);
  });

  it('tells no card about the kept result when the pipeline reported none', async () => {
    const results = new MemoryToolResultStore();
    const { events } = await runWith(over, { results, conversationId: 'conv' });
    expect(results.list('conv')).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it('keeps nothing when the result was not cut, or the pipeline said only how much it showed', async () => {
    const results = new MemoryToolResultStore();
    const small = await runWith(outcome(), { results, conversationId: 'conv' });
    const partial = await runWith(outcome({ shownChars: 2 }), { results, conversationId: 'conv' });
    const whole = await runWith(outcome({ fullText: 'out' }), { results, conversationId: 'conv' });
    expect(results.list('conv')).toEqual([]);
    for (const run of [small, partial, whole]) expect(run.message.content).toBe('<tool_output tool="mcp__s__res">\nout\n</tool_output>');
  });
});

describe('the calls a chat may make', () => {
  it('gives the pipeline no conversation id when the host names none', async () => {
    const { seen } = await runWith(outcome());
    expect(seen[0]).not.toHaveProperty('conversationId');
    const named = await runWith(outcome(), { conversationId: 'conv' });
    expect(named.seen[0]!.conversationId).toBe('conv');
  });

  it('reaches only the enabled tools, told apart by server and original name', async () => {
    const fx = new PipelineFixture(async () => ({ isError: false, text: 'ran' })).setTools('fx', [{ name: 'echo' }, { name: 'add' }]).setTools('gx', [{ name: 'echo' }]);
    const run = async (enabled: (t: HarnessTool) => boolean) => {
      const calls = new ModelToolCalls({ call: fx.call, decider: allowAll, tools: () => fx.tools().filter(enabled) });
      return (await calls.run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, signal, () => {})).outcome.text;
    };
    expect(await run((t) => t.name === 'mcp__gx__echo')).toContain('unknown tool "mcp__fx__echo"');
    expect(await run((t) => t.name === 'mcp__fx__add')).toContain('unknown tool "mcp__fx__echo"');
    expect(await run((t) => t.name === 'mcp__fx__echo')).toBe('ran');
    expect(fx.calls.map((c) => `${c.server}/${c.tool}`)).toEqual(['fx/echo']);
  });
});
