import { OAuthError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { oauthSecretKey } from '../../../src/core/auth/McpOAuthProvider';
import { McpAuthRequiredError, McpScopeRequiredError } from '../../../src/core/auth/types';
import { MCP_URL, MemoryAuthHost, MemoryOAuthServer, ORIGIN } from '../../support/memoryOAuth';
import { create, signedInWithHeldBrowser } from './httpAuthRig';

// McpHttpAuth driven directly: a real SDK client and Streamable HTTP transport per connect attempt,
// against the in-memory authorization server and protected MCP server.

describe('McpHttpAuth: what a connect attempt may do', () => {
  it('stays out of the way of an entry with its own Authorization header, passing its 401 through', async () => {
    const server = new MemoryOAuthServer();
    const { auth } = await create(server, new MemoryAuthHost(server), { hasAuthorizationHeader: true });
    expect(auth.provider).toBeUndefined();
    const refusal = new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 401', { status: 401 });
    await expect(auth.run(() => Promise.reject(refusal), async () => undefined, new AbortController().signal)).rejects.toBe(refusal);
    expect(auth.canStepUp).toBe(false);
  });

  it('without a host or stored sign-in, a refusal means "sign-in required" and no browser opens', async () => {
    const server = new MemoryOAuthServer();
    const bare = await create(server, undefined);
    expect(bare.auth.provider).toBeUndefined();
    await expect(bare.run()).rejects.toThrow(new McpAuthRequiredError('sign-in required'));
    const host = new MemoryAuthHost(server);
    const quiet = await create(server, host, { interactive: false });
    expect(quiet.auth.provider).toBeUndefined();
    await expect(quiet.run()).rejects.toThrow(new McpAuthRequiredError('sign-in required'));
    expect(host.asked).toEqual([]);
    expect(server.stats.registrations).toBe(0);
  });

  it('says "sign in again" when a stored sign-in lost its tokens', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    host.secrets.values.set(oauthSecretKey(MCP_URL), JSON.stringify({ signedIn: true, tokens: {}, clients: {} }));
    const { run, auth } = await create(server, host, { interactive: false });
    expect(auth.keepsForSession).toBe(false);
    await expect(run()).rejects.toThrow('sign-in required: the saved sign-in is no longer valid, sign in again');
  });

  it('signs in once through the browser, keeps the auth for the session, and a later quiet start uses the tokens', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const signedIn = await create(server, host);
    expect(signedIn.auth.keepsForSession).toBe(true);
    await signedIn.run();
    expect(host.asked).toEqual(['prot at 127.0.0.1:9']);
    expect(signedIn.logs).toEqual([]);
    const quiet = await create(server, host, { interactive: false });
    expect(quiet.auth.keepsForSession).toBe(false);
    await quiet.run();
    expect(server.stats.authorizations).toBe(1);
    // The stored sign-in cannot ask for more: the refusal names the missing scope.
    await expect(quiet.callStepUp()).rejects.toThrow();
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    const after = await create(server, host, { interactive: false });
    await expect(after.run()).rejects.toThrow('sign-in required: the saved sign-in is no longer valid, sign in again');
    expect(after.logs).toEqual([expect.stringMatching(/^could not refresh the sign-in: /)]);
  });

  it('asks for the scopes a server demanded at the next sign-in, and logs it', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    await (await create(server, host)).run();
    const key = oauthSecretKey(MCP_URL);
    host.secrets.values.set(key, JSON.stringify({ ...JSON.parse(host.secrets.values.get(key)!), wantedScope: 'mcp:tools admin' }));
    const again = await create(server, host);
    expect(again.logs).toEqual(['signing in again for the access the server asked for (admin)']);
    await again.run();
    expect(server.stats.authorizations).toBe(2);
    await again.callStepUp();
    expect(server.stats.authorizations).toBe(2);
  });

  it('gives up when the server still refuses after signing in twice', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { run } = await create(server, host);
    const refusing = server.fetch;
    Object.assign(server, {
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        if (new URL(new Request(input, init).url).pathname === '/mcp') {
          server.expireAccessTokens();
          server.revokeRefreshTokens();
        }
        return refusing(input, init);
      },
    });
    const outcome = await run().then(() => 'connected', (e: unknown) => e);
    expect(outcome).toEqual(new McpAuthRequiredError('sign-in required: the server still refuses access after signing in'));
    expect(server.stats.authorizations).toBe(2);
  });

  it('passes other errors through, and a cancelled attempt never opens the browser', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { auth } = await create(server, host);
    const broken = new Error('socket hang up');
    await expect(auth.run(() => Promise.reject(broken), async () => undefined, new AbortController().signal)).rejects.toBe(broken);
    const stopped = new AbortController();
    stopped.abort();
    await expect(auth.run(() => Promise.reject(new UnauthorizedError()), async () => undefined, stopped.signal)).rejects.toThrow(new McpAuthRequiredError('sign-in required'));
    expect(host.asked).toEqual([]);
    auth.dispose();
    expect(auth.canStepUp).toBe(false);
  });
});

