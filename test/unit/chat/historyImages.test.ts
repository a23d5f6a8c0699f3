import { describe, expect, it } from 'vitest';
import { ChatHistoryStore } from '../../../src/core/chat';
import { MemoryMemento } from '../../support/memento';

// Images attached to a message go to the model, but the saved conversation keeps only the text
// that names them: the state is written often and an image is megabytes.
describe('the saved history and attached images', () => {
  it('keeps the messages without their images, and everything else as it was', async () => {
    const memento = new MemoryMemento();
    const store = new ChatHistoryStore(memento);
    const text = 'what is this?\n\nAttached by the user:\n\n<context kind="resource" server="lib" uri="library://logo.png">\n[image image/png, 1 KB: attached as image 1]\n</context>';
    await store.save({
      id: 'c1',
      title: 'What is this?',
      createdAt: 1,
      updatedAt: 2,
      items: [{ kind: 'user', id: 'u1', text: 'what is this?', context: ['logo'] }],
      messages: [
        { role: 'user', content: text, images: [{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }] },
        { role: 'assistant', content: 'a logo' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(store.load('c1')?.messages).toEqual([{ role: 'user', content: text }, { role: 'assistant', content: 'a logo' }, { role: 'user', content: 'thanks' }]);
    expect(JSON.stringify([...memento.values.values()])).not.toContain('iVBORw0KGgo');
  });
});
