import { describe, expect, it } from 'vitest';
import { compileGlob, compileRegex, MAX_PATTERN_CHARS } from '../../../src/core/tools/builtin/linearPattern';

const regex = (source: string) => compileRegex(source, { caseSensitive: true, argument: 'pattern' });
const glob = (pattern: string, basename?: boolean) => compileGlob(pattern, { argument: 'include', basename });

describe('compileRegex, JavaScript syntax on RE2', () => {
  it.each([
    ['\\u00e9', 'café', true],
    ['\\u{e9}', 'café', true],
    ['\\u0041B', 'xAB', true],
    ['\\u0041B', 'xA', false],
    ['\\u{41}B', 'AB', true],
    ['\\d\\u0041', '5A', true],
    ['\\u{10FFFF}', 'max \u{10FFFF}', true],
    ['a\\.b', 'axb', false],
    ['a\\.b', 'a.b', true],
    ['\\\\1', 'a\\1', true],
    ['[a(?=b)]', '=', true],
  ])('reads /%s/ as JavaScript does: %j gives %s', (source, text, expected) => {
    expect(regex(source).test(text)).toBe(expected);
  });

  // Where RE2 reads a class differently: `]` first in it (JavaScript closes the class there: `[]`
  // matches nothing, `[^]` any character) and `[` inside it (RE2 would take `[:alpha:]` as POSIX).
  const classes = ['[^]]', '[^]', '[]', '[]]', 'a[]b', 'a[^]b', 'x[^]{2}', '[^]*', '[[:alpha:]]', '[a[]', '[\\]]', '[^\\]]x', '[-]', '[^-]'];
  const texts = ['a', ']', 'a]', '[', ':', 'x', '\n', '', 'ab]c', '[:a', 'l', 'é', 'é]', 'a\nb'];
  it.each(classes)('matches /%s/ where JavaScript does, on every sample text', (source) => {
    const ours = regex(source);
    const js = new RegExp(source);
    expect(texts.map((text) => [text, ours.test(text)])).toEqual(texts.map((text) => [text, js.test(text)]));
  });

  it.each([
    ['[a](?=b)', 'lookahead (?=...)'],
    ['[\\]](?=x)', 'lookahead (?=...)'],
    ['\\\\(?=x)', 'lookahead (?=...)'],
    ['x(?<!a)', 'negative lookbehind (?<!...)'],
    ['(a)b\\2', 'backreference (\\1...\\9)'],
  ])('still refuses lookaround and backreferences after a class or an escape: /%s/', (source, feature) => {
    expect(() => regex(source)).toThrow(
      `argument "pattern" uses a ${feature} in /${source}/, which the linear-time engine (RE2) does not support; rewrite it without backreferences or lookaround`,
    );
  });

  it.each([
    ['\\u12', '\\u'],
    ['\\u004', '\\u'],
    ['\\u{}', '\\u'],
    ['\\u{1234567}', '\\u'],
    ['[\\1]', '\\1'],
  ])('reports /%s/ as invalid RE2 syntax rather than guessing', (source, escape) => {
    expect(() => regex(source)).toThrow(`argument "pattern" is not a valid regular expression (RE2 syntax): /${source}/: error parsing regexp: invalid escape sequence: \`${escape}\``);
  });

  it('accepts a pattern of exactly the limit and names the argument of a longer one', () => {
    expect(regex('a'.repeat(MAX_PATTERN_CHARS)).test('a'.repeat(MAX_PATTERN_CHARS))).toBe(true);
    expect(() => compileRegex('a'.repeat(MAX_PATTERN_CHARS + 1), { caseSensitive: false, argument: 'query' })).toThrow(
      `argument "query" is ${MAX_PATTERN_CHARS + 1} characters long; the limit is ${MAX_PATTERN_CHARS}`,
    );
  });

  it('finds a match anywhere in a line unless anchored', () => {
    expect(regex('b').test('abc')).toBe(true);
    expect(regex('^b').test('abc')).toBe(false);
  });
});