describe('McpHttpAuth: machine identities', () => {
  const refuse = (err: unknown) => async (grant: 'client_credentials' | 'jwt_bearer' | 'enterprise_managed', issuer?: string) => {
    const server = new MemoryOAuthServer();
    const { auth, logs } = await create(server, undefined, { preregistered: { clientId: 'bot', clientSecret: 's', assertion: 'jwt', idp: { idToken: 'id', clientId: 'idp' }, grant, issuer } as never });
    const outcome = await auth.run(() => Promise.reject(err), async () => undefined, new AbortController().signal).catch((e: unknown) => e);
    return { outcome: outcome as Error, logs };
  };

  it('names the workload token when no issuer is set, and says nothing when one is', async () => {
    const other = new Error('other');
    expect((await refuse(other)('jwt_bearer')).logs).toEqual(['oauth.issuer is not set: the workload token goes to whichever authorization server this MCP server names']);
    const withIssuer = await refuse(other)('client_credentials', ORIGIN);
    expect(withIssuer.logs).toEqual([]);
    expect(withIssuer.outcome).toBe(other);
  });

  it('names what was refused: the token obtained, or the grant with the server\'s code and text', async () => {
    const unauthorized = new UnauthorizedError();
    const byServer = await refuse(unauthorized)('enterprise_managed', ORIGIN);
    expect(byServer.outcome.message).toBe('the server refused the access token obtained with the enterprise-managed sign-in of "bot"');
    expect(byServer.outcome.cause).toBe(unauthorized);
    const http = await refuse(new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 401', { status: 401 }))('client_credentials', ORIGIN);
    expect(http.outcome.message).toBe('the server refused the access token obtained with the client credentials of "bot"');
    const forbidden = new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 403', { status: 403 });
    expect((await refuse(forbidden)('client_credentials', ORIGIN)).outcome).toBe(forbidden);
    const coded = await refuse(new OAuthError('invalid_client', 'bad secret'))('jwt_bearer', ORIGIN);
    expect(coded.outcome.message).toBe('the authorization server refused the workload token of "bot": invalid_client (bad secret)');
    const bare = await refuse(new OAuthError('x invalid_client', ''))('client_credentials', ORIGIN);
    expect(bare.outcome.message).toBe('the authorization server refused the client credentials of "bot": an error');
  });
});

describe('McpHttpAuth: step-up in a session', () => {
  it('does not step up without a pending sign-in, and passes errors other than refusals through', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { auth, finish, run } = await create(server, host);
    await run();
    expect(auth.canStepUp).toBe(false);
    await expect(auth.stepUp(finish, new AbortController().signal)).rejects.toThrow(new McpAuthRequiredError('sign-in required'));
    const refusal = new McpAuthRequiredError('sign-in required');
    await expect(auth.withStepUp(() => Promise.reject(refusal), finish, undefined)).rejects.toBe(refusal);
    expect(host.asked).toHaveLength(1);
  });

  it('asks once for calls refused together, and makes each again', async () => {
    const { host, auth, callStepUp } = await signedInWithHeldBrowser();
    const calls = [callStepUp(), callStepUp()];
    await expect.poll(() => host.opened.length).toBe(2);
    expect(auth.canStepUp).toBe(true);
    host.release();
    const results = await Promise.all(calls);
    expect(results.map((r) => r.content)).toEqual([[{ type: 'text', text: 'admin done' }], [{ type: 'text', text: 'admin done' }]]);
    expect(host.asked).toHaveLength(2);
    expect(auth.stepUpsDone).toBe(1);
    expect(auth.canStepUp).toBe(false);
  });

  it('lets one cancelled caller go while the others wait, and ends the step-up when the last leaves', async () => {
    const { host, auth, callStepUp } = await signedInWithHeldBrowser();
    const first = new AbortController();
    const second = new AbortController();
    const calls = [callStepUp(first.signal), callStepUp(second.signal)].map((p) => p.catch((e: unknown) => e));
    await expect.poll(() => host.opened.length).toBe(2);
    first.abort(new Error('stopped one'));
    expect(await calls[0]).toMatchObject({ message: 'stopped one' });
    expect(auth.canStepUp).toBe(true);
    second.abort();
    expect(await calls[1]).toBeInstanceOf(Error);
    expect(auth.stepUpsDone).toBe(0);
    // A call refused after that starts a new step-up, which can finish.
    host.release();
    expect((await callStepUp()).content).toEqual([{ type: 'text', text: 'admin done' }]);
    expect(auth.stepUpsDone).toBe(1);
  });

  it('keeps a stored sign-in\'s demand for more scope as it is', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    await (await create(server, host)).run();
    const quiet = await create(server, host, { interactive: false });
    await quiet.run();
    const refused = await quiet.auth.run(() => Promise.reject(new McpScopeRequiredError(['admin'])), async () => undefined, new AbortController().signal).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpScopeRequiredError);
  });
});
