import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { Emitter } from '../../../src/core/base/event';
import { ChatAttachments } from '../../../src/core/chat/ChatAttachments';
import type { ChatAttachment } from '../../../src/core/chat/ChatContext';
import type { IChatServerItems } from '../../../src/core/chat/ChatServerItems';
import type { ChatAttachmentChip } from '../../../src/shared/chatProtocol';

/** Server items that record (un)subscriptions and reads; `srv` offers subscriptions, `plain` does not. */
function rig(options: { subscribe?: () => Promise<void>; unsubscribe?: () => Promise<void>; read?: (uri: string) => Promise<ReadResourceResult> } = {}) {
  const asked: string[] = [];
  const updates = new Emitter<{ server: string; uri: string }>();
  const items = {
    snapshots: () => [{ name: 'srv', capabilities: { resources: { subscribe: true } } }, { name: 'plain', capabilities: { resources: {} } }, { name: 'bare' }],
    subscribeResource: async (server: string, uri: string) => {
      asked.push(`subscribe ${server} ${uri}`);
      await options.subscribe?.();
    },
    unsubscribeResource: async (server: string, uri: string) => {
      asked.push(`unsubscribe ${server} ${uri}`);
      await options.unsubscribe?.();
    },
    readResource: async (server: string, uri: string) => {
      asked.push(`read ${server} ${uri}`);
      return options.read ? options.read(uri) : { contents: [{ uri, text: `new text of ${uri}` }] };
    },
    onDidUpdateResource: updates.event,
  } as unknown as IChatServerItems;
  const posted: ChatAttachmentChip[][] = [];
  const logs: string[] = [];
  const attachments = new ChatAttachments((chips) => posted.push(chips), items, (line) => logs.push(line));
  return { attachments, asked, posted, logs, updates };
}

