import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from '../../../src/core/permissions/redactSecrets';

describe('redactSecrets', () => {
  it('redacts values under secret-looking keys at any depth', () => {
    expect(
      redactSecrets({ token: 'abc', apiKey: 'k', api_key: 'k', password: 'p', Authorization: 'x', nested: [{ client_secret: 's', github_token: 5 }], query: 'weather' }),
    ).toEqual({ token: REDACTED, apiKey: REDACTED, api_key: REDACTED, password: REDACTED, Authorization: REDACTED, nested: [{ client_secret: REDACTED, github_token: REDACTED }], query: 'weather' });
  });

  it('keeps the structure under a secret-looking key but redacts inside it', () => {
    expect(redactSecrets({ auth: { user: 'me', password: 'p' } })).toEqual({ auth: { user: 'me', password: REDACTED } });
    expect(redactSecrets({ token: null })).toEqual({ token: null });
  });

  it.each([
    ['Bearer eyJhbGciOiJIUzI1NiJ9abcdef', `${REDACTED}`],
    ['header Authorization: Basic dXNlcjpwYXNzd29yZA==', `header Authorization: ${REDACTED}`],
    ['sk-proj-abcdefghijklmnopqrstuv', REDACTED],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123', REDACTED],
    ['github_pat_11ABCDEFGHIJKLMNOPQRSTUV', REDACTED],
    ['xoxb-1234567890-abcdef', REDACTED],
    ['key AKIAABCDEFGHIJKLMNOP here', `key ${REDACTED} here`],
    ['AIzaSyA1234567890abcdefghijklmnopqrstu', REDACTED],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N', REDACTED],
  ])('redacts credential-looking values: %s', (value, expected) => {
    expect(redactSecrets({ note: value })).toEqual({ note: expected });
    expect(redactSecrets([value])).toEqual([expected]);
  });

  it('leaves ordinary values alone', () => {
    expect(redactSecrets({ path: '/tmp/x', n: 3, ok: true, list: ['a', 'sk-short'] })).toEqual({ path: '/tmp/x', n: 3, ok: true, list: ['a', 'sk-short'] });
    expect(redactSecrets('plain')).toBe('plain');
    expect(redactSecrets(undefined)).toBeUndefined();
  });
});
