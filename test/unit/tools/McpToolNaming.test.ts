import { describe, expect, it } from 'vitest';
import {
  compareToolRefs,
  computeMcpToolNames,
  MAX_TOOL_NAME_LENGTH,
  mcpToolCandidateName,
  McpToolRef,
  sanitizeToolNamePart,
} from '../../../src/core/tools/McpToolNaming';
import { McpToolNameTable } from '../../../src/core/tools/McpToolNameTable';

const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function ref(server: string, tool: string): McpToolRef {
  return { server, tool };
}

/** The table as sorted [name, server, tool] rows, for order-independent comparison. */
function rows(table: Iterable<[string, McpToolRef]>): string[][] {
  return [...table].map(([name, r]) => [name, r.server, r.tool]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** A small deterministic PRNG so that failures reproduce. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
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
    // Both sanitize to the same 64-character candidate; the loser must not grow to 66.
    const table = computeMcpToolNames([], [ref('s', `${toolFor(63)}.`), ref('s', `${toolFor(63)}_`)]);
    expect(table.get(`${PREFIX}${toolFor(63)}_`)).toEqual(ref('s', `${toolFor(63)}.`));
    const [loser] = [...table.keys()].filter((name) => name !== `${PREFIX}${toolFor(63)}_`);
    expect(loser).toHaveLength(64);
    expect(loser).toMatch(/^mcp__s__t+_[0-9a-f]{6}_2$/);
    expect(table.get(loser)).toEqual(ref('s', `${toolFor(63)}_`));
  });

  it('numbers the losers of a 62-character name _2 .. _9, then hashes each _10 past the cap', () => {
    // Eleven pairs want the same 62-character name: _2 .. _9 still fit; `_10` does not, and
    // since each hashed `_10` is distinct, the first free variant of both last losers is `_10`.
    const tools = Array.from({ length: 11 }, (_, i) => `${toolFor(61)}${String.fromCharCode(33 + i)}`);
    const table = computeMcpToolNames([], tools.map((t) => ref('s', t)));
    const names = [...table.keys()];
    expect(names).toHaveLength(11);
    expect(names.filter((n) => n.length === 62)).toEqual([`${PREFIX}${toolFor(61)}_`]);
    expect(names.filter((n) => /_[2-9]$/.test(n) && n.length === 64)).toHaveLength(8);
    expect(names.filter((n) => /_[0-9a-f]{6}_10$/.test(n) && n.length === 64)).toHaveLength(2);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
  });
});

