import { describe, expect, it } from 'vitest';
import { resolveServerLaunch } from '../../../src/core/config/resolveServerLaunch';
import type { McpOAuthClientConfig, McpServerDefinition } from '../../../src/core/config/types';

const remote = (oauth: McpOAuthClientConfig | undefined, url = 'https://mcp.example/mcp'): McpServerDefinition => ({
  name: 'api', type: 'http', url, args: [], env: {}, headers: {}, disabled: false, inputs: [],
  ...(oauth ? { oauth } : {}),
  origin: { source: 'vscode', file: '/w/.vscode/mcp.json', jsonPath: 'servers.api' },
});

const env = { CS: 'client-secret', PK: 'private-key', AS: 'assertion-jwt', IS: 'idp-secret', IT: 'id-token', PW: 'url-pass' };

async function launchOf(def: McpServerDefinition) {
  const result = await resolveServerLaunch(def, { env, userHome: '/home/me' });
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe('the OAuth client of a remote server at launch', () => {
  it('substitutes every secret field of the client and of its identity provider, and masks each', async () => {
    const launch = await launchOf(
      remote({
        clientId: 'cid',
        grant: 'enterprise_managed',
        clientSecret: '${env:CS}',
        privateKey: '${env:PK}',
        assertion: '${env:AS}',
        idp: { issuer: 'https://idp.example', clientId: 'idp-client', clientSecret: '${env:IS}', idToken: '${env:IT}' },
      }),
    );
    expect(launch.oauth).toStrictEqual({
      clientId: 'cid',
      grant: 'enterprise_managed',
      clientSecret: 'client-secret',
      privateKey: 'private-key',
      assertion: 'assertion-jwt',
      idp: { issuer: 'https://idp.example', clientId: 'idp-client', clientSecret: 'idp-secret', idToken: 'id-token' },
    });
    expect([...(launch.secretValues ?? [])].sort()).toEqual(['assertion-jwt', 'client-secret', 'id-token', 'idp-secret', 'private-key']);
  });

  it('masks literal secrets written in the definition too, and the password of the URL', async () => {
    const launch = await launchOf(
      remote(
        { clientId: 'cid', clientSecret: 'literal-secret', privateKey: 'literal-key', assertion: 'literal-jwt', idp: { issuer: 'i', clientId: 'c', clientSecret: 'literal-idp', idToken: 'literal-token' } },
        'https://me:${env:PW}@mcp.example/mcp',
      ),
    );
    expect(launch.url).toBe('https://me:url-pass@mcp.example/mcp');
    expect([...(launch.secretValues ?? [])].sort()).toEqual(['literal-idp', 'literal-jwt', 'literal-key', 'literal-secret', 'literal-token', 'url-pass']);
  });

  it('leaves the fields a client does not set unset, with no identity provider when it has none', async () => {
    const launch = await launchOf(remote({ clientId: 'cid', scopes: ['read'] }));
    expect(launch.oauth).toStrictEqual({ clientId: 'cid', scopes: ['read'], clientSecret: undefined, privateKey: undefined, assertion: undefined });
    expect(launch.secretValues).toEqual([]);
    const withIdp = await launchOf(remote({ clientId: 'cid', idp: { issuer: 'i', clientId: 'c', idToken: '${env:IT}' } }));
    expect(withIdp.oauth?.idp).toStrictEqual({ issuer: 'i', clientId: 'c', clientSecret: undefined, idToken: 'id-token' });
  });

  it('names each OAuth field whose variable is not set', async () => {
    const result = await resolveServerLaunch(
      remote({ clientId: 'cid', clientSecret: '${env:A}', privateKey: '${env:B}', assertion: '${env:C}', idp: { issuer: 'i', clientId: 'c', clientSecret: '${env:D}', idToken: '${env:E}' } }),
      { env: {}, userHome: '/home/me' },
    );
    expect(result.ok ? [] : result.error.split('; ')).toEqual([
      'env var A is not set (used in oauth.clientSecret)',
      'env var B is not set (used in oauth.privateKey)',
      'env var C is not set (used in oauth.assertion)',
      'env var D is not set (used in oauth.idp.clientSecret)',
      'env var E is not set (used in oauth.idp.idToken)',
    ]);
  });
});
