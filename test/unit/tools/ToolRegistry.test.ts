import type { Tool } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { pinTool } from '../../../src/core/tools/toolPin';
import { ToolRegistry } from '../../../src/core/tools/ToolRegistry';
import type { BuiltinTool } from '../../../src/core/tools/types';

const registries: ToolRegistry[] = [];

afterEach(() => {
  for (const registry of registries.splice(0)) registry.dispose();
});

function setup() {
  const warnings: string[] = [];
  const registry = new ToolRegistry({ logger: { warn: (m) => warnings.push(m) } });
  registries.push(registry);
  let changes = 0;
  registry.onDidChange(() => changes++);
  return { registry, warnings, changes: () => changes };
}

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, inputSchema: { type: 'object' }, ...extra };
}

function builtin(name: string): BuiltinTool {
  return {
    name,
    description: `built-in ${name}`,
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    invoke: async () => ({ isError: false, text: 'ok', content: [] }),
  };
}

/** Lets a test hand over what a lying server might list. */
function lying(value: unknown[]): Tool[] {
  return value as Tool[];
}

describe('ToolRegistry', () => {
  it('exposes MCP tools under prefixed names and resolves to the original tool', () => {
    const { registry } = setup();
    const read = tool('read.file', { description: 'Reads', title: 'Read', annotations: { readOnlyHint: true } });
    registry.setServerTools('fs', [read]);
    const fields = { name: 'mcp__fs__read_file', description: 'Reads', title: 'Read', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, server: 'fs', originalName: 'read.file' };
    expect(registry.getTools()).toEqual([{ ...fields, pin: pinTool(fields).hash }]);
    const resolved = registry.resolve('mcp__fs__read_file');
    expect(resolved).toMatchObject({ kind: 'mcp', tool: { server: 'fs' } });
    expect(resolved?.kind === 'mcp' && resolved.listed).toBe(read);
    expect(registry.getTool('mcp__fs__read_file')?.name).toBe('mcp__fs__read_file');
    expect(registry.resolve('mcp__fs__nope')).toBeUndefined();
  });

  it('fires onDidChange only when the exposed tools change', () => {
    const { registry, changes } = setup();
    registry.setServerTools('s', []);
    expect(changes()).toBe(0);
    registry.setServerTools('s', [tool('a'), tool('b')]);
    expect(changes()).toBe(1);
    registry.setServerTools('s', [tool('a'), tool('b')]);
    expect(changes()).toBe(1);
    registry.setServerTools('s', [tool('a'), tool('b', { description: 'now described' })]);
    expect(changes()).toBe(2);
    registry.setServerTools('s', [tool('b', { description: 'now described' }), tool('a')]);
    expect(changes()).toBe(3);
    registry.removeServer('unknown');
    expect(changes()).toBe(3);
    registry.removeServer('s');
    expect(changes()).toBe(4);
    registry.removeServer('s');
    expect(changes()).toBe(4);
  });

  it('keeps the newest tool object when a re-listing changes nothing visible', () => {
    const { registry, changes } = setup();
    registry.setServerTools('s', [tool('a')]);
    const relisted = tool('a', { _meta: { revision: 2 } });
    registry.setServerTools('s', [relisted]);
    expect(changes()).toBe(1);
    const resolved = registry.resolve('mcp__s__a');
    expect(resolved?.kind === 'mcp' && resolved.listed).toBe(relisted);
  });

  it('lists built-ins first, then servers in the order first added, tools in server order', () => {
    const { registry } = setup();
    registry.setServerTools('zeta', [tool('z2'), tool('z1')]);
    registry.setServerTools('alpha', [tool('a1')]);
    registry.registerBuiltin(builtin('search'));
    registry.setServerTools('zeta', [tool('z3'), tool('z2')]);
    expect(registry.getTools().map((t) => t.name)).toEqual(['search', 'mcp__zeta__z3', 'mcp__zeta__z2', 'mcp__alpha__a1']);
    registry.removeServer('zeta');
    registry.setServerTools('zeta', [tool('z1')]);
    expect(registry.getTools().map((t) => t.name)).toEqual(['search', 'mcp__alpha__a1', 'mcp__zeta__z1']);
  });

  it('rejects a duplicate or invalid built-in name, and one in the MCP tools\' namespace', () => {
    const { registry } = setup();
    registry.registerBuiltin(builtin('search'));
    expect(() => registry.registerBuiltin(builtin('search'))).toThrow(/already registered/);
    expect(() => registry.registerBuiltin(builtin('bad name'))).toThrow(/invalid/);
    expect(() => registry.registerBuiltin(builtin('mcp__s__t'))).toThrow(/namespace of MCP tools/);
  });

  it('routes servers whose names contain __ without confusing them', () => {
    const { registry } = setup();
    registry.setServerTools('a__b', [tool('c')]);
    registry.setServerTools('a', [tool('b__c')]);
    expect(registry.resolve('mcp__a__b__c_2')).toMatchObject({ kind: 'mcp', tool: { server: 'a', originalName: 'b__c' } });
    expect(registry.resolve('mcp__a__b__c')).toMatchObject({ kind: 'mcp', tool: { server: 'a__b', originalName: 'c' } });
  });

  it('skips badly shaped tools with a warning and fills in defaults', () => {
    const { registry, warnings } = setup();
    registry.setServerTools(
      'liar',
      lying([
        { inputSchema: { type: 'object' } },
        { name: '', inputSchema: { type: 'object' } },
        { name: 'bad', inputSchema: 'object' },
        null,
        { name: 'bare' },
        { name: 'bare', description: 'again' },
        { name: 'odd', description: 7, title: 3, annotations: 'x', outputSchema: [] },
      ]),
    );
    expect(registry.getTools()).toEqual([
      { name: 'mcp__liar__bare', description: '', inputSchema: { type: 'object' }, server: 'liar', originalName: 'bare', pin: expect.any(String) },
      { name: 'mcp__liar__odd', description: '', inputSchema: { type: 'object' }, server: 'liar', originalName: 'odd', pin: expect.any(String) },
    ]);
    expect(warnings).toHaveLength(5);
    expect(warnings.every((w) => w.startsWith('server "liar": skipped'))).toBe(true);
    expect(warnings.some((w) => w.includes('"bad"'))).toBe(true);
    const bare = registry.getTool('mcp__liar__bare')!;
    expect(registry.validateArguments(bare, undefined)).toBeUndefined();
    expect(registry.validateArguments(bare, 'text')).toBe(
      'invalid arguments for mcp__liar__bare: arguments must be object',
    );
  });

  it('validates arguments for MCP and built-in tools', () => {
    const { registry, warnings } = setup();
    registry.registerBuiltin(builtin('search'));
    registry.setServerTools('s', [
      tool('read', { inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }),
      tool('broken', { inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } }),
    ]);
    const v = (name: string, args: unknown) => registry.validateArguments(registry.getTool(name)!, args);
    expect(v('mcp__s__read', { path: '/x' })).toBeUndefined();
    expect(v('mcp__s__read', undefined)).toBe('invalid arguments for mcp__s__read: missing required argument "path"');
    expect(v('search', { q: 1 })).toBe('invalid arguments for search: "q": must be string');
    expect(v('mcp__s__broken', { a: 1 })).toBeUndefined();
    registry.setServerTools('s', [
      tool('read', { inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }),
      tool('broken', { inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } }),
    ]);
    expect(v('mcp__s__broken', { a: 2 })).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tool "broken" of server "s"');
  });

  it('stops firing once disposed', () => {
    const { registry, changes } = setup();
    registry.dispose();
    registry.setServerTools('s', [tool('a')]);
    expect(changes()).toBe(0);
  });

  it('handles 10,000 tools across 100 servers', () => {
    const { registry, changes } = setup();
    registry.registerBuiltin(builtin('search'));
    const servers = Array.from({ length: 100 }, (_, s) => [
      // Every tenth server's name sanitizes like its neighbour's, to force collisions.
      s % 10 === 0 ? `server.${s + 1}` : `server_${s}`,
      Array.from({ length: 100 }, (_, t) => tool(`tool_${t}`, { description: `tool ${t} of ${s}` })),
    ] as const);
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (const [server, tools] of servers) registry.setServerTools(server, tools);
    const listed = registry.getTools();
    const wall = (performance.now() - started).toFixed(1);
    const user = (process.cpuUsage(cpu).user / 1000).toFixed(1);
    console.log(`ToolRegistry: 10,000 tools on 100 servers set and listed in ${wall} ms (${user} ms CPU)`);

    expect(changes()).toBe(101);
    expect(listed).toHaveLength(10_001);
    expect(new Set(listed.map((t) => t.name)).size).toBe(10_001);
    for (const tool of listed) expect(registry.resolve(tool.name)?.tool).toBe(tool);
    // server.1 listed first and keeps the plain names; server_1 came later.
    expect(registry.resolve('mcp__server_1__tool_0')).toMatchObject({ tool: { server: 'server.1' } });
    expect(registry.resolve('mcp__server_1__tool_0_2')).toMatchObject({ tool: { server: 'server_1' } });
  });
});

