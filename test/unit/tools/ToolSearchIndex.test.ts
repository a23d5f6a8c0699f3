import { describe, expect, it } from 'vitest';
import type { HarnessTool } from '../../../src/core/tools/types';
import { ToolSearchCache, ToolSearchIndex } from '../../../src/core/tools/search';

const t = (server: string, name: string, description: string, params: Record<string, string> = {}, title?: string): HarnessTool => ({
  name: `mcp__${server}__${name}`,
  server,
  originalName: name,
  pin: `${server}/${name}/${description}`,
  description,
  ...(title ? { title } : {}),
  inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(params).map(([p, d]) => [p, d ? { type: 'string', description: d } : { type: 'string' }])) },
});

const catalog: HarnessTool[] = [
  t('github', 'create_issue', 'Opens a new issue in a repository', { owner: '', repo: '', title: '', body: '' }),
  t('github', 'list_pull_requests', 'Lists pull requests of a repository', { owner: '', repo: '', state: '' }),
  t('memory', 'read_graph', 'Reads the whole knowledge graph'),
  t('fs', 'read_text_file', 'Reads a file from disk as text', { path: '' }),
  t('weather', 'forecast', 'Forecast for a place', { latitude: '', longitude: '' }, 'Weather forecast'),
  t('calendar', 'createEvent', 'Adds an entry', { startTime: '' }),
  t('accounts', 'bulkcreateusers', 'Adds many at once', { emails: 'Addresses to invite' }),
  t('mail', 'send', 'Delivers a message', { to: 'Recipient mailbox' }),
  t('photos', 'resize', 'Scales a picture'),
];
const filler = (n: number) => Array.from({ length: n }, (_, i) => t(`s${i % 20}`, `tool_${i}`, `Does thing number ${i}`, { value: '' }));

describe('ToolSearchIndex', () => {
  const index = new ToolSearchIndex(catalog);
  const names = (q: string, limit?: number) => index.search(q, limit === undefined ? {} : { limit }).map((x) => x.originalName);

  it('ranks by names, titles, servers, descriptions and parameters, best first', () => {
    expect(names('create issue')[0]).toBe('create_issue');
    expect(names('pull requests')[0]).toBe('list_pull_requests');
    expect(names('weather')[0]).toBe('forecast');
    expect(names('latitude')[0]).toBe('forecast');
    expect(names('read file')[0]).toBe('read_text_file');
    expect(names('knowledge')[0]).toBe('read_graph');
    expect(names('photos')[0]).toBe('resize');
    expect(names('recipient')[0]).toBe('send');
  });

  it('splits camelCase and joined names, and matches stems', () => {
    expect(names('create event')[0]).toBe('createEvent');
    expect(names('start time')[0]).toBe('createEvent');
    expect(names('create users in bulk')[0]).toBe('bulkcreateusers');
    expect(names('forecasts')[0]).toBe('forecast');
    expect(names('reading')[0]).toMatch(/^read_/);
  });

  it('gives stop words no weight and no prefix matches: "me" finds no memory, "for" no forecast', () => {
    expect(names('show me the knowledge graph')[0]).toBe('read_graph');
    expect(names('me')).toEqual([]);
    expect(names('for a')).toEqual([]);
    expect(names('could you please find it for me')).toEqual([]);
  });

  it('matches prefixes and typos of longer words only', () => {
    expect(names('forec')[0]).toBe('forecast');
    expect(names('repositry')[0]).toMatch(/create_issue|list_pull_requests/);
    expect(names('fore')).toEqual([]);
    expect(names('raed')).toEqual([]);
  });

  it('limits the results and returns none for an empty query or no match', () => {
    expect(names('repository', 1)).toEqual(['create_issue']);
    expect(names('read', 1.9)).toHaveLength(1);
    expect(names('read', 0)).toHaveLength(1);
    expect(names('   ')).toEqual([]);
    expect(names('zzzqqq')).toEqual([]);
  });

  it('weighs a match in a name or title over one in a description, and takes other weights', () => {
    const tools = [
      t('x', 'lookup', 'Finds a ledger quickly, an entry of the accounts'),
      t('x', 'ledger_entries', 'Reads rows'),
      t('x', 'convert', 'Turns amounts', {}, 'Ledger converter'),
    ];
    expect(new ToolSearchIndex(tools).search('ledger').map((x) => x.originalName)).toEqual(['ledger_entries', 'convert', 'lookup']);
    const byDescription = new ToolSearchIndex(tools, { weights: { name: 0.1, title: 0.1, description: 5 } });
    expect(byDescription.search('ledger')[0]!.originalName).toBe('lookup');
    expect(new ToolSearchIndex().size).toBe(0);
  });

  it('indexes each parameter name and description as its own words, and skips odd schemas', () => {
    const tools = [
      t('x', 'versions', 'Compares releases', { v1: 'Old build', v2: 'New build' }),
      { ...t('x', 'odd', 'Takes anything'), inputSchema: { type: 'object', properties: { flag: true, other: null, text: { description: 42 } } } },
      { ...t('x', 'bare', 'Takes nothing'), inputSchema: { type: 'object', properties: 'none' } },
    ];
    const index = new ToolSearchIndex(tools);
    expect(index.search('v2').map((x) => x.originalName)).toEqual(['versions']);
    expect(index.search('old').map((x) => x.originalName)).toEqual(['versions']);
    expect(index.search('flag').map((x) => x.originalName)).toEqual(['odd']);
    expect(index.search('none')).toEqual([]);
  });

  it('returns at most 8 by default', () => {
    expect(new ToolSearchIndex(filler(40)).search('thing')).toHaveLength(8);
  });
});

