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
});
