import { describe, expect, it } from 'vitest';
import { oauthSecretKey } from '../../../src/core/auth/McpOAuthProvider';
import { McpTokenRefresher } from '../../../src/core/auth/McpTokenRefresher';
import { MCP_URL, MemoryAuthHost, MemoryOAuthServer } from '../../support/memoryOAuth';
import { create } from './httpAuthRig';

// The refresher's fetch in front of the in-memory protected server, after a real sign-in.
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
const accept = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function signedIn() {
  const server = new MemoryOAuthServer();
  const host = new MemoryAuthHost(server);
  await (await create(server, host)).run();
  const logs: string[] = [];
  const refresher = new McpTokenRefresher({ serverUrl: MCP_URL, secrets: host.secrets }, (m) => logs.push(m));
  const stored = () => JSON.parse(host.secrets.values.get(oauthSecretKey(MCP_URL))!) as { lastIssuer: string; tokens: Record<string, { access_token: string; refresh_token?: string }> };
  const token = () => Object.values(stored().tokens)[0]!.access_token;
  const send = (fetch: ReturnType<McpTokenRefresher['wrap']>, authorization: string, body: string = initialize) =>
    fetch(MCP_URL, { method: 'POST', headers: { ...accept, authorization }, body });
  return { server, host, refresher, logs, stored, token, send };
}

describe('McpTokenRefresher', () => {
  it('answers a refused expired token with one refresh and sends the request again with the new token', async () => {
    const { server, refresher, token, send } = await signedIn();
    const wrapped = refresher.wrap(server.fetch, undefined);
    const before = token();
    server.expireAccessTokens();
    expect((await send(wrapped, `Bearer  ${before}`)).status).toBe(200);
    expect(token()).not.toBe(before);
    // Each expiry gets its own refresh: a finished one is not reused.
    server.expireAccessTokens();
    expect((await send(wrapped, `bearer ${token()}`)).status).toBe(200);
    expect(server.stats.refreshes).toBe(2);
  });

  it('leaves refusals alone that no refresh can help: no token, another scheme, or a body already spent', async () => {
    const { server, refresher, token, send } = await signedIn();
    const wrapped = refresher.wrap(server.fetch, undefined);
    server.expireAccessTokens();
    expect((await wrapped(MCP_URL)).status).toBe(401);
    expect((await send(wrapped, `NotBearer ${token()}`)).status).toBe(401);
    expect((await send(wrapped, `Bearer ${token()} extra`)).status).toBe(401);
    const stream = new Blob([initialize]).stream();
    expect((await wrapped(MCP_URL, { method: 'POST', headers: { ...accept, authorization: `Bearer ${token()}` }, body: stream, duplex: 'half' } as RequestInit)).status).toBe(401);
    expect(server.stats.refreshes).toBe(0);
  });

  it('resends a refusal that came without a body, keeping the other headers', async () => {
    const { server, refresher, token } = await signedIn();
    const seen: string[] = [];
    const bodiless = async (url: string | URL, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('x-trace') ?? 'none');
      const response = await server.fetch(url, init);
      return response.status === 401 ? new Response(null, { status: 401, headers: response.headers }) : response;
    };
    server.expireAccessTokens();
    const response = await refresher.wrap(bodiless, undefined)(MCP_URL, { method: 'POST', headers: { ...accept, 'x-trace': 't1', authorization: `Bearer ${token()}` }, body: initialize });
    expect(response.status).toBe(200);
    expect(seen.filter((s) => s === 't1')).toHaveLength(2);
  });

  it('says whether newer tokens are stored: already refreshed, none stored, or nothing to refresh with', async () => {
    const { server, host, refresher, stored, logs } = await signedIn();
    const refusal = () => new Response(null, { status: 401 });
    expect(await refresher.refresh('an older token', refusal(), server.fetch)).toBe(true);
    expect(server.stats.refreshes).toBe(0);
    const current = stored();
    const [issuer, tokens] = Object.entries(current.tokens)[0]!;
    const key = oauthSecretKey(MCP_URL);
    host.secrets.values.set(key, JSON.stringify({ ...current, tokens: { [issuer]: { ...tokens, refresh_token: undefined } } }));
    expect(await refresher.refresh(tokens.access_token, refusal(), server.fetch)).toBe(false);
    host.secrets.values.set(key, JSON.stringify({ ...current, tokens: {} }));
    expect(await refresher.refresh(tokens.access_token, refusal(), server.fetch)).toBe(false);
    expect(logs).toEqual([]);
  });

  it('reports a refused refresh as false and logs why', async () => {
    const { server, refresher, token, logs } = await signedIn();
    server.revokeRefreshTokens();
    expect(await refresher.refresh(token(), new Response(null, { status: 401 }), server.fetch)).toBe(false);
    expect(server.stats.refusedRefreshes).toBe(1);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^could not refresh the sign-in: \S/);
  });

  it('refreshes under the store\'s lock and releases it', async () => {
    const { server, host, refresher, token } = await signedIn();
    const locks: string[] = [];
    Object.assign(host.secrets, {
      lock: async (key: string) => {
        locks.push(`take ${key}`);
        return async () => void locks.push(`release ${key}`);
      },
    });
    expect(await refresher.refresh(token(), new Response(null, { status: 401 }), server.fetch)).toBe(true);
    const key = oauthSecretKey(MCP_URL);
    expect(locks).toEqual([`take ${key}`, `release ${key}`]);
  });
});
