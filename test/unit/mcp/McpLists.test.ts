import { Client } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { McpLists } from '../../../src/core/mcp/McpLists';
import { linkedTo, modernEndpoint, tapSends } from '../../support/memoryTransports';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

type Pages = Record<string, { items: unknown[]; next?: string }>;

/** A server that lists what the test gives it, page by page, keyed by cursor ('' for the first page). */
async function connect(listings: { tools?: Pages; resources?: Pages; templates?: Pages; prompts?: Pages }, capabilities: object = { tools: {} }) {
  const server = new Server({ name: 'lists', version: '1' }, { capabilities });
  const requests: string[] = [];
  const page = (method: string, key: string, pages: Pages | undefined) => {
    if (!pages) return;
    server.setRequestHandler(method as 'tools/list', (request) => {
      const cursor = request.params?.cursor ?? '';
      requests.push(`${method} ${cursor}`);
      const p = pages[cursor];
      if (!p) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no page ${cursor}`);
      return { [key]: p.items, ...(p.next === undefined ? {} : { nextCursor: p.next }) } as never;
    });
  };
  page('tools/list', 'tools', listings.tools);
  page('resources/list', 'resources', listings.resources);
  page('resources/templates/list', 'resourceTemplates', listings.templates);
  page('prompts/list', 'prompts', listings.prompts);
  const client = new Client({ name: 'c', version: '1' });
  clients.push(client);
  await client.connect(linkedTo(server));
  const warnings: string[] = [];
  const lists = new McpLists(() => client, (m) => warnings.push(m));
  return { lists, warnings, requests, capabilities: client.getServerCapabilities() ?? {} };
}

const tool = (name: string, extra: object = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });

describe('McpLists', () => {
  it('follows the cursor to the last page', async () => {
    const { lists, requests, capabilities } = await connect({ tools: { '': { items: [tool('a')], next: 'p2' }, p2: { items: [tool('b')], next: 'p3' }, p3: { items: [tool('c')] } } });
    await lists.refreshAll(capabilities);
    expect(lists.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(requests).toEqual(['tools/list ', 'tools/list p2', 'tools/list p3']);
  });

  it('stops at a repeated cursor with a warning, keeping what it got', async () => {
    const { lists, warnings, capabilities } = await connect({ tools: { '': { items: [tool('a')], next: 'again' }, again: { items: [tool('b')], next: 'again' } } });
    await lists.refreshAll(capabilities);
    expect(lists.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(warnings).toEqual(['tools/list repeated cursor "again"; stopping after 2 pages']);
  });

  it('gives up after 1000 pages of a server that never ends', async () => {
    const pages: Pages = new Proxy({}, { get: (_t, cursor: string) => ({ items: [], next: `${cursor}x` }) });
    const { lists, warnings, requests, capabilities } = await connect({ tools: pages });
    await lists.refreshAll(capabilities);
    expect(requests).toHaveLength(1000);
    expect(warnings).toEqual(['tools/list still had more after 1000 pages; the rest is ignored']);
  });

  it('skips an entry that breaks the MCP schema, naming it, and keeps the rest', async () => {
    const { lists, warnings, capabilities } = await connect(
      {
        tools: { '': { items: [tool('good'), { name: 'no-schema' }, { description: 'nameless' }, 7] } },
        resources: { '': { items: [{ uri: 'mem://ok', name: 'ok' }, { uri: 'mem://bad' }] } },
        templates: { '': { items: [] } },
      },
      { tools: {}, resources: {} },
    );
    await lists.refreshAll(capabilities);
    expect(lists.tools.map((t) => t.name)).toEqual(['good']);
    expect(lists.resources.map((r) => r.uri)).toEqual(['mem://ok']);
    expect(warnings.map((w) => w.replace(/\): .*/, ')')).sort()).toEqual([
      'resources/list: skipped an entry that breaks the MCP schema ("mem://bad")',
      'tools/list: skipped an entry that breaks the MCP schema ("no-schema")',
      'tools/list: skipped an entry that breaks the MCP schema (7)',
      'tools/list: skipped an entry that breaks the MCP schema ({"description":"nameless"})',
    ]);
  });

  it('lists resources, templates and prompts only when the server declares them, and no tools when it has none', async () => {
    const listings = {
      resources: { '': { items: [{ uri: 'mem://r', name: 'r' }] } },
      templates: { '': { items: [{ uriTemplate: 'mem://{id}', name: 't' }] } },
      prompts: { '': { items: [{ name: 'p' }] } },
    };
    const declared = await connect(listings, { resources: {}, prompts: {} });
    await declared.lists.refreshAll(declared.capabilities);
    expect(declared.lists.tools).toEqual([]);
    expect(declared.lists.resources.map((r) => r.name)).toEqual(['r']);
    expect(declared.lists.resourceTemplates.map((r) => r.name)).toEqual(['t']);
    expect(declared.lists.prompts.map((p) => p.name)).toEqual(['p']);

    // The SDK client refuses to send what the server did not declare, so asking would fail here.
    const undeclared = await connect({ tools: { '': { items: [tool('t')] } } }, { tools: {} });
    await undeclared.lists.refreshAll(undeclared.capabilities);
    expect(undeclared.requests).toEqual(['tools/list ']);
    expect(await undeclared.lists.refresh('resources', undeclared.capabilities)).toBe(false);
    expect(await undeclared.lists.refresh('prompts', undeclared.capabilities)).toBe(false);
    expect(undeclared.requests).toEqual(['tools/list ']);
  });

  it('says whether a relist changed anything, and keeps the same arrays when it did not', async () => {
    const tools: Pages = { '': { items: [tool('a')] } };
    const prompts: Pages = { '': { items: [{ name: 'p' }] } };
    const resources: Pages = { '': { items: [] } };
    const { lists, capabilities } = await connect({ tools, prompts, resources, templates: { '': { items: [] } } }, { tools: {}, prompts: {}, resources: {} });
    await lists.refreshAll(capabilities);
    const before = lists.tools;
    expect(await lists.refresh('tools', capabilities)).toBe(false);
    expect(lists.tools).toBe(before);
    tools[''] = { items: [tool('a', { description: 'now described' })] };
    expect(await lists.refresh('tools', capabilities)).toBe(true);
    expect(lists.tools[0].description).toBe('now described');
    expect(await lists.refresh('prompts', capabilities)).toBe(false);
    prompts[''] = { items: [{ name: 'p' }, { name: 'q' }] };
    expect(await lists.refresh('prompts', capabilities)).toBe(true);
    resources[''] = { items: [{ uri: 'mem://new', name: 'new' }] };
    expect(await lists.refresh('resources', capabilities)).toBe(true);
    expect(lists.resources.map((r) => r.uri)).toEqual(['mem://new']);
  });

  it('keeps the previous list with a warning when a relist fails', async () => {
    const tools: Pages = { '': { items: [tool('a')] } };
    const { lists, warnings, capabilities } = await connect({ tools });
    await lists.refreshAll(capabilities);
    delete tools[''];
    expect(await lists.refresh('tools', capabilities)).toBe(false);
    expect(lists.tools.map((t) => t.name)).toEqual(['a']);
    expect(warnings).toEqual(['re-listing tools failed, keeping the previous list: no page ']);
  });

  it('compiles an output validator per tool, anew after the tools change, and none for a schema that does not compile', async () => {
    const tools: Pages = {
      '': {
        items: [
          tool('typed', { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } }),
          tool('broken', { outputSchema: { type: 'object', properties: { n: { type: 'no-such-type' } } } }),
          tool('plain'),
        ],
      },
    };
    const { lists, warnings, capabilities } = await connect({ tools });
    await lists.refreshAll(capabilities);
    const typed = lists.outputValidator('typed')!;
    expect(typed({ n: 1 }).valid).toBe(true);
    expect(typed({ n: 'x' }).valid).toBe(false);
    expect(lists.outputValidator('typed')).toBe(typed);
    expect(lists.outputValidator('plain')).toBeUndefined();
    expect(lists.outputValidator('missing')).toBeUndefined();
    expect(lists.outputValidator('broken')).toBeUndefined();
    expect(lists.outputValidator('broken')).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^output schema of "broken" cannot be compiled; its output is not checked: /);
    tools[''] = { items: [tool('typed', { outputSchema: { type: 'object', properties: { n: { type: 'string' } } } })] };
    await lists.refresh('tools', capabilities);
    expect(lists.outputValidator('typed')!({ n: 'x' }).valid).toBe(true);
  });
});

describe('McpLists, more', () => {
  it('has nothing listed before and without the server declaring it', async () => {
    const { lists, warnings, capabilities } = await connect({ tools: { '': { items: [tool('t')] } } });
    expect([lists.resources, lists.resourceTemplates, lists.prompts]).toEqual([[], [], []]);
    await lists.refreshAll(capabilities);
    expect([lists.resources, lists.resourceTemplates, lists.prompts]).toEqual([[], [], []]);
    expect(await lists.refresh('prompts', capabilities)).toBe(false);
    expect(await lists.refresh('resources', capabilities)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('keeps resources when the server has no templates, and tells an unchanged relist of resources', async () => {
    const { lists, capabilities } = await connect({ resources: { '': { items: [{ uri: 'mem://a', name: 'a' }] } } }, { tools: {}, resources: {} });
    await lists.refreshAll(capabilities);
    expect(lists.resources.map((r) => r.uri)).toEqual(['mem://a']);
    expect(lists.resourceTemplates).toEqual([]);
    expect(lists.tools).toEqual([]);
    const before = lists.resources;
    expect(await lists.refresh('resources', capabilities)).toBe(false);
    expect(lists.resources).toBe(before);
  });

  it('fails a listing whose page is not a list, and names odd entries briefly', async () => {
    const broken = await connect({ tools: { '': { items: 'nope' as never } } });
    await expect(broken.lists.refreshAll(broken.capabilities)).rejects.toThrow();
    const odd = await connect({ tools: { '': { items: [null, { description: 'x'.repeat(200) }, tool('ok')] } } });
    await odd.lists.refreshAll(odd.capabilities);
    expect(odd.lists.tools.map((t) => t.name)).toEqual(['ok']);
    expect(odd.warnings[0]).toMatch(/^tools\/list: skipped an entry that breaks the MCP schema \(null\): /);
    expect(odd.warnings[1]).toContain(`({"description":"${'x'.repeat(64)}): `);
  });

  it('stops listing when told to', async () => {
    const { lists, capabilities } = await connect({ tools: new Proxy({}, { get: () => new Promise(() => undefined) }) as never });
    const controller = new AbortController();
    const listing = lists.refreshAll(capabilities, controller.signal);
    controller.abort();
    await expect(listing).rejects.toThrow();
  });

  it('lists a 2026-07-28 server through the SDK', async () => {
    const endpoint = modernEndpoint(() => {
      const server = new Server({ name: 'modern', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/list', () => ({ tools: [tool('good')] }) as never);
      return server;
    });
    const client = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    clients.push(client);
    await client.connect(endpoint.transport());
    expect(client.getProtocolEra()).toBe('modern');
    const lists = new McpLists(() => client, () => undefined);
    await lists.refreshAll(client.getServerCapabilities() ?? {});
    expect(lists.tools.map((t) => t.name)).toEqual(['good']);
    expect(endpoint.methods.filter((m) => m === 'tools/list')).toHaveLength(1);
  });

  it('lists no tools of a 2026-07-28 server that has none', async () => {
    const endpoint = modernEndpoint(() => new Server({ name: 'modern', version: '1' }, { capabilities: { prompts: {} } }));
    const client = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    clients.push(client);
    await client.connect(endpoint.transport());
    const warnings: string[] = [];
    const lists = new McpLists(() => client, (m) => warnings.push(m));
    await lists.refresh('tools', {});
    expect(lists.tools).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('McpLists over Streamable HTTP at 2026-07-28', () => {
  it('takes a method the server does not have (a 404 carrying -32601) for an empty list, as over any other transport', async () => {
    const endpoint = modernEndpoint(() => {
      const server = new Server({ name: 'docs', version: '1' }, { capabilities: { resources: {} } });
      server.setRequestHandler('resources/list', () => ({ resources: [{ uri: 'mem://a', name: 'a' }] }));
      return server;
    });
    const client = new Client({ name: 'c', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    clients.push(client);
    await client.connect(endpoint.transport());
    const warnings: string[] = [];
    const lists = new McpLists(() => client, (m) => warnings.push(m));
    await lists.refreshAll(client.getServerCapabilities() ?? {});
    expect(lists.resources.map((r) => r.uri)).toEqual(['mem://a']);
    expect(lists.resourceTemplates).toEqual([]);
    expect(lists.tools).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('McpLists, what it asks', () => {
  it('asks a server only for the lists it declared', async () => {
    const server = new Server({ name: 'tools-only', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [tool('t')] }) as never);
    const sent: string[] = [];
    const client = new Client({ name: 'c', version: '1' });
    clients.push(client);
    await client.connect(tapSends(linkedTo(server), (m) => void ('method' in m && sent.push(m.method))));
    const lists = new McpLists(() => client, () => undefined);
    await lists.refreshAll({ tools: {} });
    await lists.refresh('prompts', { tools: {} });
    await lists.refresh('resources', { tools: {} });
    expect(sent.filter((m) => m.endsWith('/list'))).toEqual(['tools/list']);
  });

  it('keeps empty lists for what a server declared but does not answer', async () => {
    const server = new Server({ name: 'declares', version: '1' }, { capabilities: { tools: {}, resources: {}, prompts: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: [] }) as never);
    const client = new Client({ name: 'c', version: '1' });
    clients.push(client);
    await client.connect(linkedTo(server));
    const lists = new McpLists(() => client, () => undefined);
    await lists.refreshAll(client.getServerCapabilities() ?? {});
    expect([lists.resources, lists.resourceTemplates, lists.prompts]).toEqual([[], [], []]);
  });

  it('gives up a listing the server never answers when told to stop', async () => {
    const server = new Server({ name: 'silent', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => new Promise(() => undefined) as never);
    const client = new Client({ name: 'c', version: '1' });
    clients.push(client);
    await client.connect(linkedTo(server));
    const lists = new McpLists(() => client, () => undefined);
    const controller = new AbortController();
    const listing = lists.refreshAll({ tools: {} }, controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(listing).rejects.toThrow();
  });
});
