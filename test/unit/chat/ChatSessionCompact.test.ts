import { describe, expect, it } from 'vitest';
import type { ChatMessage, IModelProvider, ModelRequest } from '../../../src/core/agent/types';
import { SUMMARY_SYSTEM_PROMPT } from '../../../src/core/chat/compactConversation';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import { chatRig, modelEntry, storeConversation } from '../../support/chatSessionRig';
import { MemoryMemento } from '../../support/memento';

/** A model that reports `inputTokens` for each answer and writes "the summary" when asked for one. */
function countingModel(inputTokens: number) {
  const summaries: ModelRequest[] = [];
  const provider: IModelProvider = {
    id: 'count',
    label: 'Count',
    models: async () => [],
    async *stream(request) {
      if (request.system === SUMMARY_SYSTEM_PROMPT) {
        summaries.push(request);
        yield { type: 'text', delta: 'the summary' };
      } else {
        yield { type: 'text', delta: 'ok' };
        yield { type: 'usage', inputTokens, outputTokens: 1 };
      }
      yield { type: 'end', reason: 'stop' };
    },
  };
  return { provider, summaries };
}

const notices = (items: readonly ChatItem[]) => items.flatMap((i) => (i.kind === 'notice' ? [i] : []));

/** Three turns, as a reopened window finds them. */
const threeTurns: ChatMessage[] = ['one', 'two', 'three'].flatMap((t): ChatMessage[] => [{ role: 'user', content: t }, { role: 'assistant', content: `answer ${t}` }]);
const threeItems: ChatItem[] = ['one', 'two', 'three'].map((t, n) => ({ kind: 'user', id: `u${n + 1}`, text: t }));

describe('ChatSession compaction', () => {
  it('compacts after a turn once the context is past the default share, and says nothing before there is anything to compact', async () => {
    const model = countingModel(900);
    const entry = modelEntry(model.provider, 'x:m', 1000);
    const { session, items } = chatRig({ extra: { models: async () => ({ entries: [entry], selected: entry }) } });
    await session.send('one');
    await session.send('two');
    expect(notices(items())).toEqual([]);
    expect(model.summaries).toEqual([]);
    await session.send('three');
    expect(model.summaries).toHaveLength(1);
    expect(notices(items())).toEqual([{ kind: 'notice', id: expect.stringMatching(/^n\d+$/), level: 'info', text: expect.stringContaining('**Compacted** here: 2 earlier messages') }]);
  });

  it('leaves a conversation with room to spare as it is', async () => {
    const model = countingModel(100);
    const entry = modelEntry(model.provider, 'x:m', 1000);
    const { session, items } = chatRig({ extra: { models: async () => ({ entries: [entry], selected: entry }) } });
    for (const text of ['one', 'two', 'three']) await session.send(text);
    expect(model.summaries).toEqual([]);
    expect(notices(items())).toEqual([]);
  });

  it('compacts on request with the model a reopened window finds, showing it is busy meanwhile', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c1', items: threeItems, messages: threeTurns });
    const model = countingModel(10);
    const { session, handle, items, posted, stored } = chatRig({ memento, model: model.provider });
    expect(await handle({ type: 'compact' })).toBeUndefined();
    expect(model.summaries).toHaveLength(1);
    expect(notices(items()).map((n) => n.text)).toEqual([expect.stringContaining('**Compacted** here')]);
    expect(posted.filter((m) => m.type === 'busy')).toEqual([{ type: 'busy', busy: true }, { type: 'busy', busy: false }]);
    expect(session.busy).toBe(false);
    expect(stored()!.messages[0]).toMatchObject({ role: 'user', content: expect.stringContaining('the summary') });
  });

  it('compacts with the model already chosen, not a newer default', async () => {
    const memento = new MemoryMemento();
    await storeConversation(memento, { id: 'c1', items: threeItems, messages: threeTurns });
    const chosen = countingModel(10);
    const later = countingModel(10);
    const entries = [modelEntry(chosen.provider, 'x:chosen'), modelEntry(later.provider, 'x:later')];
    let asked = 0;
    const { session } = chatRig({ memento, extra: { models: async () => ({ entries, selected: entries[asked++ === 0 ? 0 : 1] }) } });
    await session.refreshModels();
    await session.compact();
    expect([chosen.summaries.length, later.summaries.length]).toEqual([1, 0]);
  });

  it('says compacting needs a model when none is available', async () => {
    const { handle } = chatRig();
    expect(await handle({ type: 'compact' })).toBe('Compacting needs a model: none is available.');
  });
});
