import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { Emitter } from '../../../src/core/base/event';
import type { EmbeddedBlob } from '../../../src/core/agent/types';
import { ChatAttachments } from '../../../src/core/chat/ChatAttachments';
import type { ChatServerView, IChatServerItems } from '../../../src/core/chat/ChatServerItems';
import { ChatRequestError } from '../../../src/core/chat/ChatRequestError';
import { contextRequests, type ChatOpenedResource } from '../../../src/core/chat/contextRequests';

const notes: ChatServerView = {
  name: 'notes',
  state: { kind: 'running' },
  prompts: [{ name: 'summarize', arguments: [{ name: 'topic', required: true }] }],
  resources: [{ uri: 'note://readme', name: 'readme', title: 'Read Me' }],
  resourceTemplates: [{ uriTemplate: 'note://{id}', name: 'note' }],
};

function rig(options: { failing?: boolean; open?: boolean; embedded?: (server: string, uri: string) => EmbeddedBlob | undefined } = {}) {
  const asked: unknown[][] = [];
  const fail = async () => {
    throw new Error('server said no');
  };
  const items: IChatServerItems = {
    snapshots: () => [notes],
    getPrompt: async (...args) => (asked.push(['getPrompt', ...args]), options.failing ? fail() : ({ messages: [{ role: 'user', content: { type: 'text', text: 'Summarize the topic' } }] } as GetPromptResult)),
    readResource: async (...args) => (asked.push(['readResource', ...args]), options.failing ? fail() : ({ contents: [{ uri: args[1], mimeType: 'text/plain', text: `text of ${args[1]}` }] } as ReadResourceResult)),
    complete: async (...args) => (asked.push(['complete', ...args]), options.failing ? fail() : { values: ['alpha', 'beta'] }),
    subscribeResource: async () => undefined,
    unsubscribeResource: async () => undefined,
    onDidUpdateResource: new Emitter<{ server: string; uri: string }>().event,
  };
  const attachments = new ChatAttachments(() => undefined, items, () => undefined);
  const opened: ChatOpenedResource[] = [];
  const handlers = contextRequests({
    items,
    attachments,
    ...(options.open === false ? {} : { openResource: async (r: ChatOpenedResource) => void opened.push(r) }),
    ...(options.embedded ? { embedded: options.embedded } : {}),
  });
  return { handlers, asked, attachments, opened };
}