describe('compileGlob', () => {
  it.each<[string, string, boolean]>([
    ['a\\', 'a\\', true],
    ['a\\b', 'ab', true],
    ['a**', 'abc', true],
    ['a**', 'ab/c', false],
    ['**b', 'xb', true],
    ['**b', 'x/b', false],
    ['x/**', 'x/a/b', true],
    ['x/**', 'x', false],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a/**/b', 'ab', false],
    ['a/**', 'a/x\ny', true],
    ['*b', 'xc', false],
    ['*.md', 'READMEmd', false],
    ['?', 'ab', false],
    ['a?c', 'a/c', false],
    ['a?c', 'abc', true],
  ])('keeps * and ? inside one folder and ** across: %s against %j is %s', (pattern, path, expected) => {
    expect(glob(pattern).test(path)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ['*(ab).txt', '.txt', true],
    ['*(ab).txt', 'abab.txt', true],
    ['*(ab).txt', 'aba.txt', false],
    ['@(x|y).txt', 'x.txt', true],
    ['@(x|y).txt', '.txt', false],
    ['+(a|b).txt', '.txt', false],
    ['?(x).txt', 'xx.txt', false],
    ['@(a,b).txt', 'a,b.txt', true],
    ['@(a|{b,c})', 'c', true],
    ['{a|b}', '{a|b}', true],
    ['{a\\,b}', '{a,b}', true],
    ['{a\\,b}', 'a', false],
    ['{a}{b,c}', '{a}c', true],
    ['{{a,b}}', '{b}', true],
    ['{{a,b}}', 'b', false],
    ['{abc', '{abc', true],
    ['x{,y}', 'x', true],
  ])('reads alternatives and extglobs: %s against %j is %s', (pattern, path, expected) => {
    expect(glob(pattern).test(path)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ['[]a]', ']', true],
    ['[]a]', 'a', true],
    ['[!]a]', ']', false],
    ['[!]a]', 'b', true],
    ['[^a]', 'a', false],
    ['[^a]', 'b', true],
    ['[\\]]', ']', true],
    ['[a\\]]', ']', true],
    ['[\\^a]', '^', true],
    ['[\\^a]', 'b', false],
    ['[\\a]', 'a', true],
    ['[a\\-z]', '-', true],
    ['[a\\-z]', 'b', false],
    ['[\\d]', 'd', true],
    ['[\\d]', '5', false],
    ['[[:digit:]]', '5', true],
    ['[[:digit:]]', 'a', false],
    ['[[:x]', '[', true],
    ['[[:x]', 'x', true],
    ['[[:]', ':', true],
    ['[a[b:]', 'b', true],
    ['[a^]', '^', true],
    ['[abc', '[abc', true],
    ['[abc', 'a', false],
    ['[]', '[]', true],
    ['x[!a]y', 'x/y', false],
    ['x[!a]y', 'xby', true],
  ])('reads classes as shells do: %s against %j is %s', (pattern, path, expected) => {
    expect(glob(pattern).test(path)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ['a.b', 'axb', false],
    ['a+b', 'aab', false],
    ['a+b', 'a+b', true],
    ['$x^', '$x^', true],
    ['a|b', 'a', false],
    ['a|b', 'a|b', true],
    ['a]', 'a]', true],
    ['a)', 'a)', true],
    ['a}', 'a}', true],
  ])('treats regex punctuation as literal: %s against %j is %s', (pattern, path, expected) => {
    expect(glob(pattern).test(path)).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ['*.md', 'README.md', true],
    ['*.md', 'docs/deep/README.md', true],
    ['!*.md', 'docs/README.md', false],
    ['!*.md', 'docs/a.ts', true],
    ['!docs/*.md', 'x/docs/a.md', true],
    ['!docs/*.md', 'docs/a.md', false],
  ])('matches a pattern without "/" against the file name when asked: %s against %j is %s', (pattern, path, expected) => {
    expect(glob(pattern, true).test(path)).toBe(expected);
  });

  it('matches the whole path without basename matching', () => {
    expect(glob('*.md').test('docs/README.md')).toBe(false);
    expect(glob('*.md', false).test('docs/README.md')).toBe(false);
    expect(glob('!*.md').test('docs/README.md')).toBe(true);
  });

  it('names the argument and the glob in every refusal', () => {
    expect(() => glob('[z-a].txt')).toThrow('argument "include" is not a valid glob: "[z-a].txt": error parsing regexp: invalid character class range');
    expect(() => glob('a/!(x)')).toThrow('argument "include" uses a negated extglob !(...) in "a/!(x)", which is not supported; use a leading "!" for the whole pattern');
    expect(() => glob('{a,b')).toThrow('argument "include" is not a valid glob: "{a,b": "{" is never closed');
    expect(() => glob('{a,b)')).toThrow('argument "include" is not a valid glob: "{a,b)": "{" is never closed');
    expect(() => glob('+(a|b')).toThrow('argument "include" is not a valid glob: "+(a|b": "(" is never closed');
  });

  it('accepts a glob of exactly the limit and refuses a longer one', () => {
    expect(glob('a'.repeat(MAX_PATTERN_CHARS)).test('a'.repeat(MAX_PATTERN_CHARS))).toBe(true);
    expect(() => glob('a'.repeat(MAX_PATTERN_CHARS + 1))).toThrow(`argument "include" is ${MAX_PATTERN_CHARS + 1} characters long; the limit is ${MAX_PATTERN_CHARS}`);
  });
});
