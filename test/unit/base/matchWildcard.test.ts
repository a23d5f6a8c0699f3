import { describe, expect, it } from 'vitest';
import { matchWildcard } from '../../../src/core/base/matchWildcard';
import { matchToolPattern } from '../../../src/core/permissions/toolPattern';

describe('matchWildcard', () => {
  it.each<[string, string, boolean, boolean?]>([
    ['mcp__memory__*', 'mcp__memory__read_graph', true],
    ['mcp__github__list_*', 'mcp__github__create_issue', false],
    ['*', '', true],
    ['', '', true],
    ['', 'x', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    ['*_file', 'write_file', true],
    ['run_?ommand', 'run_command', true, true],
    ['run_?ommand', 'run_command', false],
    ['run_?ommand', 'run_?ommand', true],
    ['a.b', 'axb', false],
    ['(x)+[y]', '(x)+[y]', true],
    ['é*', 'éa', true],
    ['*', '*x', true],
    ['a*', '*a', false],
    ['ab', 'abc', false],
    ['abc', 'ab', false],
    ['a**', 'a', true],
    ['?', '', false, true],
  ])('%s against %s: %s', (pattern, text, expected, questionMark) => {
    expect(matchWildcard(pattern, text, { questionMark })).toBe(expected);
  });

  it('answers a pattern that is catastrophic for a backtracking RegExp', () => {
    const pattern = '*a*a*a*a*a*a*a*a*a*a*a*a*a*b';
    const name = `mcp__${'a'.repeat(59)}`;
    expect(matchWildcard(pattern, name)).toBe(false);
    expect(matchToolPattern(pattern, { name })).toBe(false);
    // In the server part too, where a star may not cross `__`.
    expect(matchToolPattern(`mcp__${pattern}__x`, { server: 'a'.repeat(59), name: 'x' })).toBe(false);
    expect(matchToolPattern(`mcp__x__${pattern}`, { server: 'x', name: 'a'.repeat(59) })).toBe(false);
    expect(matchToolPattern(`mcp__x__${pattern.slice(0, -1)}a`, { server: 'x', name: 'a'.repeat(59) })).toBe(true);
  });
});
