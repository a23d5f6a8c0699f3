import { describe, expect, it } from 'vitest';
import { McpAuthRequiredError, McpOAuthProvider, oauthSecretKey, type IMcpSecretStore } from '../../../src/core';
import { readSignInState } from '../../../src/core/auth/McpOAuthProvider';

function memoryStore(): IMcpSecretStore & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get: async (k) => values.get(k),
    set: async (k, v) => void values.set(k, v),
    delete: async (k) => void values.delete(k),
  };
}

const serverUrl = 'https://mcp.example.test/mcp';
const as1 = { issuer: 'https://as1.example.test' };
const as2 = { issuer: 'https://as2.example.test' };

describe('McpOAuthProvider', () => {
  it('keeps registrations and tokens per issuer: another authorization server gets none of them', async () => {
    const secrets = memoryStore();
    const provider = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:5000/callback' });
    await provider.saveClientInformation!({ client_id: 'as1-client', redirect_uris: ['http://127.0.0.1:5000/callback'] }, as1);
    await provider.saveTokens({ access_token: 'a1', token_type: 'Bearer' }, as1);
    expect((await provider.clientInformation(as1))?.client_id).toBe('as1-client');
    expect(await provider.clientInformation(as2)).toBeUndefined();
    expect(await provider.tokens(as2)).toBeUndefined();
    // The per-request read without an issuer gets the most recent tokens.
    expect((await provider.tokens())?.access_token).toBe('a1');
    expect(await readSignInState(secrets, serverUrl)).toBe('tokens');
  });

  it('renews a registration made for another redirect URL (an earlier loopback port)', async () => {
    const secrets = memoryStore();
    const first = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:5000/callback' });
    await first.saveClientInformation!({ client_id: 'c', redirect_uris: ['http://127.0.0.1:5000/callback'] }, as1);
    const second = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:6000/callback' });
    expect(await second.clientInformation(as1)).toBeUndefined();
  });

  it('uses a pre-registered client as it is and never registers', async () => {
    const provider = new McpOAuthProvider({ serverUrl, secrets: memoryStore(), preregistered: { clientId: 'pre', clientSecret: 's', scopes: ['a', 'b'] } });
    expect(await provider.clientInformation(as1)).toEqual({ client_id: 'pre', client_secret: 's' });
    expect(provider.saveClientInformation).toBeUndefined();
    expect(provider.clientMetadata.scope).toBe('a b');
  });

  it('without a redirect it only refreshes: a flow that needs the browser is "sign-in required"', () => {
    const provider = new McpOAuthProvider({ serverUrl, secrets: memoryStore() });
    expect(() => provider.redirectToAuthorization(new URL('https://as1.example.test/authorize'))).toThrow(McpAuthRequiredError);
  });

  it('losing the tokens reads "lost" until sign-out deletes the record', async () => {
    const secrets = memoryStore();
    const provider = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:5000/callback' });
    await provider.saveTokens({ access_token: 'a1', token_type: 'Bearer', refresh_token: 'r1' }, as1);
    await provider.invalidateCredentials('tokens');
    expect(await readSignInState(secrets, serverUrl)).toBe('lost');
    await secrets.delete(oauthSecretKey(serverUrl));
    expect(await readSignInState(secrets, serverUrl)).toBe('none');
  });
});