describe('ToolRegistry server order', () => {
  it('lists servers in the order the host sets, whatever order they connected in', () => {
    const registry = new ToolRegistry();
    const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });
    registry.setServerTools('b', [tool('x')]);
    registry.setServerTools('a', [tool('y')]);
    expect(registry.getTools().map((t) => t.name)).toEqual(['mcp__b__x', 'mcp__a__y']);
    let changes = 0;
    registry.onDidChange(() => changes++);
    registry.setServerOrder(['a', 'b']);
    expect(registry.getTools().map((t) => t.name)).toEqual(['mcp__a__y', 'mcp__b__x']);
    registry.setServerOrder(['a', 'b']);
    expect(changes).toBe(1);
  });
});

describe('ToolRegistry details', () => {
  it('exposes a built-in as it was registered, with annotations only when given', () => {
    const { registry } = setup();
    registry.registerBuiltin({ ...builtin('plain') });
    registry.registerBuiltin({ ...builtin('marked'), annotations: { readOnlyHint: true } });
    expect(registry.getTools()).toStrictEqual([
      { name: 'plain', description: 'built-in plain', inputSchema: builtin('plain').inputSchema, originalName: 'plain', pin: expect.any(String) },
      { name: 'marked', description: 'built-in marked', inputSchema: builtin('marked').inputSchema, annotations: { readOnlyHint: true }, originalName: 'marked', pin: expect.any(String) },
    ]);
  });

  it('ignores disposing an old registration once the name is registered again', () => {
    const { registry } = setup();
    const first = registry.registerBuiltin(builtin('search'));
    first.dispose();
    registry.registerBuiltin(builtin('search'));
    first.dispose();
    expect(registry.resolve('search')?.kind).toBe('builtin');
    expect(() => registry.registerBuiltin(builtin('search'))).toThrow(/already registered/);
  });

  it('never hands a removed server\'s names to the tools that were suffixed', () => {
    const { registry, changes } = setup();
    registry.setServerTools('a.b', [tool('x')]);
    registry.setServerTools('a_b', [tool('x')]);
    expect(registry.resolve('mcp__a_b__x_2')).toMatchObject({ tool: { server: 'a_b' } });
    registry.removeServer('a.b');
    expect(registry.resolve('mcp__a_b__x')).toBeUndefined();
    expect(registry.serverOfName('mcp__a_b__x')).toBe('a.b');
    expect(registry.resolve('mcp__a_b__x_2')).toMatchObject({ tool: { server: 'a_b' } });
    expect(changes()).toBe(3);
    // A server that never had tools leaves without a change.
    registry.setServerTools('empty', []);
    registry.removeServer('empty');
    expect(changes()).toBe(3);
  });

  it('applies a new server order whenever it differs, and only then', () => {
    const { registry, changes } = setup();
    for (const server of ['c', 'b', 'a']) registry.setServerTools(server, [tool('t')]);
    const order = () => registry.getTools().map((t) => t.server ?? '');
    expect(order()).toEqual(['c', 'b', 'a']);
    registry.setServerOrder(['a', 'b', 'c']);
    expect(order()).toEqual(['a', 'b', 'c']);
    // Only `a` keeps its place: the rest must still move.
    // A shorter order: servers not named follow in the order first added.
    registry.setServerOrder(['a']);
    expect(order()).toEqual(['a', 'c', 'b']);
    registry.setServerOrder(['a', 'b', 'c']);
    registry.setServerOrder(['a', 'c', 'b']);
    expect(order()).toEqual(['a', 'c', 'b']);
    registry.setServerOrder(['b']);
    expect(order()).toEqual(['b', 'c', 'a']);
    const before = changes();
    registry.setServerOrder(['b']);
    expect(changes()).toBe(before);
  });

  it('does not announce a new order while it cannot change the list', () => {
    const { registry, changes } = setup();
    registry.setServerOrder(['x', 'y']);
    registry.setServerTools('x', [tool('t')]);
    expect(changes()).toBe(1);
    registry.setServerOrder(['y', 'x']);
    expect(changes()).toBe(1);
  });

  it('returns the same list and tool objects until something changes', () => {
    const { registry } = setup();
    registry.setServerTools('s', [tool('a')]);
    const list = registry.getTools();
    expect(registry.getTools()).toBe(list);
    expect(registry.getTool('mcp__s__a')).toBe(list[0]);
    registry.setServerTools('s', [tool('a'), tool('b')]);
    expect(registry.getTools()).not.toBe(list);
    expect(registry.getTool('mcp__s__a')).toBe(list[0]);
    expect(registry.getTool('mcp__s__missing')).toBeUndefined();
  });

  it('exposes outputSchema and title only when the server gave them', () => {
    const { registry } = setup();
    const outputSchema = { type: 'object', properties: { n: { type: 'number' } } };
    registry.setServerTools('s', [tool('rich', { outputSchema: outputSchema as Tool['outputSchema'], title: 'Rich' }), tool('bare')]);
    expect(registry.getTools()).toStrictEqual([
      { name: 'mcp__s__rich', description: '', inputSchema: { type: 'object' }, outputSchema, title: 'Rich', server: 's', originalName: 'rich', pin: expect.any(String) },
      { name: 'mcp__s__bare', description: '', inputSchema: { type: 'object' }, server: 's', originalName: 'bare', pin: expect.any(String) },
    ]);
  });

  it('says exactly why it skipped a listed tool, and survives a list that is not an array', () => {
    const { registry, warnings } = setup();
    registry.setServerTools('liar', lying([7, { description: 'nameless' }, { name: 'ok' }, { name: 'ok' }]));
    expect(warnings).toEqual([
      'server "liar": skipped a tool that is not an object',
      'server "liar": skipped a tool without a name',
      'server "liar": skipped a second tool named "ok"',
    ]);
    registry.setServerTools('worse', null as unknown as Tool[]);
    expect(registry.getTools().map((t) => t.name)).toEqual(['mcp__liar__ok']);
    expect(warnings).toHaveLength(3);
  });

  it('names a built-in tool whose schema does not compile as built-in in the warning', () => {
    const { registry, warnings } = setup();
    registry.registerBuiltin({ ...builtin('odd'), inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere' } } } });
    expect(registry.validateArguments(registry.getTool('odd')!, {})).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^built-in tool "odd": input schema cannot be compiled/);
  });

  it('treats a tool that cannot be fingerprinted as changed on every listing', () => {
    const { registry, changes } = setup();
    const annotations = { big: 1n } as unknown as Tool['annotations'];
    registry.setServerTools('s', [tool('t', { annotations, inputSchema: { type: 'object', title: 'first' } })]);
    expect(changes()).toBe(1);
    registry.setServerTools('s', [tool('t', { annotations, inputSchema: { type: 'object', title: 'second' } })]);
    expect(changes()).toBe(2);
    expect(registry.getTool('mcp__s__t')?.inputSchema).toEqual({ type: 'object', title: 'second' });
  });
});

describe('ToolRegistry identities', () => {
  it('finds a tool by server and own name, and by its identity only while the pin holds', () => {
    const { registry } = setup();
    registry.registerBuiltin(builtin('search'));
    registry.setServerTools('s', [tool('a', { description: 'first' })]);
    const a = registry.getTool('mcp__s__a')!;
    expect(registry.find('s', 'a')?.tool).toBe(a);
    expect(registry.find(undefined, 'search')?.kind).toBe('builtin');
    expect(registry.find('s', 'missing')).toBeUndefined();
    expect(registry.resolveIdentity(a)?.tool).toBe(a);
    registry.setServerTools('s', [tool('a', { description: 'second' })]);
    expect(registry.resolveIdentity(a)).toBeUndefined();
    expect(registry.getTool('mcp__s__a')!.pin).not.toBe(a.pin);
    expect(registry.resolveIdentity({ server: 'other', originalName: 'a', pin: a.pin })).toBeUndefined();
  });
});
