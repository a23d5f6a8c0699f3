import { describe, expect, it } from 'vitest';
import { Emitter } from '../../../src/core/base/event';
import { ChatServerItems, expandTemplate, templateVariables, type ChatServerView, type IChatServerItems } from '../../../src/core/chat/ChatServerItems';

/** Servers as plain data, and what each request was asked with. */
function servers(views: ChatServerView[], answers: Partial<Pick<IChatServerItems, 'complete' | 'getPrompt' | 'readResource'>> = {}) {
  const asked: unknown[] = [];
  const items: IChatServerItems = {
    snapshots: () => views,
    getPrompt: async (...args) => (asked.push(['getPrompt', ...args]), (await answers.getPrompt?.(...args)) ?? { messages: [] }),
    readResource: async (...args) => (asked.push(['readResource', ...args]), (await answers.readResource?.(...args)) ?? { contents: [] }),
    complete: async (...args) => (asked.push(['complete', ...args]), (await answers.complete?.(...args)) ?? { values: [] }),
    subscribeResource: async () => undefined,
    unsubscribeResource: async () => undefined,
    onDidUpdateResource: new Emitter<{ server: string; uri: string }>().event,
  };
  return { items: new ChatServerItems(items), asked };
}

const running = { kind: 'running' };
const notes: ChatServerView = {
  name: 'notes',
  state: running,
  prompts: [
    { name: 'summarize', description: 'Summarises', arguments: [{ name: 'topic', required: true, description: 'What about' }, { name: 'style' }] },
    { name: 'daily-report', title: 'Daily Report' },
  ],
  resources: [
    { uri: 'notes://today', name: 'today', mimeType: 'text/plain' },
    { uri: 'notes://archive/summary', name: 'archive', title: 'Old Summaries' },
  ],
  resourceTemplates: [
    { uriTemplate: 'notes://day/{date}', name: 'day' },
    { uriTemplate: 'notes://{broken', name: 'broken' },
  ],
};
const stopped: ChatServerView = { name: 'off', state: { kind: 'stopped' }, prompts: [{ name: 'summarize' }], resources: [{ uri: 'off://x', name: 'x' }], resourceTemplates: [] };

describe('ChatServerItems.suggest', () => {
  it("lists the chat's commands, then every running server's prompts with their arguments", () => {
    const { items } = servers([notes, stopped]);
    const all = items.suggest('/', '');
    expect(all.map((s) => (s.kind === 'prompt' ? `${s.server}.${s.name}` : s.kind === 'command' ? `/${s.name}` : s.kind))).toEqual(['/tools', '/call', '/mcp', '/help', 'notes.summarize', 'notes.daily-report']);
    expect(all[4]).toEqual({ kind: 'prompt', server: 'notes', name: 'summarize', description: 'Summarises', arguments: [{ name: 'topic', required: true, description: 'What about' }, { name: 'style', required: false }] });
  });

  it('puts what the query starts (a server, a prompt, a word of it, its title) before what it is inside', () => {
    const { items } = servers([notes]);
    expect(items.suggest('/', 'rep').map((s) => (s as { name: string }).name)).toEqual(['daily-report']);
    expect(items.suggest('/', 'DAILY').map((s) => (s as { name: string }).name)).toEqual(['daily-report']);
    expect(items.suggest('/', 'notes.sum').map((s) => (s as { name: string }).name)).toEqual(['summarize']);
    expect(items.suggest('/', 'mar').map((s) => (s as { name: string }).name)).toEqual(['summarize']);
    expect(items.suggest('/', 'zzz')).toEqual([]);
  });

  it('lists resources and the templates it can expand after "@", matching names, titles and URIs', () => {
    const { items } = servers([notes, stopped]);
    expect(items.suggest('@', '').map((s) => (s.kind === 'template' ? `${s.name} ${s.variables.join(',')}` : (s as { name: string }).name))).toEqual(['today', 'archive', 'day date']);
    expect(items.suggest('@', 'old')).toEqual([{ kind: 'resource', server: 'notes', uri: 'notes://archive/summary', name: 'archive', title: 'Old Summaries' }]);
    expect(items.suggest('@', 'summary').map((s) => (s as { name: string }).name)).toEqual(['archive']);
  });

  it('shows at most 50', () => {
    const many: ChatServerView = { ...notes, resources: Array.from({ length: 80 }, (_, i) => ({ uri: `n://${i}`, name: `r${i}` })), resourceTemplates: [] };
    expect(servers([many]).items.suggest('@', 'r')).toHaveLength(50);
  });
});

describe('ChatServerItems requests', () => {
  it('passes completions on, at most 100 strings, with the context given', async () => {
    const { items, asked } = servers([notes], { complete: async () => ({ values: [...Array.from({ length: 150 }, (_, i) => `v${i}`), 7 as never], hasMore: true, total: 150.5 }) });
    const answer = await items.complete('notes', { type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'v' }, { style: 'short' });
    expect(answer.values).toHaveLength(100);
    expect(answer).toMatchObject({ hasMore: true, total: 150 });
    expect(asked).toEqual([['complete', 'notes', { type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: 'v' }, { style: 'short' }]]);
  });

  it('sends a prompt only the arguments given a value', async () => {
    const { items, asked } = servers([notes], { getPrompt: async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'go' } }] }) });
    expect(await items.prompt('notes', 'summarize', { topic: 'x', style: '' })).toEqual({ text: 'go', attachments: [] });
    expect(asked).toEqual([['getPrompt', 'notes', 'summarize', { topic: 'x' }]]);
  });

  it("names a resource by its listing, else by the name given, else by its URI's last part", async () => {
    const { items } = servers([notes], { readResource: async (_s, uri) => ({ contents: [{ uri, text: 't' }] }) });
    expect((await items.resource('notes', { uri: 'notes://archive/summary' })).label).toBe('Old Summaries');
    expect((await items.resource('notes', { uri: 'notes://x/y', name: 'Linked' })).label).toBe('Linked');
    const day = await items.resource('notes', { template: { uriTemplate: 'notes://day/{date}', variables: { date: '2026-01-02' } } });
    expect([day.path, day.label]).toEqual(['notes://day/2026-01-02', 'day (2026-01-02)']);
    await expect(items.resource('notes', {})).rejects.toThrow('name a resource by its URI or by a template and its variables');
  });
});

describe('templates', () => {
  it('expand with the SDK, saying which variable is missing', () => {
    expect(templateVariables('a://{x}/{y}')).toEqual(['x', 'y']);
    expect(templateVariables('a://{x')).toBeUndefined();
    expect(expandTemplate('a://{x}/{y}', { x: 'one two', y: '2' })).toBe('a://one%20two/2');
    expect(() => expandTemplate('a://{x}/{y}', { x: '1', y: '' })).toThrow('fill in "y"');
    expect(() => expandTemplate('a://{x', {})).toThrow('"a://{x" is not a URI template');
  });
});
