import { describe, expect, it } from 'vitest';
import { compileGlob, compileRegex, MAX_PATTERN_CHARS } from '../../../src/core/tools/builtin/linearPattern';

describe('compileRegex', () => {
  it.each([
    ['(a+)+$', `${'a'.repeat(34)}!`, false],
    ['(a|aa)+$', `${'a'.repeat(60)}!`, false],
    ['(x+x+)+y', 'x'.repeat(5000), false],
    ['TODO|FIXME', 'a TODO here', true],
    ['\\u0041', 'A', true],
    ['\\u{1F600}', 'smile 😀', true],
    ['^\\d{3}-\\w+$', '123-abc', true],
    ['(?<name>ab)c', 'xabc', true],
  ])('runs /%s/ in linear time on %j', (source, text, expected) => {
    expect(compileRegex(source, { caseSensitive: true, argument: 'pattern' }).test(text)).toBe(expected);
  });

  it('matches case-insensitively when asked', () => {
    expect(compileRegex('todo', { caseSensitive: false, argument: 'pattern' }).test('TODO')).toBe(true);
    expect(compileRegex('todo', { caseSensitive: true, argument: 'pattern' }).test('TODO')).toBe(false);
  });

  it.each([
    ['(a)\\1', 'backreference (\\1...\\9)'],
    ['(?<n>a)\\k<n>', 'named backreference (\\k<name>)'],
    ['a(?=b)', 'lookahead (?=...)'],
    ['a(?!b)', 'negative lookahead (?!...)'],
    ['(?<=a)b', 'lookbehind (?<=...)'],
    ['(?<!a)b', 'negative lookbehind (?<!...)'],
  ])('refuses /%s/ naming the feature and the pattern', (source, feature) => {
    expect(() => compileRegex(source, { caseSensitive: true, argument: 'pattern' })).toThrow(`argument "pattern" uses a ${feature} in /${source}/`);
  });

  it('leaves escaped look-alikes and classes alone', () => {
    expect(compileRegex('\\(\\?=', { caseSensitive: true, argument: 'pattern' }).test('(?=')).toBe(true);
    expect(compileRegex('[(?=]+', { caseSensitive: true, argument: 'pattern' }).test('=')).toBe(true);
  });

  it('names the pattern of a syntax error, and the limit of a long one', () => {
    expect(() => compileRegex('[', { caseSensitive: true, argument: 'pattern' })).toThrow('argument "pattern" is not a valid regular expression (RE2 syntax): /[/: ');
    expect(() => compileRegex('a'.repeat(MAX_PATTERN_CHARS + 1), { caseSensitive: true, argument: 'pattern' })).toThrow(`the limit is ${MAX_PATTERN_CHARS}`);
  });
});

describe('compileGlob', () => {
  it.each<[string, string, boolean, boolean?]>([
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['**/*.ts', 'a.tsx', false],
    ['src/*.json', 'src/a.json', true],
    ['src/*.json', 'src/x/a.json', false],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/README.md', false],
    ['*.md', 'docs/README.md', true, true],
    ['src/*.md', 'docs/src/a.md', false, true],
    ['{a,b}/**', 'a/x/y', true],
    ['{a,b}/**', 'c/x', false],
    ['{a,{b,c}}d', 'cd', true],
    ['a{b}', 'a{b}', true],
    ['src/**/b.ts', 'src/b.ts', true],
    ['src/**/b.ts', 'src/deep/er/b.ts', true],
    ['[a-c]?.js', 'bx.js', true],
    ['[!a-c]?.js', 'bx.js', false],
    ['[!a-c]?.js', 'dx.js', true],
    ['file[1].txt', 'file1.txt', true],
    ['+(a|b).txt', 'abba.txt', true],
    ['@(x|y).txt', 'xy.txt', false],
    ['?(x).txt', '.txt', true],
    ['!*.ts', 'a.js', true],
    ['!*.ts', 'a.ts', false],
    ['\\*.txt', '*.txt', true],
    ['\\*.txt', 'a.txt', false],
    ['é*', 'éa', true],
    ['a(b)', 'a(b)', true],
    ['**', 'x/y/z', true],
    ['*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(40), false],
    ['+(a|aa)+(a|aa)+(a|aa)c', 'a'.repeat(40), false],
  ])('%s against %s: %s', (glob, path, expected, basename) => {
    expect(compileGlob(glob, { argument: 'pattern', basename }).test(path)).toBe(expected);
  });

  it.each([
    ['!(x)', 'negated extglob !(...)'],
    ['{a,b', '"{" is never closed'],
    ['@(a|b', '"(" is never closed'],
  ])('refuses %s with a message naming it', (glob, message) => {
    expect(() => compileGlob(glob, { argument: 'pattern' })).toThrow(message);
    expect(() => compileGlob(glob, { argument: 'pattern' })).toThrow(glob);
  });
});
