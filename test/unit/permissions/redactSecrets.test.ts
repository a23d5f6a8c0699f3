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

  it.each(['pass', 'pwd', 'key', 'db_pwd', 'DB_PASS', 'AccountKey', 'aws_secret_access_key', 'accessToken', 'sig', 'x-api-key', 'clientSecret', 'set-cookie'])('treats the short key %s as secret', (key) => {
    expect(redactSecrets({ [key]: 'v', safe: 'v' })).toEqual({ [key]: REDACTED, safe: 'v' });
  });

  it('leaves keys that only look similar alone', () => {
    const keys = { api: 'v', name: 'v', author_name: 'v', passage: 'v', monkey: 'v', keyboard: 'v', compass: 'v', signal: 'v', pinned: 'v', path: 'v' };
    expect(redactSecrets(keys)).toEqual(keys);
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

  // Each credential shape, embedded in ordinary text: what surrounds it stays, the secret does not.
  it.each([
    ['keys', { pass: 'hunter2', pwd: 'hunter2', key: 'hunter2' }, ['hunter2']],
    ['Authorization: token', 'Authorization: token hunter2abc', ['hunter2abc']],
    ['Authorization header JSON', '{"Authorization":"token hunter2abc"}', ['hunter2abc']],
    ['curl -u', 'curl -u admin:hunter2 https://example.com', ['hunter2']],
    ['curl --user=', 'curl --user=admin:hunter2 https://example.com', ['hunter2']],
    ['URL userinfo and query token', 'https://user:pw1234@host.example/?access_token=tok9876', ['pw1234', 'tok9876']],
    ['X-Api-Key header', 'X-Api-Key: abcd1234efgh', ['abcd1234efgh']],
    ['X-Auth-Token header', 'x-auth-token: abcd1234efgh', ['abcd1234efgh']],
    ['AWS access key id', 'AKIAIOSFODNN7EXAMPLE', ['AKIAIOSFODNN7EXAMPLE']],
    ['AWS temporary key id', 'ASIAY34FZKBOKMUTVV7A', ['ASIAY34FZKBOKMUTVV7A']],
    ['AWS secret in env line', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', ['wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']],
    ['GCP API key', 'key AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI', ['AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI']],
    ['GCP OAuth access token', 'ya29.a0AfH6SMBx3kZ8-abcdefghijklmnopqrstuvwxyz', ['ya29.a0AfH6SMBx3kZ8-abcdefghijklmnopqrstuvwxyz']],
    ['GCP service account JSON text', '{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\\nMIIEvQ\\n-----END PRIVATE KEY-----\\n"}', ['MIIEvQ']],
    ['Azure storage connection string', 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net', ['Zm9vYmFyYmF6cXV4==']],
    ['Azure SAS signature', 'https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sig=abcDEF123%2Bxyz%3D&se=2027', ['abcDEF123%2Bxyz%3D']],
    ['Slack bot token', 'xoxb-123456789012-1234567890123-abcdefABCDEF', ['xoxb-123456789012-1234567890123-abcdefABCDEF']],
    ['Slack app token', 'xapp-1-A0123456789-1234567890123-abcdef0123', ['xapp-1-A0123456789-1234567890123-abcdef0123']],
    ['Slack webhook', 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', ['XXXXXXXXXXXXXXXXXXXXXXXX']],
    ['Stripe secret key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', ['sk_live_4eC39HqLyjWDarjtT1zdp7dc']],
    ['Stripe restricted key', 'rk_test_4eC39HqLyjWDarjtT1zdp7dc', ['rk_test_4eC39HqLyjWDarjtT1zdp7dc']],
    ['Stripe webhook secret', 'whsec_abcdefghijklmnopqrstuvwxyz012345', ['whsec_abcdefghijklmnopqrstuvwxyz012345']],
    ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ', ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ']],
    ['GitHub OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', ['gho_16C7e42F292c6912E7710c838347Ae178B4a']],
    ['GitLab personal token', 'glpat-xxxxxxxxxxxxxxxxxxxx', ['glpat-xxxxxxxxxxxxxxxxxxxx']],
    ['npm token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', ['npm_abcdefghijklmnopqrstuvwxyz0123456789']],
    ['npmrc auth line', '//registry.npmjs.org/:_authToken=abcdef-0123-4567', ['abcdef-0123-4567']],
    ['PyPI token', `pypi-AgEIcHlwaS5vcmc${'A'.repeat(60)}`, [`pypi-AgEIcHlwaS5vcmc${'A'.repeat(60)}`]],
    ['Hugging Face token', 'hf_abcdefghijklmnopqrstuvwxyzABCDEF', ['hf_abcdefghijklmnopqrstuvwxyzABCDEF']],
    ['SendGrid key', 'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', ['SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG']],
    ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz', ['sk-ant-api03-abcdefghijklmnopqrstuvwxyz']],
    ['private key block', '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', ['MIIEpAIBAAKCAQEA']],
    ['OpenSSH private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----', ['b3BlbnNzaC1rZXk']],
    ['JWT', 'id eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhYmMifQ.c2lnbmF0dXJlLXZhbHVl', ['eyJzdWIiOiJhYmMifQ']],
    ['basic auth in a database URL', 'postgres://app:s3cr3tpw@db.internal:5432/app', ['s3cr3tpw']],
    ['mongodb+srv URL', 'mongodb+srv://admin:Pa55word@cluster0.example.net/test', ['Pa55word']],
    ['query-string api_key', 'GET /v1/data?api_key=abc123def456&page=2', ['abc123def456']],
    ['query-string token and code_verifier', '/cb?token=t0k3n99&code_verifier=v3r1f13r', ['t0k3n99', 'v3r1f13r']],
    ['cookie header', 'Cookie: session=abc123; theme=dark', ['abc123']],
    ['set-cookie header', 'Set-Cookie: sid=s%3Aabc123; Path=/; HttpOnly', ['s%3Aabc123']],
    ['password= in a connection string', 'Server=db;Database=app;User Id=sa;Password=Hunter2!;', ['Hunter2!']],
    ['pwd= in an ODBC string', 'DSN=x;UID=me;PWD=hunter22;', ['hunter22']],
    ['YAML password', 'database:\n  password: hunter2secret\n  user: app', ['hunter2secret']],
    ['--password flag', 'mysqladmin --password hunter2 status', ['hunter2']],
    ['--token= flag', 'deploy --token=abc123xyz --env prod', ['abc123xyz']],
    ['client_secret in a form body', 'grant_type=client_credentials&client_id=app&client_secret=shh123', ['shh123']],
  ])('redacts %s', (_name, value, secrets) => {
    const text = JSON.stringify(redactSecrets(typeof value === 'string' ? { note: `see ${value} here` } : value));
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain(REDACTED);
  });

  // Ordinary values the audit log must keep as they are.
  it.each([
    '/home/me/project/src/keys/handler.ts',
    'C:\\Users\\me\\passwords.txt',
    '123e4567-e89b-12d3-a456-426614174000',
    'commit 3f786850e387550fdab836ed7e6dc881de23001b',
    'The password policy asks for twelve characters.',
    'Sort by key, then by name.',
    'https://example.com/docs?page=2&lang=en',
    'mailto:someone@example.com',
    'npm install left-pad@1.3.0',
    'sort -u names.txt',
    'time 12:30:45, ratio 3:2',
    'git checkout -b feature/token-refresh',
    'The author: Jane Doe',
    'export PATH=/usr/local/bin:$PATH',
    'compass: north',
    'a = b + c',
  ])('keeps %j', (value) => {
    expect(redactSecrets({ note: value })).toEqual({ note: value });
  });

  // Near misses: too short for the credential shape, or a name that only contains the letters.
  it.each([
    'sk_live_abc',
    'whsec_short',
    'glpat-short',
    'pypi-short',
    'xapp-1-short',
    'ya29.short',
    'hf_short',
    'SG.abcdefghijklmnop.short',
    'dop_v1_abc',
    'shpat_abc',
    'ghp_short',
    'AKIA123',
  ])('keeps the short look-alike %s', (value) => {
    expect(redactSecrets({ note: value })).toEqual({ note: value });
  });

  it.each(['apiXkey', 'privateXkey', 'accessXkey', 'accountXkey', 'sessionXid', 'pinned', 'option', 'spinner'])('keeps the key %s', (key) => {
    expect(redactSecrets({ [key]: 'v' })).toEqual({ [key]: 'v' });
  });

  it.each(['api-key', 'apiKey', 'private-key', 'privatekey', 'access_key', 'accesskey', 'account-key', 'accountkey', 'session-id', 'otp', 'pin', 'sas', 'signature', 'dbPwd', 'userPass', 'code_verifier'])(
    'redacts the key %s',
    (key) => {
      expect(redactSecrets({ [key]: 'v' })).toEqual({ [key]: REDACTED });
    },
  );

  it('keeps quotes, separators and what follows a redacted value', () => {
    expect(redactSecrets('a "password": "x y", b')).toBe(`a "password": "${REDACTED}", b`);
    expect(redactSecrets("token='abc' rest")).toBe(`token='${REDACTED}' rest`);
    expect(redactSecrets('url=https://h/?token=abc&x=1')).toBe(`url=https://h/?token=${REDACTED}&x=1`);
    expect(redactSecrets('run --api-key=abc --verbose')).toBe(`run --api-key=${REDACTED} --verbose`);
    expect(redactSecrets('run -token abc')).toBe(`run -token ${REDACTED}`);
    expect(redactSecrets('run --name abc')).toBe('run --name abc');
    expect(redactSecrets('Cookie:\tsid=abc')).toBe(`Cookie:\t${REDACTED}`);
    expect(redactSecrets("authorization = 'Bearer'")).toBe(`authorization = '${REDACTED}'`);
  });
});
