import { describe, expect, it } from 'vitest';
import {
  compareToolRefs,
  MAX_TOOL_NAME_LENGTH,
  mcpToolCandidateName,
  McpToolRef,
  sanitizeToolNamePart,
} from '../../../src/core/tools/McpToolNaming';
import { MAX_RESERVED_PER_SERVER, McpToolNameTable } from '../../../src/core/tools/McpToolNameTable';

const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function ref(server: string, tool: string): McpToolRef {
  return { server, tool };
}

/** The table as sorted [name, server, tool] rows, for order-independent comparison. */
function rows(table: Iterable<[string, McpToolRef]>): string[][] {
  return [...table].map(([name, r]) => [name, r.server, r.tool]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe('sanitizeToolNamePart', () => {
  it('replaces characters outside [A-Za-z0-9_-] with _', () => {
    expect(sanitizeToolNamePart('read file.v2/x')).toBe('read_file_v2_x');
    expect(sanitizeToolNamePart('ok_Name-9')).toBe('ok_Name-9');
  });

  it('replaces a character outside the BMP with a single _', () => {
    expect(sanitizeToolNamePart('a😀b')).toBe('a_b');
  });
});

describe('compareToolRefs', () => {
  it('orders by server, then tool, by UTF-16 code units, and calls equal refs equal', () => {
    expect(compareToolRefs(ref('a', 'z'), ref('b', 'a'))).toBe(-1);
    expect(compareToolRefs(ref('b', 'a'), ref('a', 'z'))).toBe(1);
    expect(compareToolRefs(ref('s', 'a'), ref('s', 'b'))).toBe(-1);
    expect(compareToolRefs(ref('s', 'b'), ref('s', 'a'))).toBe(1);
    expect(compareToolRefs(ref('s', 't'), ref('s', 't'))).toBe(0);
    // Upper case sorts before lower case whatever the locale says.
    expect(compareToolRefs(ref('Z', 't'), ref('a', 't'))).toBe(-1);
  });
});

describe('mcpToolCandidateName', () => {
  it('prefixes the sanitized pair', () => {
    expect(mcpToolCandidateName(ref('my.server', 'read file'))).toBe('mcp__my_server__read_file');
  });

  it('caps long names at 64 characters with a stable hash of the full pair', () => {
    const long = ref('server', 'x'.repeat(100));
    const name = mcpToolCandidateName(long);
    expect(name).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(name).toMatch(/^mcp__server__x+_[0-9a-f]{6}$/);
    expect(mcpToolCandidateName(ref('server', 'x'.repeat(100)))).toBe(name);
    expect(mcpToolCandidateName(ref('server', 'x'.repeat(101)))).not.toBe(name);
  });

  it('hashes the original pair, so pairs that sanitize alike get different long names', () => {
    const a = mcpToolCandidateName(ref('s', `${'y'.repeat(70)}.a`));
    const b = mcpToolCandidateName(ref('s', `${'y'.repeat(70)}_a`));
    expect(a).not.toBe(b);
    expect(a.slice(0, -6)).toBe(b.slice(0, -6));
  });

  it('keeps numbered variants within 64 characters', () => {
    expect(mcpToolCandidateName(ref('s', 't'), 2)).toBe('mcp__s__t_2');
    const long = mcpToolCandidateName(ref('s', 'z'.repeat(80)), 12);
    expect(long).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(long).toMatch(/_[0-9a-f]{6}_12$/);
    const edge = mcpToolCandidateName(ref('s', 'w'.repeat(64 - 'mcp__s__'.length)), 2);
    expect(edge).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(edge).toMatch(/_[0-9a-f]{6}_2$/);
  });
});

describe('the 64-character cap', () => {
  // Literal numbers on purpose: these pin the limit providers enforce, not whatever the constant says.
  const PREFIX = 'mcp__s__';
  const toolFor = (length: number) => 't'.repeat(length - PREFIX.length);

  it('is 64', () => {
    expect(MAX_TOOL_NAME_LENGTH).toBe(64);
  });

  it('keeps a name of exactly 64 characters as it is', () => {
    const name = mcpToolCandidateName(ref('s', toolFor(64)));
    expect(name).toBe(PREFIX + toolFor(64));
    expect(name).toHaveLength(64);
  });

  it('cuts a name that would be 65 characters to 64, ending in the pair hash', () => {
    const name = mcpToolCandidateName(ref('s', toolFor(65)));
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp__s__t+_[0-9a-f]{6}$/);
    expect(name.slice(0, 57)).toBe((PREFIX + toolFor(65)).slice(0, 57));
  });

  it('adds a numbered suffix without hashing while the result fits in 64', () => {
    expect(mcpToolCandidateName(ref('s', toolFor(62)), 2)).toBe(`${PREFIX}${toolFor(62)}_2`);
    const hashed = mcpToolCandidateName(ref('s', toolFor(63)), 2);
    expect(hashed).toHaveLength(64);
    expect(hashed).toMatch(/^mcp__s__t+_[0-9a-f]{6}_2$/);
  });

  it('gives colliding pairs at the boundary names of at most 64 characters', () => {
    // Both sanitize to the same 64-character candidate; the second must not grow to 66.
    const table = new McpToolNameTable();
    table.setServer('s', [`${toolFor(63)}.`, `${toolFor(63)}_`]);
    expect(table.resolve(`${PREFIX}${toolFor(63)}_`)).toEqual(ref('s', `${toolFor(63)}.`));
    const loser = table.nameOf('s', `${toolFor(63)}_`)!;
    expect(loser).toHaveLength(64);
    expect(loser).toMatch(/^mcp__s__t+_[0-9a-f]{6}_2$/);
    expect(table.resolve(loser)).toEqual(ref('s', `${toolFor(63)}_`));
  });

  it('numbers the losers of a 62-character name _2 .. _9, then hashes each _10 past the cap', () => {
    // Eleven pairs want the same 62-character name: _2 .. _9 still fit; `_10` does not, and
    // since each hashed `_10` is distinct, the first free variant of both last losers is `_10`.
    const tools = Array.from({ length: 11 }, (_, i) => `${toolFor(61)}${String.fromCharCode(33 + i)}`);
    const table = new McpToolNameTable();
    table.setServer('s', tools);
    const names = [...table.entries()].map(([name]) => name);
    expect(names).toHaveLength(11);
    expect(names.filter((n) => n.length === 62)).toEqual([`${PREFIX}${toolFor(61)}_`]);
    expect(names.filter((n) => /_[2-9]$/.test(n) && n.length === 64)).toHaveLength(8);
    expect(names.filter((n) => /_[0-9a-f]{6}_10$/.test(n) && n.length === 64)).toHaveLength(2);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
  });
});

describe('McpToolNameTable', () => {
  it('routes exposed names back to the original pair', () => {
    const table = new McpToolNameTable();
    table.setServer('my.srv', ['read file', 'a__b']);
    expect(table.resolve('mcp__my_srv__read_file')).toEqual(ref('my.srv', 'read file'));
    expect(table.resolve('mcp__my_srv__a__b')).toEqual(ref('my.srv', 'a__b'));
    expect(table.nameOf('my.srv', 'a__b')).toBe('mcp__my_srv__a__b');
    expect(table.resolve('mcp__my_srv__nope')).toBeUndefined();
  });

  it('keeps a name with the tool it was first given to: a server that comes later gets the suffix', () => {
    for (const [first, second] of [['p_q', 'p.q'], ['p.q', 'p_q']]) {
      const table = new McpToolNameTable();
      table.setServer(first!, ['read']);
      table.setServer(second!, ['read']);
      expect(table.resolve('mcp__p_q__read')).toEqual(ref(first!, 'read'));
      expect(table.resolve('mcp__p_q__read_2')).toEqual(ref(second!, 'read'));
      // Re-listing, in any order, moves nothing.
      table.setServer(second!, ['read', 'other']);
      table.setServer(first!, ['read']);
      expect(table.resolve('mcp__p_q__read')).toEqual(ref(first!, 'read'));
    }
  });

  it('keeps a name with its tool on one server too: a tool listed later gets the suffix', () => {
    const table = new McpToolNameTable();
    table.setServer('a', ['x_y']);
    table.setServer('a', ['x_y', 'x.y']);
    expect(table.resolve('mcp__a__x_y')).toEqual(ref('a', 'x_y'));
    expect(table.resolve('mcp__a__x_y_2')).toEqual(ref('a', 'x.y'));
  });

  it('names the tools of one listing in server, tool order', () => {
    const table = new McpToolNameTable();
    table.setServer('a', ['x_y', 'x.y', 'x-y']);
    expect(rows(table.entries())).toEqual([
      ['mcp__a__x-y', 'a', 'x-y'],
      ['mcp__a__x_y', 'a', 'x.y'],
      ['mcp__a__x_y_2', 'a', 'x_y'],
    ]);
  });

  it('keeps a name reserved while its tool is not listed, and gives it back when it returns', () => {
    const table = new McpToolNameTable();
    table.setServer('p_q', ['read']);
    table.removeServer('p_q'); // its server stopped
    expect(table.resolve('mcp__p_q__read')).toBeUndefined();
    expect(table.ownerOf('mcp__p_q__read')).toEqual(ref('p_q', 'read'));
    table.setServer('p.q', ['read']); // another server appears meanwhile
    expect(table.nameOf('p.q', 'read')).toBe('mcp__p_q__read_2');
    table.setServer('p_q', ['read']);
    expect(table.resolve('mcp__p_q__read')).toEqual(ref('p_q', 'read'));
  });

  it('skips suffixes that another tool holds as its own name', () => {
    const table = new McpToolNameTable();
    table.setServer('s__x', ['2']); // holds mcp__s__x__2
    table.setServer('s', ['x.', 'x_']); // both want mcp__s__x_
    expect(table.nameOf('s', 'x.')).toBe('mcp__s__x_');
    expect(table.nameOf('s', 'x_')).toBe('mcp__s__x__3');
  });

  it('routes names containing __ to the right pair, never by splitting', () => {
    const table = new McpToolNameTable();
    table.setServer('a', ['b__c']);
    table.setServer('a__b', ['c']);
    expect(table.resolve('mcp__a__b__c')).toEqual(ref('a', 'b__c'));
    expect(table.resolve('mcp__a__b__c_2')).toEqual(ref('a__b', 'c'));
  });

  it('gives unique valid names to many colliding long pairs', () => {
    const table = new McpToolNameTable();
    for (let i = 0; i < 50; i++) {
      table.setServer(`server.${i % 3}`, [`${'n'.repeat(60)}${i % 5}`]);
      table.setServer(`server_${i % 3}`, [`t${i}`]);
    }
    for (const [name] of table.entries()) expect(name).toMatch(VALID_NAME);
    // Every pair ever listed kept its own name, listed or not.
    const all = new Set<string>();
    for (let i = 0; i < 50; i++) {
      all.add(table.nameOf(`server.${i % 3}`, `${'n'.repeat(60)}${i % 5}`)!);
      all.add(table.nameOf(`server_${i % 3}`, `t${i}`)!);
    }
    expect(all.size).toBe(15 + 50);
  });

  it('releases only a churning server\'s own oldest unlisted names past the cap', () => {
    const table = new McpToolNameTable();
    table.setServer('steady', ['keep']);
    for (let i = 0; i <= MAX_RESERVED_PER_SERVER + 5; i++) table.setServer('churn', [`t${i}`]);
    expect(table.nameOf('churn', 't0')).toBeUndefined();
    expect(table.nameOf('churn', 't10')).toBe('mcp__churn__t10');
    expect(table.nameOf('churn', `t${MAX_RESERVED_PER_SERVER + 5}`)).toBe(`mcp__churn__t${MAX_RESERVED_PER_SERVER + 5}`);
    expect(table.nameOf('steady', 'keep')).toBe('mcp__steady__keep');
  });
});

describe('McpToolNameTable bookkeeping', () => {
  it('counts a tool listed twice by one server once', () => {
    const table = new McpToolNameTable();
    table.setServer('s', ['a', 'a', 'b']);
    expect(table.size).toBe(2);
    expect(rows(table.entries())).toEqual([
      ['mcp__s__a', 's', 'a'],
      ['mcp__s__b', 's', 'b'],
    ]);
  });

  it('resolves only what a server lists now, and knows nothing of unknown ones', () => {
    const table = new McpToolNameTable();
    table.setServer('s', ['a', 'a.']);
    expect(table.nameOf('s', 'a.')).toBe('mcp__s__a_');
    expect(table.nameOf('s', 'a')).toBe('mcp__s__a');
    table.setServer('s', ['a']);
    expect(table.resolve('mcp__s__a_')).toBeUndefined();
    table.removeServer('s');
    expect(table.resolve('mcp__s__a')).toBeUndefined();
    expect(table.size).toBe(0);
    expect(table.nameOf('never', 'a')).toBeUndefined();
    expect(table.ownerOf('mcp__never__a')).toBeUndefined();
    table.removeServer('never');
    expect(table.size).toBe(0);
  });
});