describe('computeMcpToolNames', () => {
  it('gives a shared name to the first pair by server, then tool, and suffixes the rest', () => {
    const table = computeMcpToolNames([], [ref('a_b', 'x'), ref('a.b', 'x'), ref('a-b', 'x'), ref('a b', 'x')]);
    expect(rows(table)).toEqual([
      ['mcp__a-b__x', 'a-b', 'x'],
      ['mcp__a_b__x', 'a b', 'x'],
      ['mcp__a_b__x_2', 'a.b', 'x'],
      ['mcp__a_b__x_3', 'a_b', 'x'],
    ]);
  });

  it('is independent of insertion order', () => {
    const refs = [
      ref('fs', 'read'),
      ref('fs', 'read.'),
      ref('fs.', 'read'),
      ref('fs_', 'read'),
      ref('x', 'y'.repeat(90)),
      ref('x', `${'y'.repeat(90)}!`),
      ref('a__b', 'c'),
      ref('a', 'b__c'),
    ];
    const expected = rows(computeMcpToolNames(['mcp__fs__read'], refs));
    const next = random(7);
    for (let i = 0; i < 20; i++) {
      expect(rows(computeMcpToolNames(['mcp__fs__read'], shuffle(refs, next)))).toEqual(expected);
    }
  });

  it('lets a built-in keep its name', () => {
    const table = computeMcpToolNames(['mcp__s__t'], [ref('s', 't')]);
    expect(rows(table)).toEqual([['mcp__s__t_2', 's', 't']]);
  });

  it('skips suffixes that are built-in names or another pair\'s own name', () => {
    const table = computeMcpToolNames(['mcp__s__x_y_3'], [ref('s', 'x.y'), ref('s', 'x_y'), ref('s', 'x_y_2')]);
    expect(rows(table)).toEqual([
      ['mcp__s__x_y', 's', 'x.y'],
      ['mcp__s__x_y_2', 's', 'x_y_2'],
      ['mcp__s__x_y_4', 's', 'x_y'],
    ]);
  });

  it('numbers many losers of one name in order, skipping taken numbers', () => {
    const table = computeMcpToolNames([], ['x%', 'x__3', 'x$', 'x!', 'x#'].map((t) => ref('s', t)));
    expect(rows(table)).toEqual([
      ['mcp__s__x_', 's', 'x!'],
      ['mcp__s__x__2', 's', 'x#'],
      ['mcp__s__x__3', 's', 'x__3'],
      ['mcp__s__x__4', 's', 'x$'],
      ['mcp__s__x__5', 's', 'x%'],
    ]);
  });

  it('routes names containing __ to the right pair, never by splitting', () => {
    const table = computeMcpToolNames([], [ref('a__b', 'c'), ref('a', 'b__c')]);
    expect(table.get('mcp__a__b__c')).toEqual(ref('a', 'b__c'));
    expect(table.get('mcp__a__b__c_2')).toEqual(ref('a__b', 'c'));
  });

  it('gives unique valid names to many colliding long pairs', () => {
    const refs: McpToolRef[] = [];
    for (let i = 0; i < 50; i++) refs.push(ref(`server.${i % 3}`, `${'n'.repeat(60)}${i % 5}`), ref(`server_${i % 3}`, `t${i}`));
    const table = computeMcpToolNames([], refs);
    const unique = new Set(refs.map((r) => `${r.server}\0${r.tool}`));
    expect(table.size).toBe(unique.size);
    for (const name of table.keys()) expect(name).toMatch(VALID_NAME);
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

  it('gives a suffixed name back when the name it skipped is freed', () => {
    const table = new McpToolNameTable();
    table.setServer('s__x', ['2']); // holds mcp__s__x__2
    table.setServer('s', ['x.', 'x_']); // both want mcp__s__x_
    expect(table.nameOf('s', 'x_')).toBe('mcp__s__x__3');
    table.removeServer('s__x');
    expect(table.nameOf('s', 'x_')).toBe('mcp__s__x__2');
    table.setServer('s__x', ['2']);
    expect(table.nameOf('s__x', '2')).toBe('mcp__s__x__2');
    expect(table.nameOf('s', 'x_')).toBe('mcp__s__x__3');
  });

  it.each([1, 42, 2024])('always matches the pure computation, whatever the updates (seed %i)', (seed) => {
    const next = random(seed);
    const servers = ['a', 'a.', 'a_', 'a__b', 'a__x', 'b', 'long'.repeat(10)];
    const tools = ['x', 'x.', 'x_', 'x_2', 'x_3', 'x._2', '2', 'b__x', 'q'.repeat(70), `${'q'.repeat(70)}.`];
    const builtins = ['mcp__a__x', 'mcp__a__x_2', 'mcp__a__x_3', 'mcp__b__x_'];
    const table = new McpToolNameTable();
    const state = new Map<string, string[]>();
    const active = new Set<string>();
    for (let step = 0; step < 300; step++) {
      const roll = next();
      if (roll < 0.1) {
        const name = builtins[Math.floor(next() * builtins.length)];
        if (active.delete(name)) {
          table.removeBuiltin(name);
        } else {
          active.add(name);
          table.addBuiltin(name);
        }
      } else if (roll < 0.25) {
        const server = servers[Math.floor(next() * servers.length)];
        table.removeServer(server);
        state.delete(server);
      } else {
        const server = servers[Math.floor(next() * servers.length)];
        const list = tools.filter(() => next() < 0.5);
        table.setServer(server, list);
        state.set(server, list);
      }
      const refs = [...state].flatMap(([server, list]) => list.map((tool) => ref(server, tool)));
      expect(rows(table.entries())).toEqual(rows(computeMcpToolNames(active, refs)));
    }
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

  it('forgets every name of a removed server, and knows nothing of unknown ones', () => {
    const table = new McpToolNameTable();
    table.setServer('s', ['a', 'a.']);
    expect(table.nameOf('s', 'a.')).toBe('mcp__s__a_');
    expect(table.nameOf('s', 'a')).toBe('mcp__s__a');
    table.setServer('s', ['a']);
    expect(table.nameOf('s', 'a.')).toBeUndefined();
    table.removeServer('s');
    expect(table.nameOf('s', 'a')).toBeUndefined();
    expect(table.resolve('mcp__s__a')).toBeUndefined();
    expect(table.size).toBe(0);
    expect(table.nameOf('never', 'a')).toBeUndefined();
    table.removeServer('never');
    expect(table.size).toBe(0);
  });

  it('moves a tool out of the way of a built-in and back, once per name', () => {
    const table = new McpToolNameTable();
    table.setServer('s', ['t']);
    table.addBuiltin('mcp__s__t');
    table.addBuiltin('mcp__s__t');
    expect(table.nameOf('s', 't')).toBe('mcp__s__t_2');
    table.removeBuiltin('mcp__s__t');
    expect(table.nameOf('s', 't')).toBe('mcp__s__t');
    table.removeBuiltin('mcp__s__t');
    expect(table.nameOf('s', 't')).toBe('mcp__s__t');
  });
});
