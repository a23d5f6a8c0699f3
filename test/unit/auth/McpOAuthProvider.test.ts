import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { McpAuthRequiredError, McpOAuthProvider, oauthSecretKey, type IMcpSecretStore } from '../../../src/core';
import { readMissingScopes, readSignInState } from '../../../src/core/auth/McpOAuthProvider';
import { McpScopeRequiredError } from '../../../src/core/auth/types';

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

/** Runs the provider's side of an authorization the SDK would start: verifier, redirect, code exchange. */
async function authorize(provider: McpOAuthProvider, query: string, verifier = 'v'.repeat(43)): Promise<URL> {
  provider.saveCodeVerifier(verifier);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  await provider.redirectToAuthorization(new URL(`https://as1.example.test/authorize?${query}&code_challenge=${challenge}`));
  const url = provider.takePendingAuthorization()!;
  expect(provider.codeVerifier()).toBe(verifier); // read for the code exchange
  return url;
}

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

  it('without a redirect it only refreshes: a flow that needs the browser is "sign-in required"', async () => {
    const provider = new McpOAuthProvider({ serverUrl, secrets: memoryStore() });
    await expect(provider.redirectToAuthorization(new URL('https://as1.example.test/authorize'))).rejects.toThrow(McpAuthRequiredError);
    expect(provider.pendingAuthorization).toBeUndefined();
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

  it('records the scope asked for when the token answer has none, and keeps it across a refresh', async () => {
    const secrets = memoryStore();
    const provider = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:5000/callback' });
    await authorize(provider, 'scope=read');
    await provider.saveTokens({ access_token: 'a1', token_type: 'Bearer', refresh_token: 'r1' }, as1);
    expect((await provider.tokens(as1))?.scope).toBe('read');
    await provider.saveTokens({ access_token: 'a2', token_type: 'Bearer', refresh_token: 'r2' }, as1);
    expect((await provider.tokens(as1))?.scope).toBe('read');
    // An answer that names its scope is taken as it is.
    await provider.saveTokens({ access_token: 'a3', token_type: 'Bearer', scope: 'read write' }, as1);
    expect((await provider.tokens(as1))?.scope).toBe('read write');
  });

  it('asks for the granted scopes with the demanded ones; without a browser it remembers the demand', async () => {
    const secrets = memoryStore();
    const refreshOnly = new McpOAuthProvider({ serverUrl, secrets });
    await refreshOnly.saveTokens({ access_token: 'a1', token_type: 'Bearer', scope: 'read' }, as1);
    const demand = refreshOnly.redirectToAuthorization(new URL('https://as1.example.test/authorize?scope=admin'));
    await expect(demand).rejects.toBeInstanceOf(McpScopeRequiredError);
    await expect(demand).rejects.toMatchObject({ missingScopes: ['admin'] });
    expect(await readMissingScopes(secrets, serverUrl)).toEqual(['admin']);

    const signIn = new McpOAuthProvider({ serverUrl, secrets, redirectUrl: 'http://127.0.0.1:5000/callback', reauthorize: true });
    expect(await signIn.tokens()).toBeUndefined(); // a new authorization, not the old tokens
    expect((await authorize(signIn, 'scope=read')).searchParams.get('scope')).toBe('read admin');
    await signIn.saveTokens({ access_token: 'a2', token_type: 'Bearer' }, as1);
    expect((await signIn.tokens())?.scope).toBe('read admin');
    expect(await readMissingScopes(secrets, serverUrl)).toEqual([]);
  });

  it('keeps the state and verifier of the authorization in the browser when another flow starts meanwhile', async () => {
    const provider = new McpOAuthProvider({ serverUrl, secrets: memoryStore(), redirectUrl: 'http://127.0.0.1:5000/callback' });
    const [first, second] = ['a'.repeat(43), 'b'.repeat(43)];
    const challenge = (v: string) => createHash('sha256').update(v).digest('base64url');
    // Two refused requests start flows at once, their steps interleaved.
    const s1 = provider.state();
    const s2 = provider.state();
    provider.saveCodeVerifier(first);
    provider.saveCodeVerifier(second);
    await provider.redirectToAuthorization(new URL(`https://as1.example.test/authorize?state=${s2}&code_challenge=${challenge(second)}`));
    await provider.redirectToAuthorization(new URL(`https://as1.example.test/authorize?state=${s1}&code_challenge=${challenge(first)}`));
    const opened = provider.takePendingAuthorization()!;
    expect(opened.searchParams.get('state')).toBe(s1);
    // A third flow starting while the browser is out changes nothing about the one being finished.
    provider.saveCodeVerifier('c'.repeat(43));
    await provider.redirectToAuthorization(new URL(`https://as1.example.test/authorize?state=${provider.state()}&code_challenge=${challenge('c'.repeat(43))}`));
    expect(provider.expectedState).toBe(s1);
    expect(provider.codeVerifier()).toBe(first);
    provider.endAuthorization();
    expect(() => provider.codeVerifier()).toThrow(McpAuthRequiredError);
  });
});
