import { describe, expect, it } from 'vitest';
import { MemoryToolResultStore } from '../../../src/core/agent/results';
import type { IModelProvider, ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { ChatHistoryStore, ChatSession } from '../../../src/core/chat';
import { compactConversation, elideOldResults, keptFrom, SUMMARY_SYSTEM_PROMPT, transcriptForSummary } from '../../../src/core/chat/compactConversation';
import type { ChatContextBudget, ChatItem, HostMessage } from '../../../src/shared/chatProtocol';
import { ALLOW_ALL, sessionDefaults } from '../../support/chatSessionRig';
import { PipelineFixture } from '../../support/pipeline';
import { MemoryMemento } from '../../support/memento';

// The chat's context budget, large results kept for the conversation, and compaction.

const BIG = { name: 'big', description: 'A large report', inputSchema: { type: 'object', properties: {} }, _meta: { 'anthropic/maxResultSizeChars': 3000 } };
const report = Array.from({ length: 400 }, (_, i) => `report line ${i + 1}`).join('\n');

/**
 * A model that calls `big` when asked to "fetch", answers each other message at length, reports
 * usage when `usage` is on, and summarises when asked with the summary prompt.
 */
class ChattyModel implements IModelProvider {
  readonly id = 'chatty';
  readonly label = 'Chatty';
  readonly requests: ModelRequest[] = [];
  usage = false;
  failSummary = false;
  async models() {
    return [{ id: 'm', label: 'm' }];
  }
  async *stream(request: ModelRequest): AsyncIterable<ModelStreamEvent> {
    this.requests.push(request);
    if (request.system === SUMMARY_SYSTEM_PROMPT) {
      if (this.failSummary) throw new Error('the model is overloaded');
      yield { type: 'text', delta: 'SUMMARY: the user fetched a report.' };
      yield { type: 'end', reason: 'stop' };
      return;
    }
    const last = request.messages.at(-1)!;
    if (last.role === 'user' && last.content.startsWith('fetch')) {
      yield { type: 'tool_call', call: { id: `c${this.requests.length}`, name: 'mcp__srv__big', arguments: '{}' } };
      yield { type: 'end', reason: 'tool_calls' };
      return;
    }
    yield { type: 'text', delta: `answer ${'z'.repeat(2000)}` };
    if (this.usage) yield { type: 'usage', inputTokens: 1234, outputTokens: 56 };
    yield { type: 'end', reason: 'stop' };
  }
}

function setup(options: { contextWindow?: number; autoCompactThreshold?: number } = {}) {
  const model = new ChattyModel();
  const posted: HostMessage[] = [];
  const opened: Array<{ handle: string; text: string; path?: string }> = [];
  const results = new MemoryToolResultStore();
  const fx = new PipelineFixture(async () => ({ isError: false, text: report })).setTools('srv', [BIG]);
  const entry = { choice: { id: 'chatty:m', label: 'Chatty' }, provider: model, model: 'm', ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}) };
  const session = new ChatSession({
    ...sessionDefaults(posted),
    enabledTools: () => fx.tools(),
    call: fx.call,
    gate: ALLOW_ALL,
    history: new ChatHistoryStore(new MemoryMemento()),
    models: async () => ({ entries: [entry], selected: entry }),
    settings: () => ({ maxSteps: 5, toolSearch: {}, autoCompactThreshold: options.autoCompactThreshold ?? 0 }),
    results,
    openResult: async (r) => void opened.push(r),
  });
  const budgets = () => posted.flatMap((m) => (m.type === 'budget' && m.budget ? [m.budget] : []));
  return { session, model, posted, opened, results, budgets };
}

const notices = (items: readonly ChatItem[]) => items.flatMap((i) => (i.kind === 'notice' ? [i.text] : []));

describe('the context budget', () => {
  it('grows with the conversation, estimated until the provider counts, then its count', async () => {
    const { session, model, budgets } = setup({ contextWindow: 50_000 });
    await session.refreshModels();
    const start = session.state().budget!;
    expect(start).toMatchObject({ contextWindow: 50_000, estimated: true });
    // Before any request: the system prompt alone, estimated.
    expect(start.usedTokens).toBeGreaterThan(20);
    await session.send('hello');
    const afterOne: ChatContextBudget = session.budget();
    expect(afterOne.estimated).toBe(true);
    expect(afterOne.usedTokens).toBeGreaterThan(start.usedTokens + 500);
    await session.send('again');
    expect(session.budget().usedTokens).toBeGreaterThan(afterOne.usedTokens + 500);
    model.usage = true;
    await session.send('count it');
    expect(session.budget()).toEqual({ usedTokens: 1234 + 56, contextWindow: 50_000, estimated: false });
    expect(budgets().length).toBeGreaterThan(3);
  });
});