describe('contextRequests', () => {
  it("suggests the servers' prompts after / and resources after @", async () => {
    const { handlers } = rig();
    const prompts = await handlers.suggest({ trigger: '/', query: 'summ' });
    expect(prompts.items).toMatchObject([{ kind: 'prompt', server: 'notes', name: 'summarize' }]);
    const resources = await handlers.suggest({ trigger: '@', query: 'read' });
    expect(resources.items).toMatchObject([{ kind: 'resource', server: 'notes', uri: 'note://readme' }]);
  });

  it('suggests only the chat commands without server items, and says what is not available', async () => {
    const attachments = new ChatAttachments(() => undefined, undefined, () => undefined);
    const handlers = contextRequests({ items: undefined, attachments });
    expect((await handlers.suggest({ trigger: '@', query: '' })).items).toEqual([]);
    await expect(handlers.complete({ server: 'notes', ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: '' } })).rejects.toThrow("Servers' prompts and resources are not available here.");
    await expect(handlers.openResource({ server: 'notes', uri: 'note://readme' })).rejects.toThrow('Opening a resource is not available here.');
  });

  it('completes an argument with the context given, or none', async () => {
    const { handlers, asked } = rig();
    expect(await handlers.complete({ server: 'notes', ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'a' } })).toEqual({ values: ['alpha', 'beta'] });
    await handlers.complete({ server: 'notes', ref: { type: 'ref/resource', uri: 'note://{id}' }, argument: { name: 'id', value: 'b' }, context: { kind: 'x' } });
    expect(asked).toEqual([
      ['complete', 'notes', { type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'a' }, {}],
      ['complete', 'notes', { type: 'ref/resource', uri: 'note://{id}' }, { name: 'id', value: 'b' }, { kind: 'x' }],
    ]);
  });

  it("reads a prompt into the message box", async () => {
    const { handlers, asked } = rig();
    expect(await handlers.usePrompt({ server: 'notes', name: 'summarize', arguments: { topic: 'cats' } })).toEqual({ text: 'Summarize the topic' });
    expect(asked).toEqual([['getPrompt', 'notes', 'summarize', { topic: 'cats' }]]);
  });

  it('attaches a resource by URI, by template, and one a tool result embedded as it came', async () => {
    const blob: EmbeddedBlob = { uri: 'note://kept', mimeType: 'text/plain', blob: Buffer.from('embedded text').toString('base64') } as never;
    const { handlers, attachments, asked } = rig({ embedded: (server, uri) => (server === 'notes' && uri === 'note://kept' ? blob : undefined) });
    await handlers.attachResource({ server: 'notes', uri: 'note://readme' });
    await handlers.attachResource({ server: 'notes', template: { uriTemplate: 'note://{id}', variables: { id: '42' } } });
    await handlers.attachResource({ server: 'notes', uri: 'note://kept', name: 'Kept' });
    await handlers.attachResource({ server: 'notes', uri: 'note://plain/last' });
    expect(attachments.chips().map((c) => c.label)).toEqual(['Read Me', 'note (42)', 'Kept', 'last']);
    expect(asked).toEqual([
      ['readResource', 'notes', 'note://readme'],
      ['readResource', 'notes', 'note://42'],
      ['readResource', 'notes', 'note://plain/last'],
    ]);
    expect(attachments.take()[2]).toMatchObject({ path: 'note://kept', text: expect.stringContaining('embedded text') });
  });

  it('opens a resource whole, its name from the server, the request or its URI', async () => {
    const { handlers, opened } = rig({ embedded: (_s, uri) => (uri === 'note://kept/one' ? ({ uri, mimeType: 'text/markdown', blob: Buffer.from('# kept').toString('base64') } as never) : undefined) });
    await handlers.openResource({ server: 'notes', uri: 'note://readme' });
    await handlers.openResource({ server: 'notes', uri: 'note://other', name: 'Other' });
    await handlers.openResource({ server: 'notes', uri: 'note://kept/one' });
    expect(opened).toEqual([
      { server: 'notes', uri: 'note://readme', label: 'Read Me', text: 'text of note://readme', mimeType: 'text/plain' },
      { server: 'notes', uri: 'note://other', label: 'Other', text: 'text of note://other', mimeType: 'text/plain' },
      { server: 'notes', uri: 'note://kept/one', label: 'one', text: expect.stringContaining('# kept'), mimeType: 'text/markdown' },
    ]);
  });

  it("describes a resource's images in the text opened", async () => {
    const { handlers, opened } = rig({ embedded: (_s, uri) => ({ uri, mimeType: 'image/png', blob: Buffer.from('png').toString('base64') }) as never });
    await handlers.openResource({ server: 'notes', uri: 'note://pic.png' });
    expect(opened[0]!.text).toMatch(/^\[.*image\/png.*\]$/);
  });

  it("returns a server's failure as the message the panel shows", async () => {
    const { handlers } = rig({ failing: true });
    for (const request of [
      () => handlers.complete({ server: 'notes', ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: '' } }),
      () => handlers.usePrompt({ server: 'notes', name: 'summarize', arguments: {} }),
      () => handlers.attachResource({ server: 'notes', uri: 'note://readme' }),
      () => handlers.openResource({ server: 'notes', uri: 'note://readme' }),
    ]) {
      const failed = await request().catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ChatRequestError);
      expect((failed as Error).message).toBe('server said no');
    }
    const missing = await handlers.attachResource({ server: 'notes', template: { uriTemplate: 'note://{id}', variables: {} } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ChatRequestError);
    expect((missing as Error).message).toBe('fill in "id"');
  });
});
