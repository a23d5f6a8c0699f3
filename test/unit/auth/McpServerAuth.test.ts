import { describe, expect, it } from 'vitest';
import { dpopSecretKey } from '../../../src/core/auth/McpDpopKeys';
import { oauthSecretKey } from '../../../src/core/auth/McpOAuthProvider';
import { McpServerAuth } from '../../../src/core/auth/McpServerAuth';
import { MCP_URL, MemoryAuthHost, MemoryOAuthServer, ORIGIN } from '../../support/memoryOAuth';

describe('McpServerAuth', () => {
  it('gives the authorization server half the startup time to answer when that is shorter than its own limit', async () => {
    const server = new MemoryOAuthServer();
    const auth = await new McpServerAuth(new MemoryAuthHost(server)).begin({ server: 'prot', serverUrl: MCP_URL, interactive: true, hasAuthorizationHeader: false, startupTimeoutMs: 100, log: () => undefined });
    const silent = (_url: string | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    const fetch = auth.fetch(silent, undefined);
    await expect(fetch(`${ORIGIN}/.well-known/oauth-authorization-server`)).rejects.toThrow(`the authorization server did not answer GET ${ORIGIN}/.well-known/oauth-authorization-server within 50 ms`);
    auth.dispose();
  });

  it('signs out by forgetting the tokens and the DPoP key, and needs no host to do nothing', async () => {
    const host = new MemoryAuthHost(new MemoryOAuthServer());
    host.secrets.values.set(oauthSecretKey(MCP_URL), '{}');
    host.secrets.values.set(dpopSecretKey(MCP_URL), '{}');
    host.secrets.values.set('other', 'kept');
    await new McpServerAuth(host).signOut(MCP_URL);
    expect([...host.secrets.values.keys()]).toEqual(['other']);
    await expect(new McpServerAuth(undefined).signOut(MCP_URL)).resolves.toBeUndefined();
    expect(new McpServerAuth(undefined).appliesTo(undefined)).toBe(false);
    expect(new McpServerAuth(host).appliesTo(undefined)).toBe(true);
  });
});
