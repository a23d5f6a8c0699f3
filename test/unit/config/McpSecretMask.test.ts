import { describe, expect, it } from 'vitest';
import { maskUrlPasswords, McpSecretMask, SECRET_MASK, urlPassword } from '../../../src/core/config/McpSecretMask';

describe('McpSecretMask', () => {
  const mask = new McpSecretMask(['hunter2-secret', 'p@ss w/rd', 'on', 'ab"c\\d']);

  it.each([
    ['in a URL userinfo', 'http://user:hunter2-secret@host/mcp', `http://user:${SECRET_MASK}@host/mcp`],
    ['in a query', 'https://host/mcp?key=hunter2-secret&x=1', `https://host/mcp?key=${SECRET_MASK}&x=1`],
    ['URL-encoded', 'https://host/?k=p%40ss%20w%2Frd', `https://host/?k=${SECRET_MASK}`],
    ['in a command', 'spawn /opt/hunter2-secret/server ENOENT', `spawn /opt/${SECRET_MASK}/server ENOENT`],
    ['JSON-escaped', '{"error":"bad ab\\"c\\\\d"}', `{"error":"bad ${SECRET_MASK}"}`],
    ['twice', 'hunter2-secret and hunter2-secret', `${SECRET_MASK} and ${SECRET_MASK}`],
    ['a literal URL password', 'fetch http://admin:literal1@h/x failed', `fetch http://admin:${SECRET_MASK}@h/x failed`],
  ])('masks a value %s', (_where, text, expected) => {
    expect(mask.mask(text)).toBe(expected);
  });

  it('leaves short values, other text and user names alone', () => {
    expect(mask.mask('turned on, see http://user@host/ and mailto:a@b.c')).toBe('turned on, see http://user@host/ and mailto:a@b.c');
    expect(new McpSecretMask([]).mask('/data/memory.jsonl')).toBe('/data/memory.jsonl');
    expect(new McpSecretMask(['abc', 'abcd']).mask('abc abcd abcde')).toBe(`abc ${SECRET_MASK} ${SECRET_MASK}e`);
    expect(urlPassword(undefined)).toBeUndefined();
  });

  it('unites the values of several definitions', () => {
    const both = McpSecretMask.union([new McpSecretMask(['first-secret']), new McpSecretMask(['second-secret'])]);
    expect(both.mask('first-secret, second-secret')).toBe(`${SECRET_MASK}, ${SECRET_MASK}`);
  });

  it('reads a URL password', () => {
    expect(urlPassword('http://u:p%40w@h/')).toBe('p@w');
    expect(urlPassword('http://u@h/')).toBeUndefined();
    expect(urlPassword('not a url')).toBeUndefined();
    expect(maskUrlPasswords('no urls here')).toBe('no urls here');
  });
});
