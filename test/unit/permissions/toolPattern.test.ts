import { describe, expect, it } from 'vitest';
import { findMatchingPattern, matchToolPattern, patternCoversServer } from '../../../src/core/permissions/toolPattern';

const mcp = (server: string, name: string) => ({ server, name });
const builtin = (name: string) => ({ name });

describe('matchToolPattern', () => {
  it('matches mcp__SERVER__TOOL against the server name and the tool name, * as any run within the tool', () => {
    expect(matchToolPattern('mcp__memory__*', mcp('memory', 'read_graph'))).toBe(true);
    expect(matchToolPattern('mcp__github__list_*', mcp('github', 'list_issues'))).toBe(true);
    expect(matchToolPattern('mcp__github__list_*', mcp('github', 'create_issue'))).toBe(false);
    expect(matchToolPattern('mcp__fx__echo', mcp('fx', 'echo'))).toBe(true);
    expect(matchToolPattern('mcp__fx__echo', mcp('fx', 'echo2'))).toBe(false);
    expect(matchToolPattern('mcp__memory__*', mcp('Memory', 'read'))).toBe(false);
    // A tool's own name may contain __: a * in the tool part covers it.
    expect(matchToolPattern('mcp__s__*', mcp('s', 'a__b'))).toBe(true);
  });

  it('binds the server part to the configured name exactly: no pattern reaches another server', () => {
    expect(matchToolPattern('mcp__mem__*', mcp('mem__evil', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__mem__*', mcp('mem.', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__mem__*', mcp('mem', 'x'))).toBe(true);
    // Two servers whose names sanitize alike are told apart.
    expect(matchToolPattern('mcp__p_q__read', mcp('p.q', 'read'))).toBe(false);
    expect(matchToolPattern('mcp__p_q__read', mcp('p_q', 'read'))).toBe(true);
    expect(matchToolPattern('mcp__p.q__read', mcp('p.q', 'read'))).toBe(true);
    // A * in the server part never matches across __.
    expect(matchToolPattern('mcp__mem*__x', mcp('mem__evil', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__mem*__x', mcp('memory', 'x'))).toBe(true);
    // A server whose own name contains __ is named in full.
    expect(matchToolPattern('mcp__mem__evil__x', mcp('mem__evil', 'x'))).toBe(true);
    expect(matchToolPattern('mcp__mem__evil__*', mcp('mem__evil', 'x'))).toBe(true);
  });

  it('reads mcp__SERVER as every tool of that server, and mcp__* and * as every MCP tool', () => {
    expect(matchToolPattern('mcp__github', mcp('github', 'anything'))).toBe(true);
    expect(matchToolPattern('mcp__github', mcp('github2', 'anything'))).toBe(false);
    expect(matchToolPattern('mcp__*', mcp('a__b', 'c'))).toBe(true);
    expect(matchToolPattern('mcp__*__read', mcp('a__b', 'read'))).toBe(true);
    expect(matchToolPattern('*', mcp('x', 'y'))).toBe(true);
    expect(matchToolPattern('*', builtin('read_file'))).toBe(true);
    expect(matchToolPattern('mcp__', mcp('x', 'y'))).toBe(false);
  });

  it('matches other patterns against built-in names only', () => {
    expect(matchToolPattern('write_*', builtin('write_file'))).toBe(true);
    expect(matchToolPattern('write_*', mcp('fs', 'write_file'))).toBe(false);
    expect(matchToolPattern('*_file', mcp('fs', 'read_file'))).toBe(false);
    expect(matchToolPattern('mcp__fs__read_file', builtin('read_file'))).toBe(false);
    expect(matchToolPattern('run_?ommand', builtin('run_command'))).toBe(true);
  });

  it('treats regular expression characters literally', () => {
    expect(matchToolPattern('a.b', builtin('a.b'))).toBe(true);
    expect(matchToolPattern('a.b', builtin('axb'))).toBe(false);
    expect(matchToolPattern('a+(b)[c]|d\\e^$', builtin('a+(b)[c]|d\\e^$'))).toBe(true);
    expect(matchToolPattern('a{2}', builtin('aa'))).toBe(false);
    expect(matchToolPattern('mcp__a-b__c.d', mcp('a-b', 'c.d'))).toBe(true);
  });

  it('matches the server part as a whole name: no extra prefix or suffix on either side', () => {
    expect(matchToolPattern('mcp__mem__x', mcp('xmem', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__xmem__x', mcp('mem', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__a*__x', mcp('b', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__a*__x', mcp('a', 'x'))).toBe(true);
  });

  it('lets a * in the server part cross single underscores, and ? stand for one character', () => {
    expect(matchToolPattern('mcp__m*__x', mcp('my_server', 'x'))).toBe(true);
    expect(matchToolPattern('mcp__*_db__x', mcp('a_b_db', 'x'))).toBe(true);
    expect(matchToolPattern('mcp__m*r__x', mcp('m__r', 'x'))).toBe(false);
    expect(matchToolPattern('mcp__m?__x', mcp('my', 'x'))).toBe(true);
    expect(matchToolPattern('mcp__m?__x', mcp('m', 'x'))).toBe(false);
  });

  it('tries a split right after mcp__ for a server whose name starts with __', () => {
    expect(matchToolPattern('mcp____a__b', mcp('__a', 'b'))).toBe(true);
    expect(matchToolPattern('mcp____a__b', mcp('__a', 'c'))).toBe(false);
  });

  it('finds the first matching pattern', () => {
    expect(findMatchingPattern(['x*', 'mcp__*', 'mcp__a__*'], mcp('a', 'b'))).toBe('mcp__*');
    expect(findMatchingPattern([], mcp('a', 'b'))).toBeUndefined();
    expect(findMatchingPattern(undefined, mcp('a', 'b'))).toBeUndefined();
  });
});

describe('patternCoversServer', () => {
  it('is true for patterns that take in every tool of the server', () => {
    for (const p of ['*', 'mcp__*', 'mcp__srv', 'mcp__srv__*', 'mcp__s*__*']) expect(patternCoversServer(p, 'srv')).toBe(true);
    for (const p of ['mcp__srv__read_*', 'mcp__other__*', 'read_file', 'mcp__srv__x']) expect(patternCoversServer(p, 'srv')).toBe(false);
    expect(patternCoversServer('mcp__mem__*', 'mem__evil')).toBe(false);
    // One way of reading the pattern that takes in every tool is enough.
    expect(patternCoversServer('mcp__a__b__*', 'a__b')).toBe(true);
    expect(patternCoversServer('mcp__a__b__*', 'a')).toBe(false);
  });
});