describe('ToolSearchIndex updates', () => {
  it('indexes only the tools that are new or changed, and forgets removed ones', () => {
    const tools = [...catalog, ...filler(40)];
    const index = new ToolSearchIndex(tools);
    expect(index.documentsIndexed).toBe(tools.length);
    // The same tools again, as fresh objects (a harness lists new ones every time): nothing to do.
    index.update(tools.map((tool) => ({ ...tool, inputSchema: structuredClone(tool.inputSchema) })));
    expect(index.documentsIndexed).toBe(tools.length);
    // One server's list changed: a tool changed, one went away and one came.
    const next = tools
      .filter((tool) => tool.originalName !== 'list_pull_requests')
      .map((tool) => (tool.originalName === 'create_issue' ? { ...tool, description: 'Files a bug report' } : tool));
    next.push(t('github', 'merge_branch', 'Merges a branch'));
    index.update(next);
    expect(index.documentsIndexed).toBe(tools.length + 2);
    expect(index.size).toBe(tools.length);
    expect(index.search('bug report')[0]!.originalName).toBe('create_issue');
    expect(index.search('opens')).toEqual([]);
    expect(index.search('pull requests')).toEqual([]);
    expect(index.search('merge')[0]!.originalName).toBe('merge_branch');
    expect(index.search('merge')[0]).toBe(next.at(-1));
  });

  it('ranks exactly as a fresh index after any sequence of updates', () => {
    const all = [...catalog, ...filler(30)];
    const index = new ToolSearchIndex(all.slice(0, 10));
    index.update(all.slice(5));
    index.update([...all].reverse());
    index.update(all.map((tool, i) => (i % 3 === 0 ? { ...tool, description: `${tool.description} changed` } : tool)));
    index.update(all);
    const fresh = new ToolSearchIndex(all);
    for (const query of ['read file', 'thing number 7', 'create', 'weather forecast', 'repository owner', 'value']) {
      expect(index.search(query, { limit: 25 }).map((x) => x.name), query).toEqual(fresh.search(query, { limit: 25 }).map((x) => x.name));
    }
  });

  it('re-indexes a tool when any indexed text changes, even with the same schema object', () => {
    const base = t('x', 'alpha', 'First tool', { id: '' }, 'Alpha');
    const index = new ToolSearchIndex([base]);
    const changes: Array<[Partial<HarnessTool>, string]> = [
      [{ description: 'Second tool' }, 'second'],
      [{ title: 'Omega' }, 'omega'],
      [{ server: 'renamed' }, 'renamed'],
      [{ originalName: 'gamma' }, 'gamma'],
    ];
    let indexed = index.documentsIndexed;
    for (const [change, word] of changes) {
      const changed = { ...base, ...change };
      index.update([changed]);
      expect(index.documentsIndexed, word).toBe(++indexed);
      expect(index.search(word), word).toEqual([changed]);
    }
  });

  it('keeps the first of two tools with one name', () => {
    const first = t('x', 'echo', 'Echoes text');
    const second = { ...first, description: 'Echoes text loudly' };
    const index = new ToolSearchIndex([first, second]);
    expect(index.size).toBe(1);
    expect(index.search('echoes')).toEqual([first]);
    expect(index.search('loudly')).toEqual([]);
  });

  it('breaks ties by the order of the tool list', () => {
    const twins = [t('a', 'echo', 'Echoes text'), t('b', 'echo', 'Echoes text'), t('c', 'echo', 'Echoes text')];
    expect(new ToolSearchIndex(twins).search('echoes').map((x) => x.server)).toEqual(['a', 'b', 'c']);
    const index = new ToolSearchIndex(twins);
    index.update([...twins].reverse());
    expect(index.search('echoes').map((x) => x.server)).toEqual(['c', 'b', 'a']);
  });
});

describe('ToolSearchCache', () => {
  it('follows the tool list it is given, re-indexing only what changed', () => {
    const cache = new ToolSearchCache();
    expect(cache.search(catalog, 'forecast').map((x) => x.name)).toEqual(['mcp__weather__forecast']);
    expect(cache.documentsIndexed).toBe(catalog.length);
    const renamed = catalog.map((x) => (x.originalName === 'forecast' ? { ...x, name: 'mcp__wx__forecast' } : x));
    expect(cache.search(renamed, 'forecast').map((x) => x.name)).toEqual(['mcp__wx__forecast']);
    expect(cache.search(renamed, 'forecast')[0]).toBe(renamed[4]);
    expect(cache.documentsIndexed).toBe(catalog.length + 1);
  });
});
