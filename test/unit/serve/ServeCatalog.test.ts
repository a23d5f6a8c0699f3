import { describe, expect, it } from 'vitest';
import { gatewayUri, gatewayUriTemplate, parseGatewayUri, ServeCatalog, type CatalogListKind } from '../../../src/core/serve/ServeCatalog';
import { ServeExposure } from '../../../src/core/serve/ServeExposure';
import { memoryHarness } from '../../support/memoryHarness';
import { closers } from './listenerRig';

async function catalogOf(entries: Record<string, object>, exposure: { deny?: string[]; gateway?: boolean } = {}) {
  const rig = memoryHarness(entries, { docs: { content: true, tools: { search: 'found' } } });
  closers.push(() => rig.harness.dispose());
  await rig.harness.start();
  const catalog = new ServeCatalog(rig.harness, new ServeExposure({ expose: [], deny: exposure.deny ?? [], gateway: exposure.gateway ?? true }));
  closers.push(() => catalog.dispose());
  const changes: CatalogListKind[] = [];
  catalog.onDidChange((kind) => changes.push(kind));
  return { ...rig, catalog, changes };
}

describe('ServeCatalog', () => {
  it('names the prompts of servers whose names clash apart, and titles items by name when they have no title', async () => {
    const { catalog } = await catalogOf({ 'p.q': { command: 'docs' }, p_q: { command: 'docs' } });
    expect(catalog.prompts().map((p) => [p.exposed.name, p.exposed.title, p.server])).toEqual([
      ['mcp__p_q__greet', 'greet', 'p.q'],
      ['mcp__p_q__greet_2', 'greet', 'p_q'],
    ]);
    expect(catalog.resolvePrompt('mcp__p_q__greet_2')).toMatchObject({ server: 'p_q', prompt: 'greet' });
    expect(catalog.resourceTemplates().map((t) => [t.name, t.title])).toEqual([
      ['mcp__p_q__note', 'note'],
      ['mcp__p_q__note', 'note'],
    ]);
  });

  it('leaves out the resources, templates and prompts denied by name', async () => {
    const { catalog } = await catalogOf({ docs: { command: 'docs' } }, { deny: ['mcp__docs__readme', 'mcp__docs__note', 'mcp__docs__greet'] });
    expect(catalog.resources()).toEqual([]);
    expect(catalog.resourceTemplates()).toEqual([]);
    expect(catalog.prompts()).toEqual([]);
    expect(catalog.tools().map((t) => t.name)).toEqual(['mcp__docs__echo', 'mcp__docs__search']);
  });

  it('offers no resources or prompts without the gateway', async () => {
    const { catalog } = await catalogOf({ docs: { command: 'docs' } }, { gateway: false });
    expect(catalog.resources()).toEqual([]);
    expect(catalog.resourceTemplates()).toEqual([]);
    expect(catalog.prompts()).toEqual([]);
  });

  it('resolves a listed resource to its entry, a template-made URI of a known server to its parts, and nothing else', async () => {
    const { catalog } = await catalogOf({ docs: { command: 'docs' } });
    const listed = gatewayUri('docs', 'note://readme');
    expect(catalog.resolveResource(listed)).toEqual({ exposed: expect.objectContaining({ uri: listed, name: 'mcp__docs__readme', title: 'readme' }), server: 'docs', uri: 'note://readme' });
    expect(catalog.resolveResource(gatewayUri('docs', 'note://7'))).toEqual({ server: 'docs', uri: 'note://7' });
    expect(catalog.resolveResource(gatewayUri('nobody', 'note://7'))).toBeUndefined();
    expect(catalog.resolveResource('note://7')).toBeUndefined();
  });

  it('drops the items of a server that stopped, and tells of each list that changed', async () => {
    const { catalog, changes, harness } = await catalogOf({ docs: { command: 'docs' } });
    await harness.stopServer('docs');
    await expect.poll(() => catalog.resources()).toEqual([]);
    expect(catalog.prompts()).toEqual([]);
    expect(catalog.resourceTemplates()).toEqual([]);
    expect([...new Set(changes)].sort()).toEqual(['prompts', 'resources', 'tools']);
  });

  it('tells of a tool whose description changed, though the list has as many tools', async () => {
    const { catalog, changes, last } = await catalogOf({ docs: { command: 'docs' } });
    const tool = last('docs').server.registerTool('extra', { description: 'first' }, () => ({ content: [] }));
    await expect.poll(() => catalog.tools().map((t) => t.name)).toContain('mcp__docs__extra');
    changes.length = 0;
    tool.update({ description: 'second' });
    await expect.poll(() => catalog.tools().find((t) => t.name === 'mcp__docs__extra')?.description).toBe('second');
    expect(changes).toEqual(['tools']);
  });
});

describe('gateway URI edges', () => {
  it('encodes braces that do not close an expression of a template', () => {
    expect(gatewayUriTemplate('s', 'a}b/{id}')).toBe('mcp-harness://s/a%7Db%2F{id}');
    expect(gatewayUriTemplate('s', '{a')).toBe('mcp-harness://s/%7Ba');
  });

  it('reads only its own scheme, with a server name before the first slash', () => {
    expect(parseGatewayUri('https://example.com/a/b')).toBeUndefined();
    expect(parseGatewayUri('mcp-harness:///x')).toBeUndefined();
    expect(parseGatewayUri('mcp-harness://only-server')).toBeUndefined();
  });
});
