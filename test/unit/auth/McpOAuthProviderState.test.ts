import { createHash } from 'node:crypto';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpOAuthProvider, oauthSecretKey, readMissingScopes, readSignInState } from '../../../src/core/auth/McpOAuthProvider';
import { McpScopeRequiredError } from '../../../src/core/auth/types';
import { MemorySecrets } from '../../support/memoryOAuth';

const serverUrl = 'https://mcp.example.test/mcp';
const redirectUrl = 'http://127.0.0.1:5000/callback';
const key = oauthSecretKey(serverUrl);
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const discovery = (metadata: Record<string, unknown>) => ({ authorizationServerUrl: 'https://as.example.test', authorizationServerMetadata: metadata }) as unknown as OAuthDiscoveryState;

function setup(options: Partial<ConstructorParameters<typeof McpOAuthProvider>[0]> = {}) {
  const secrets = new MemorySecrets();
  const provider = new McpOAuthProvider({ serverUrl, secrets, redirectUrl, ...options });
  const stored = () => JSON.parse(secrets.values.get(key) ?? '{}') as Record<string, unknown>;
  return { secrets, provider, stored };
}

describe('McpOAuthProvider: what it stores and reads', () => {
  it('keeps credentials under the server\'s own key, and reads nothing for a server never signed in to', async () => {
    expect(key).toBe('mcp-harness.oauth/https://mcp.example.test/mcp');
    const { secrets, provider } = setup();
    expect(await readSignInState(secrets, serverUrl)).toBe('none');
    expect(await readMissingScopes(secrets, serverUrl)).toEqual([]);
    await provider.saveTokens({ access_token: 'a', token_type: 'Bearer' });
    expect(await readSignInState(secrets, serverUrl)).toBe('tokens');
    expect(await provider.tokens()).toMatchObject({ access_token: 'a' });
  });

  it('describes itself as a public client with a redirect, asking for the pre-registered scopes', () => {
    expect(setup().provider.clientMetadata).toEqual({
      client_name: 'MCP Harness',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    expect(setup({ preregistered: { clientId: 'c', scopes: ['read', 'write'] } }).provider.clientMetadata.scope).toBe('read write');
    expect(setup({ preregistered: { clientId: 'c' } }).provider.clientMetadata).not.toHaveProperty('scope');
  });

  it('finds the registration of the most recent issuer when the SDK names none', async () => {
    const { provider } = setup();
    await provider.saveClientInformation!({ client_id: 'c1', redirect_uris: [redirectUrl] });
    expect(await provider.clientInformation()).toMatchObject({ client_id: 'c1' });
  });

  it('saves two answers that arrive together without losing either', async () => {
    const { provider, stored } = setup();
    await Promise.all([
      provider.saveTokens({ access_token: 'a1', token_type: 'Bearer' }, { issuer: 'https://as1.example.test' }),
      provider.saveClientInformation!({ client_id: 'c2' }, { issuer: 'https://as2.example.test' }),
      provider.saveTokens({ access_token: 'a2', token_type: 'Bearer' }, { issuer: 'https://as2.example.test' }),
    ]);
    expect(Object.keys(stored().tokens as object)).toEqual(['https://as1.example.test', 'https://as2.example.test']);
    expect(Object.keys(stored().clients as object)).toEqual(['https://as2.example.test']);
    // Later writes still go through once the queue emptied.
    await provider.saveTokens({ access_token: 'a3', token_type: 'Bearer' }, { issuer: 'https://as1.example.test' });
    expect(await provider.tokens({ issuer: 'https://as1.example.test' } as never)).toMatchObject({ access_token: 'a3' });
  });

  it('forgets a demanded scope once tokens grant it, and keeps it while they do not', async () => {
    const { secrets, provider, stored } = setup();
    secrets.values.set(key, JSON.stringify({ wantedScope: 'read admin', tokens: {}, clients: {} }));
    await provider.saveTokens({ access_token: 'a', token_type: 'Bearer', scope: 'read' });
    expect(stored().wantedScope).toBe('read admin');
    await provider.saveTokens({ access_token: 'b', token_type: 'Bearer', scope: 'read admin' });
    expect(stored().wantedScope).toBeUndefined();
  });

  it('forgets exactly what the SDK says is invalid', async () => {
    const start = async () => {
      const s = setup();
      await s.provider.saveClientInformation!({ client_id: 'c' });
      await s.provider.saveTokens({ access_token: 'a', token_type: 'Bearer' });
      s.provider.saveDiscoveryState(discovery({ issuer: 'x' }));
      s.provider.saveCodeVerifier('v'.repeat(43));
      return s;
    };
    const verifierKept = async (provider: McpOAuthProvider) => {
      await provider.redirectToAuthorization(new URL(`https://as.example.test/authorize?code_challenge=${challengeOf('v'.repeat(43))}`));
      provider.takePendingAuthorization();
      try {
        return provider.codeVerifier() === 'v'.repeat(43);
      } catch {
        return false;
      }
    };
    const after = async (scope: Parameters<McpOAuthProvider['invalidateCredentials']>[0]) => {
      const { provider, stored } = await start();
      await provider.invalidateCredentials(scope);
      const s = stored();
      return { tokens: Object.keys(s.tokens as object).length, clients: Object.keys(s.clients as object).length, issuer: 'lastIssuer' in s, discovery: provider.discoveryState() !== undefined, verifier: await verifierKept(provider) };
    };
    expect(await after('all')).toEqual({ tokens: 0, clients: 0, issuer: false, discovery: false, verifier: false });
    expect(await after('tokens')).toEqual({ tokens: 0, clients: 1, issuer: false, discovery: true, verifier: true });
    expect(await after('client')).toEqual({ tokens: 1, clients: 0, issuer: true, discovery: true, verifier: true });
    expect(await after('verifier')).toEqual({ tokens: 1, clients: 1, issuer: true, discovery: true, verifier: false });
    expect(await after('discovery')).toEqual({ tokens: 1, clients: 1, issuer: true, discovery: false, verifier: true });
  });
});

describe('McpOAuthProvider: the browser step', () => {
  it('has nothing to take or check before any authorization, and no verifier to give', () => {
    const { provider } = setup();
    expect(provider.takePendingAuthorization()).toBeUndefined();
    expect(provider.expectedState).toBeUndefined();
    expect(() => provider.codeVerifier()).toThrow('sign-in required: no authorization is under way');
  });

  it('never sends the browser to an authorization endpoint that is not a web address', async () => {
    const { provider } = setup();
    await expect(provider.redirectToAuthorization(new URL('file:///etc/passwd'))).rejects.toThrow(/authorization endpoint/);
    expect(provider.pendingAuthorization).toBeUndefined();
  });

  it('adds no scope when none was granted, demanded or asked for, and lists each scope once', async () => {
    const { provider } = setup();
    await provider.redirectToAuthorization(new URL('https://as.example.test/authorize?state=s1'));
    expect(provider.takePendingAuthorization()!.searchParams.has('scope')).toBe(false);
    expect(provider.expectedState).toBe('s1');
    await provider.redirectToAuthorization(new URL('https://as.example.test/authorize?scope=read%20%20write%20read'));
    expect(provider.takePendingAuthorization()!.searchParams.get('scope')).toBe('read write');
  });

  it('uses a verifier for one authorization only', async () => {
    const { provider } = setup();
    const challenge = challengeOf('w'.repeat(43));
    provider.saveCodeVerifier('w'.repeat(43));
    await provider.redirectToAuthorization(new URL(`https://as.example.test/authorize?code_challenge=${challenge}`));
    provider.takePendingAuthorization();
    expect(provider.codeVerifier()).toBe('w'.repeat(43));
    await provider.redirectToAuthorization(new URL(`https://as.example.test/authorize?code_challenge=${challenge}`));
    provider.takePendingAuthorization();
    expect(() => provider.codeVerifier()).toThrow('sign-in required: no authorization is under way');
  });

  it('without a browser, says "sign-in required" with no tokens, and remembers every scope still missing', async () => {
    const { secrets, provider, stored } = setup({ redirectUrl: undefined });
    secrets.values.set(key, JSON.stringify({ signedIn: true, tokens: {}, clients: {} }));
    await expect(provider.redirectToAuthorization(new URL('https://as.example.test/authorize?scope=admin'))).rejects.toThrow('sign-in required');
    await provider.saveTokens({ access_token: 'a', token_type: 'Bearer', scope: 'read' });
    const refused = await provider.redirectToAuthorization(new URL('https://as.example.test/authorize?scope=admin%20audit')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpScopeRequiredError);
    expect(stored().wantedScope).toBe('admin audit');
    expect(await readMissingScopes(secrets, serverUrl)).toEqual(['admin', 'audit']);
  });
});

describe('McpOAuthProvider: DPoP', () => {
  it('proves requests where the authorization server offers DPoP or the stored tokens are DPoP-bound, and not otherwise', async () => {
    const offered = setup();
    offered.provider.saveDiscoveryState(discovery({ dpop_signing_alg_values_supported: ['ES256'] }));
    expect(await offered.provider.dpop()).toBeDefined();
    const empty = setup();
    empty.provider.saveDiscoveryState(discovery({ dpop_signing_alg_values_supported: [] }));
    expect(await empty.provider.dpop()).toBeUndefined();
    await empty.provider.saveTokens({ access_token: 'a', token_type: 'Bearer' });
    expect(await empty.provider.dpop()).toBeUndefined();
    const notArray = setup();
    notArray.provider.saveDiscoveryState(discovery({ dpop_signing_alg_values_supported: 'ES256' }));
    expect(await notArray.provider.dpop()).toBeUndefined();
    const bound = setup();
    await bound.provider.saveTokens({ access_token: 'a', token_type: 'DPoP' }, { issuer: 'https://as.example.test' } as never);
    expect(await bound.provider.dpop()).toBeDefined();
    expect(await setup().provider.dpop()).toBeUndefined();
  });
});
