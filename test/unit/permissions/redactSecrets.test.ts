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
    expect(redactSecrets({ token: null, tokens: ['a', 'b'], auth: [] })).toEqual({ token: REDACTED, tokens: REDACTED, auth: REDACTED });
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

  it.each(['passwd', 'password', 'db_passphrase', 'x-api-key', 'api_key', 'apiKey', 'APIKEY', 'client_credential', 'Cookie', 'private_key', 'privateKey', 'session_id', 'sessionid', 'access-key', 'accesskey', 'AUTH', 'x-auth-header', 'auth_basic', 'refresh_token', 'secret'])(
    'treats the key %s as secret',
    (key) => {
      expect(redactSecrets({ [key]: 'v', safe: 'v' })).toEqual({ [key]: REDACTED, safe: 'v' });
    },
  );

  it('leaves keys that only look similar alone', () => {
    expect(redactSecrets({ api: 'v', key: 'v', pass: 'v', name: 'v', author_name: 'v' })).toEqual({ api: 'v', key: 'v', pass: 'v', name: 'v', author_name: 'v' });
  });

  it.each(['Bearer   abcdefghijklmnop', 'bearer\tabcdefghij12', 'sk-abcdefghijklmnopqrstu', 'rk-live-abcdefghijklmnopqr', 'pk-a-b-abcdefghijklmnopqr'])('redacts spacing and key variants: %s', (value) => {
    expect(redactSecrets([value.replace('\\t', '\t')])).toEqual([REDACTED]);
  });

  it('leaves ordinary values alone', () => {
    expect(redactSecrets({ path: '/tmp/x', n: 3, ok: true, list: ['a', 'sk-short'] })).toEqual({ path: '/tmp/x', n: 3, ok: true, list: ['a', 'sk-short'] });
    expect(redactSecrets('plain')).toBe('plain');
    expect(redactSecrets({ x: null, y: [null, 2] })).toEqual({ x: null, y: [null, 2] });
    expect(redactSecrets(undefined)).toBeUndefined();
  });
});