describe('large results in the chat', () => {
  it('keeps a result over the cap for the conversation, opens it, and forgets it with the conversation', async () => {
    const { session, opened, results } = setup();
    await session.refreshModels();
    await session.send('fetch the report');
    const card = session.state().items.find((i): i is Extract<ChatItem, { kind: 'tool' }> => i.kind === 'tool')!;
    expect(card.result).toEqual({ handle: expect.stringMatching(/^r-[0-9a-f]{8}$/), chars: report.length, lines: 400 });
    await session.requests.openResult({ handle: card.result!.handle });
    expect(opened).toEqual([{ handle: card.result!.handle, toolName: 'mcp__srv__big', text: report }]);
    await expect(session.requests.openResult({ handle: 'r-00000000' })).rejects.toThrow('The result "r-00000000" is no longer kept.');
    const id = session.state().conversationId;
    await session.requests.deleteConversation({ id });
    expect(results.list(id)).toEqual([]);
  });
});

describe('compaction', () => {
  it('replaces older tool results by their handles, summarises the earlier turns, keeps the last two whole, and marks it', async () => {
    const { session, model } = setup({ contextWindow: 100_000 });
    await session.refreshModels();
    await session.send('fetch the report');
    await session.send('first question');
    await session.send('second question');
    await session.send('third question');
    const before = session.budget().usedTokens;
    await session.compact();
    const after = session.budget().usedTokens;
    expect(after).toBeLessThan(before / 2);
    const marks = notices(session.state().items);
    expect(marks[0]).toMatch(/^Context: 1 older tool result was replaced by its handle/);
    expect(marks[1]).toMatch(/^\*\*Compacted\*\* here: \d+ earlier messages were summarised by the model; the last turns are kept whole/);
    // The summary request quoted the earlier turns; the next request carries the summary and the last two turns whole.
    const summaryRequest = model.requests.find((r) => r.system === SUMMARY_SYSTEM_PROMPT)!;
    expect(summaryRequest.tools).toEqual([]);
    expect(summaryRequest.messages[0]!.content).toContain('USER:\nfetch the report');
    await session.send('fourth question');
    const next = model.requests.at(-1)!;
    expect(next.messages[0]!.content).toContain('SUMMARY: the user fetched a report.');
    expect(next.messages.filter((m) => m.role === 'user').map((m) => m.content).slice(1)).toEqual(['second question', 'third question', 'fourth question']);
  });

  it('runs by itself past the threshold, and says when there is nothing to compact or the model fails', async () => {
    const auto = setup({ contextWindow: 2_000, autoCompactThreshold: 0.5 });
    await auto.session.refreshModels();
    await auto.session.send('one');
    await auto.session.send('two');
    await auto.session.send('three');
    expect(notices(auto.session.state().items).some((t) => t.startsWith('**Compacted**'))).toBe(true);

    const fresh = setup();
    await fresh.session.refreshModels();
    await fresh.session.send('only one');
    await fresh.session.compact();
    expect(notices(fresh.session.state().items)).toEqual(['Nothing to compact yet: the last turns are always kept whole.']);

    const failing = setup();
    await failing.session.refreshModels();
    for (const text of ['a', 'b', 'c']) await failing.session.send(text);
    failing.model.failSummary = true;
    await failing.session.compact();
    expect(notices(failing.session.state().items)).toEqual(['Compacting failed, the earlier turns are kept as they were: the model is overloaded']);
  });
});

describe('compaction steps', () => {
  const turn = (n: number) => [
    { role: 'user' as const, content: `q${n}` },
    { role: 'assistant' as const, content: '', toolCalls: [{ id: `c${n}`, name: 't', arguments: '{}' }] },
    { role: 'tool' as const, toolCallId: `c${n}`, toolName: 't', content: 'r'.repeat(n * 1500), isError: false },
    { role: 'assistant' as const, content: `a${n}` },
  ];
  const messages = [...turn(1), ...turn(2), ...turn(3)];

  it('keeps the last turns from their user message on', () => {
    expect(keptFrom(messages, 2)).toBe(4);
    expect(keptFrom(messages, 3)).toBe(0);
    expect(keptFrom(messages, 5)).toBe(0);
  });

  it('elides only long tool results before the kept turns, keeping them readable by handle', async () => {
    const store = new MemoryToolResultStore();
    const { messages: out, elided } = await elideOldResults(messages, store, 'c', 1);
    expect(elided).toBe(1); // turn 1's result is short; turn 2's is long; turn 3 is kept
    expect(out[2]).toBe(messages[2]);
    expect(out[6]!.content).toMatch(/^\[An earlier result of t \(3,000 characters, 1 line\) was taken out/);
    expect(out[10]).toBe(messages[10]);
    const [kept] = store.list('c');
    expect(await store.read('c', kept!.handle)).toBe('r'.repeat(3000));
  });

  it('quotes each earlier message up to a bound, and does nothing when all turns are kept', async () => {
    const text = transcriptForSummary([{ role: 'tool', toolCallId: 'x', toolName: 't', content: 'q'.repeat(5000), isError: true }]);
    expect(text).toBe(`TOOL RESULT (t, error):\n${'q'.repeat(4000)}\n…[1000 more characters]`);
    const model = new ChattyModel();
    expect(await compactConversation(messages.slice(0, 4), model, { signal: new AbortController().signal })).toBeUndefined();
    expect(model.requests).toEqual([]);
  });
});