const resource = (server: string, uri: string, label = uri): ChatAttachment => ({ kind: 'resource', label, path: uri, text: `old text of ${uri}`, server, detail: 'text/plain, 12 B' });
const file: ChatAttachment = { kind: 'file', label: 'src/a.ts', path: 'src/a.ts', text: 'const a = 1;' };
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('ChatAttachments', () => {
  it('shows a chip per attachment, in order, and hands them all over once with the message', async () => {
    const { attachments, posted, asked } = rig();
    await attachments.add(file);
    await attachments.add(resource('plain', 'note://a', 'A note'));
    expect(attachments.length).toBe(2);
    expect(posted.at(-1)).toEqual([
      { id: 'ctx1', label: 'src/a.ts' },
      { id: 'ctx2', label: 'A note', detail: 'text/plain, 12 B' },
    ]);
    // Neither a file nor a server without subscriptions is subscribed to.
    expect(asked).toEqual([]);
    const count = posted.length;
    expect(attachments.take()).toEqual([file, resource('plain', 'note://a', 'A note')]);
    expect(posted.length).toBe(count + 1);
    expect(posted.at(-1)).toEqual([]);
    expect(attachments.take()).toEqual([]);
    expect(posted.length).toBe(count + 1);
  });

  it('subscribes to a resource while its chip is shown, and reads it again with an "updated" chip when it changes', async () => {
    const { attachments, asked, posted, updates, logs } = rig();
    await attachments.add(resource('srv', 'note://a'));
    await attachments.add(resource('bare', 'note://a'));
    expect(asked).toEqual(['subscribe srv note://a']);
    updates.fire({ server: 'srv', uri: 'note://other' });
    updates.fire({ server: 'other', uri: 'note://a' });
    updates.fire({ server: 'srv', uri: 'note://a' });
    await settle();
    expect(asked).toEqual(['subscribe srv note://a', 'read srv note://a']);
    expect(posted.at(-1)).toEqual([
      { id: 'ctx1', label: 'note://a', detail: 'unknown type, 20 B · srv', updated: true },
      { id: 'ctx2', label: 'note://a', detail: 'text/plain, 12 B' },
    ]);
    const [taken] = attachments.take();
    expect(taken).toMatchObject({ kind: 'resource', server: 'srv', path: 'note://a', text: expect.stringContaining('new text of note://a') });
    expect(asked.at(-1)).toBe('unsubscribe srv note://a');
    expect(logs).toEqual([]);
  });

  it('lets go of the subscription when the chip is removed, and of nothing it did not hold', async () => {
    const { attachments, asked, posted } = rig();
    await attachments.add(resource('srv', 'note://a'));
    await attachments.add(file);
    const count = posted.length;
    attachments.remove('nope');
    expect(posted.length).toBe(count);
    attachments.remove('ctx2');
    expect(asked).toEqual(['subscribe srv note://a']);
    attachments.remove('ctx1');
    expect(asked).toEqual(['subscribe srv note://a', 'unsubscribe srv note://a']);
    expect(posted.at(-1)).toEqual([]);
  });

  it('lets go of a subscription that completes after its chip was removed', async () => {
    let release!: () => void;
    const { attachments, asked } = rig({ subscribe: () => new Promise<void>((r) => (release = r)) });
    const adding = attachments.add(resource('srv', 'note://a'));
    attachments.remove('ctx1');
    expect(asked).toEqual(['subscribe srv note://a', 'unsubscribe srv note://a']);
    release();
    await adding;
    // Released once: the removal already let go of it.
    expect(asked).toEqual(['subscribe srv note://a', 'unsubscribe srv note://a']);
  });

  it('logs a subscription that fails, and then has nothing to let go of', async () => {
    const { attachments, asked, logs } = rig({ subscribe: async () => Promise.reject(new Error('no such resource')) });
    await attachments.add(resource('srv', 'note://a'));
    expect(logs).toEqual(['chat: subscribing to note://a of srv failed: no such resource']);
    attachments.take();
    expect(asked).toEqual(['subscribe srv note://a']);
  });

  it('logs an unsubscription or a read again that fails', async () => {
    const { attachments, logs, updates } = rig({ unsubscribe: async () => Promise.reject(new Error('gone')), read: async () => Promise.reject(new Error('read failed')) });
    await attachments.add(resource('srv', 'note://a'));
    updates.fire({ server: 'srv', uri: 'note://a' });
    await settle();
    expect(logs).toEqual(['chat: reading note://a of srv again after it changed failed: read failed']);
    attachments.remove('ctx1');
    await settle();
    expect(logs.at(-1)).toBe('chat: unsubscribing from note://a of srv failed: gone');
  });

  it('drops a new reading of a chip removed while it was read', async () => {
    let answer!: (r: ReadResourceResult) => void;
    const { attachments, updates, posted } = rig({ read: () => new Promise((r) => (answer = r)) });
    await attachments.add(resource('srv', 'note://a'));
    updates.fire({ server: 'srv', uri: 'note://a' });
    await settle();
    attachments.remove('ctx1');
    const count = posted.length;
    answer({ contents: [{ uri: 'note://a', text: 'late' }] });
    await settle();
    expect(posted.length).toBe(count);
  });

  it("keeps an app's context under its key: replaced by the next, removed by none", () => {
    const { attachments, posted } = rig();
    attachments.put('app:x', file);
    attachments.put('app:x', { ...file, label: 'newer' });
    expect(attachments.chips()).toEqual([{ id: 'app:x', label: 'newer' }]);
    const count = posted.length;
    attachments.put('app:y', undefined);
    expect(posted.length).toBe(count);
    attachments.put('app:x', undefined);
    expect(attachments.chips()).toEqual([]);
    expect(posted.at(-1)).toEqual([]);
  });

  it('lets go of everything and hears no more changes once disposed', async () => {
    const { attachments, asked, updates } = rig();
    await attachments.add(resource('srv', 'note://a'));
    attachments.dispose();
    expect(asked).toEqual(['subscribe srv note://a', 'unsubscribe srv note://a']);
    updates.fire({ server: 'srv', uri: 'note://a' });
    await settle();
    expect(asked).toHaveLength(2);
    expect(attachments.length).toBe(0);
  });

  it('works without server items: nothing is subscribed', async () => {
    const posted: ChatAttachmentChip[][] = [];
    const attachments = new ChatAttachments((chips) => posted.push(chips), undefined, () => undefined);
    await attachments.add(resource('srv', 'note://a'));
    attachments.remove('ctx1');
    attachments.dispose();
    expect(posted).toEqual([[{ id: 'ctx1', label: 'note://a', detail: 'text/plain, 12 B' }], []]);
  });
});
