import { describe, expect, it } from 'vitest';
import { Emitter } from '../../../src/core/base/event';
import { ChatServerItems, type ChatServerView, type IChatServerItems } from '../../../src/core/chat/ChatServerItems';

function items(views: ChatServerView[], complete?: IChatServerItems['complete']) {
  const read: string[] = [];
  const source: IChatServerItems = {
    snapshots: () => views,
    getPrompt: async () => ({ messages: [] }),
    readResource: async (_server, uri) => (read.push(uri), { contents: [{ uri, text: 't' }] }),
    complete: complete ?? (async () => ({ values: [] })),
    subscribeResource: async () => undefined,
    unsubscribeResource: async () => undefined,
    onDidUpdateResource: new Emitter<{ server: string; uri: string }>().event,
  };
  return { items: new ChatServerItems(source), read };
}

const view = (name: string, kind: string, more: Partial<ChatServerView> = {}): ChatServerView => ({ name, state: { kind }, prompts: [], resources: [], resourceTemplates: [], ...more });

describe('ChatServerItems suggestions', () => {
  it("offers a reconnecting server's items, never a stopped one's, and takes the query trimmed", () => {
    const back = view('back', 'reconnecting', { prompts: [{ name: 'plan' }] });
    const off = view('off', 'stopped', { prompts: [{ name: 'plan' }] });
    const { items: list } = items([off, back]);
    expect(list.suggest('/', '  PLAN ')).toEqual([{ kind: 'prompt', server: 'back', name: 'plan', arguments: [] }]);
  });

  it('finds the chat commands by name', () => {
    const { items: list } = items([]);
    expect(list.suggest('/', 'mc')).toEqual([expect.objectContaining({ kind: 'command', name: 'mcp' })]);
  });

  it('shows each field a server gave, and leaves out the empty ones', () => {
    const full = view('s', 'running', {
      prompts: [{ name: 'p', title: 'P title', description: 'P text', arguments: [{ name: 'a', required: false }] }, { name: 'q', title: '', description: '' }],
      resources: [{ uri: 'r://1', name: 'r', title: 'R title', description: 'R text', mimeType: 'text/plain' }, { uri: 'r://2', name: 'bare' }],
      resourceTemplates: [{ uriTemplate: 't://{id}', name: 't', title: 'T title', description: 'T text', mimeType: 'text/csv' }],
    });
    const { items: list } = items([full]);
    expect(list.suggest('/', 'p title')).toEqual([{ kind: 'prompt', server: 's', name: 'p', title: 'P title', description: 'P text', arguments: [{ name: 'a', required: false }] }]);
    expect(list.suggest('/', 'q')).toEqual([{ kind: 'prompt', server: 's', name: 'q', arguments: [] }]);
    expect(list.suggest('@', 'r title')).toEqual([{ kind: 'resource', server: 's', uri: 'r://1', name: 'r', title: 'R title', description: 'R text', mimeType: 'text/plain' }]);
    expect(list.suggest('@', 'bare')).toEqual([{ kind: 'resource', server: 's', uri: 'r://2', name: 'bare' }]);
    expect(list.suggest('@', 't title')).toEqual([{ kind: 'template', server: 's', uriTemplate: 't://{id}', name: 't', title: 'T title', description: 'T text', mimeType: 'text/csv', variables: ['id'] }]);
    expect(list.suggest('@', 't://')).toMatchObject([{ kind: 'template', name: 't' }]);
  });

  it('ranks what a word of the name starts with before what only contains the query', () => {
    const s = view('s', 'running', {
      resources: [
        { uri: 'x://1', name: 'unrelated' },
        { uri: 'x://2', name: 'has-report-inside' },
        { uri: 'x://3', name: 'myreport' },
        { uri: 'x://4', name: 'report' },
      ],
    });
    const { items: list } = items([s]);
    expect(list.suggest('@', 'rep').map((r) => (r as { name: string }).name)).toEqual(['has-report-inside', 'report', 'myreport']);
    expect(list.suggest('@', 'port').map((r) => (r as { name: string }).name)).toEqual(['has-report-inside', 'myreport', 'report']);
  });
});

describe('ChatServerItems completions and resources', () => {
  it('reads an answer that is not one as no values, and keeps a total of 0', async () => {
    const { items: none } = items([], async () => undefined as never);
    expect(await none.complete('s', { type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).toEqual({ values: [] });
    const { items: odd } = items([], async () => ({ values: 'no' as never, total: 0 }));
    expect(await odd.complete('s', { type: 'ref/resource', uri: 't://{id}' }, { name: 'id', value: '' })).toEqual({ values: [], total: 0 });
    const { items: negative } = items([], async () => ({ values: ['a'], total: -1, hasMore: false }));
    expect(await negative.complete('s', { type: 'ref/prompt', name: 'p' }, { name: 'a', value: '' })).toEqual({ values: ['a'] });
  });

  it("names a template's resource after the template's title and every value, and reads a server it does not list", async () => {
    const s = view('s', 'running', { resourceTemplates: [{ uriTemplate: 'd://{y}/{m}', name: 'day', title: 'Day' }] });
    const { items: list, read } = items([s]);
    const got = await list.resource('s', { template: { uriTemplate: 'd://{y}/{m}', variables: { y: '2026', m: '12' } } });
    expect([got.path, got.label]).toEqual(['d://2026/12', 'Day (2026, 12)']);
    expect((await list.resource('gone', { uri: 'g://a/b' })).label).toBe('b');
    expect(read).toEqual(['d://2026/12', 'g://a/b']);
  });
});
