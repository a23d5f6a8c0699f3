import { describe, expect, it } from 'vitest';
import { hookToolName, literalPrefix, matchesToolHook, matchesValue, splitAlternatives } from '../../../src/core/hooks/hookMatcher';

const mcp = (server: string, name: string) => ({ server, name });

describe('hook matchers', () => {
  it('name a tool by its configured server and its own name', () => {
    expect(hookToolName(mcp('p.q', 'read'))).toBe('mcp__p.q__read');
    expect(hookToolName({ name: 'read_file' })).toBe('read_file');
  });

  it('match every tool when empty or *', () => {
    for (const m of ['', '*']) {
      expect(matchesToolHook(m, mcp('a', 'b'))).toBe(true);
      expect(matchesToolHook(m, { name: 'read_file' })).toBe(true);
    }
  });

  it('are regular expressions over the whole name (as if between ^ and $)', () => {
    expect(matchesToolHook('mcp__memory__.*', mcp('memory', 'read_graph'))).toBe(true);
    expect(matchesToolHook('mcp__memory__read', mcp('memory', 'read_graph'))).toBe(false);
    expect(matchesToolHook('read_file|write_file', { name: 'write_file' })).toBe(true);
    expect(matchesToolHook('read_file|write_file', { name: 'read_file_2' })).toBe(false);
    expect(matchesToolHook('Edit', mcp('x', 'Edit'))).toBe(false);
    expect(matchesToolHook('mcp__.*__delete_.*', mcp('github', 'delete_repo'))).toBe(true);
    expect(matchesToolHook('^mcp__github__.*$', mcp('github', 'x'))).toBe(true);
    expect(matchesToolHook('mcp__github__Delete', mcp('github', 'delete'))).toBe(false);
  });

  it('bind an alternative that spells out mcp__<server>__ to that server alone', () => {
    expect(matchesToolHook('mcp__memory__.*', mcp('memory__evil', 'x'))).toBe(false);
    expect(matchesToolHook('mcp__memory__.*', mcp('memory2', 'x'))).toBe(false);
    expect(matchesToolHook('mcp__github__delete_.*', mcp('github__delete_x', 'y'))).toBe(false);
    expect(matchesToolHook('mcp__gitlab__.*|mcp__github__.*', mcp('github', 'a'))).toBe(true);
    expect(matchesToolHook('mcp__gitlab__.*|mcp__github__.*', mcp('gitlab', 'a'))).toBe(true);
    expect(matchesToolHook('mcp__p\\.q__read', mcp('p.q', 'read'))).toBe(true);
    expect(matchesToolHook('mcp__p\\.q__read', mcp('pxq', 'read'))).toBe(false);
    // A server name with __ in it, spelt out: it matches that server (and the split that reads the same).
    expect(matchesToolHook('mcp__a__b__.*', mcp('a__b', 'c'))).toBe(true);
    // No server spelt out: the expression alone decides.
    expect(matchesToolHook('mcp__mem.*', mcp('memory__evil', 'x'))).toBe(true);
  });

  it('match chat values (SessionStart sources) whole', () => {
    expect(matchesValue('startup|resume', 'resume')).toBe(true);
    expect(matchesValue('startup', 'startups')).toBe(false);
    expect(matchesValue('', 'clear')).toBe(true);
  });

  it('split only at top-level alternations, and read the literal start of each', () => {
    expect(splitAlternatives('a|(b|c)|[|]|d\\|e')).toEqual(['a', '(b|c)', '[|]', 'd\\|e']);
    expect(literalPrefix('mcp__memory__.*')).toBe('mcp__memory__');
    expect(literalPrefix('^mcp__p\\.q__x')).toBe('mcp__p.q__x');
    expect(literalPrefix('mcp__ab?c')).toBe('mcp__a');
    expect(literalPrefix('mcp__a\\d')).toBe('mcp__a');
    expect(literalPrefix('mcp__a+')).toBe('mcp__a');
  });
});
