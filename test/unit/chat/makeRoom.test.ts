import { describe, expect, it } from 'vitest';
import { MemoryToolResultStore } from '../../../src/core/agent/results';
import type { ChatMessage, IModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { ChatBudget } from '../../../src/core/chat/ChatBudget';
import { makeRoom } from '../../../src/core/chat/compactConversation';

/** A model that answers every summary request with `summary` (or fails with `error`). */
function summariser(summary: string, error?: Error): IModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 's',
    label: 'S',
    requests,
    models: async () => [],
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
      requests.push(request);
      if (error) throw error;
      yield { type: 'text', delta: summary };
      yield { type: 'end', reason: 'stop' };
    },
  };
}

const turn = (n: number, resultChars: number): ChatMessage[] => [
  { role: 'user', content: `q${n}` },
  { role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 't', arguments: '{}' }] },
  { role: 'tool', toolCallId: `c${n}`, toolName: 't', content: 'r'.repeat(resultChars), isError: false },
  { role: 'assistant', content: `a${n}` },
];

function run(messages: ChatMessage[], provider: IModelProvider, threshold: number | undefined, contextWindow = 100_000, model?: string) {
  const budget = new ChatBudget(contextWindow);
  budget.reestimate(messages);
  const marks: string[] = [];
  const done = makeRoom({
    messages,
    results: new MemoryToolResultStore(),
    conversationId: 'c',
    provider,
    ...(model ? { model } : {}),
    signal: new AbortController().signal,
    budget,
    threshold,
    mark: (level, text) => void marks.push(`${level}: ${text}`),
  });
  return { done, marks, budget };
}

describe('makeRoom', () => {
  it('stops after replacing old results once the context is under the threshold', async () => {
    const messages = [...turn(1, 50_000), ...turn(2, 10), ...turn(3, 10)];
    const model = summariser('short');
    const { done, marks, budget } = run(messages, model, 0.5);
    const kept = await done;
    expect(model.requests).toEqual([]);
    expect(kept[2]!.content).toMatch(/^\[An earlier result of t/);
    expect(kept.slice(4)).toEqual(messages.slice(4));
    expect(marks).toEqual([`info: Context: 1 older tool result was replaced by its handle (about 13k → ${budget.usedTokens.toLocaleString('en-US')} tokens).`]);
  });

  it('goes on to summarise when still past the threshold, with the model it was given', async () => {
    const messages = [...turn(1, 5_000), ...turn(2, 5_000), ...turn(3, 10), ...turn(4, 10)];
    const model = summariser('  what happened  ');
    const { done, marks } = run(messages, model, 0.0001, 100_000, 'big-model');
    const kept = await done;
    expect(marks[0]).toMatch(/^info: Context: 2 older tool results were replaced by their handles \(about [\d,]+ → [\d,]+ tokens\)\.$/);
    expect(marks[1]).toMatch(/^info: \*\*Compacted\*\* here: 8 earlier messages were summarised by the model; the last turns are kept whole/);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.model).toBe('big-model');
    expect(kept[0]!.content).toContain('<conversation_summary>\nwhat happened\n</conversation_summary>');
    expect(kept.slice(2)).toEqual(messages.slice(8));
  });

  it('summarises when the person asks, even with nothing to replace; names no model it was not given', async () => {
    const messages = [...turn(1, 10), ...turn(2, 10), ...turn(3, 10)];
    const model = summariser('');
    const { done, marks } = run(messages, model, undefined);
    const kept = await done;
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatch(/^info: \*\*Compacted\*\* here: 4 earlier messages/);
    expect('model' in model.requests[0]!).toBe(false);
    expect(kept[0]!.content).toContain('(the model gave an empty summary)');
  });

  it('keeps the messages as they were after the first step when the summary fails, and says why', async () => {
    const messages = [...turn(1, 5_000), ...turn(2, 10), ...turn(3, 10)];
    const { done, marks } = run(messages, summariser('', new Error('rate limited')), undefined);
    const kept = await done;
    expect(kept[2]!.content).toMatch(/^\[An earlier result of t/);
    expect(kept.slice(3)).toEqual(messages.slice(3));
    expect(marks.at(-1)).toBe('warning: Compacting failed, the earlier turns are kept as they were: rate limited');
  });

  it('says there is nothing to compact only when asked and nothing was replaced', async () => {
    const short = [...turn(1, 10), ...turn(2, 10)];
    const asked = run(short, summariser('x'), undefined);
    expect(await asked.done).toEqual(short);
    expect(asked.marks).toEqual(['info: Nothing to compact yet: the last turns are always kept whole.']);
    const automatic = run(short, summariser('x'), 0.5);
    expect(await automatic.done).toEqual(short);
    expect(automatic.marks).toEqual([]);
  });
});
