import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../../src/core/config';

describe('splitCommandLine', () => {
  it('splits words and honours quotes and escapes', () => {
    expect(splitCommandLine('npx -y @modelcontextprotocol/server-filesystem  "/my docs" \'$HOME\'')).toEqual([
      'npx', '-y', '@modelcontextprotocol/server-filesystem', '/my docs', '$HOME',
    ]);
    expect(splitCommandLine('a\\ b "say \\"hi\\"" ""')).toEqual(['a b', 'say "hi"', '']);
    expect(splitCommandLine('   ')).toEqual([]);
  });

  it('rejects an unclosed quote', () => {
    expect(() => splitCommandLine('node "x')).toThrow('unclosed double quote');
  });

  it('keeps backslashes literal except before a quote or backslash inside double quotes', () => {
    expect(splitCommandLine('"a\\"b" "c\\\\d" "e\\nf" "g\\ h"')).toEqual(['a"b', 'c\\d', 'e\\nf', 'g\\ h']);
  });

  it('makes a word of an escaped character alone, and keeps a trailing backslash', () => {
    expect(splitCommandLine('\\ ')).toEqual([' ']);
    expect(splitCommandLine('x \\')).toEqual(['x', '\\']);
    expect(splitCommandLine("it\\'s")).toEqual(["it's"]);
  });

  it('names the kind of quote left open', () => {
    expect(() => splitCommandLine("node 'x")).toThrow(/^unclosed single quote$/);
    expect(() => splitCommandLine('node "x')).toThrow(/^unclosed double quote$/);
  });
});
