import { afterEach, describe, expect, it } from 'vitest';
import { McpServerAuth } from '../../../src/core/auth/McpServerAuth';
import { oauthSecretKey } from '../../../src/core/auth/McpOAuthProvider';
import type { McpServerDefinition } from '../../../src/core/config/types';
import { McpConnection } from '../../../src/core/mcp/McpConnection';
import { McpTransportConnector } from '../../../src/core/mcp/McpTransportConnector';
import { definition, launchOf } from '../../support/definitions';
import { MCP_URL, MemoryAuthHost, MemoryOAuthServer, ORIGIN } from '../../support/memoryOAuth';

// OAuth end to end in this process: the connection, its session and transports, the harness's
// OAuth client, and an authorization server and protected MCP server answering through `fetch`.
const connections: McpConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) {
    await c.stop();
    c.dispose();
  }
});

function connect(server: MemoryOAuthServer, host: MemoryAuthHost | undefined, entry: Partial<McpServerDefinition> = {}) {
  const logs: string[] = [];
  const connection = new McpConnection({
    definition: definition('prot', { type: 'http', url: MCP_URL, ...entry }),
    clientInfo: { name: 'test', version: '1' },
    handlers: {},
    resolveLaunch: launchOf,
    traceEnabled: () => false,
    reconnectDelaysMs: [],
    auth: new McpServerAuth(host),
    createTransports: (launch, auth, sink) => new McpTransportConnector({ launch, auth, fetch: server.fetch, ...sink }),
  });
  connection.onDidLog((e) => logs.push(e.message));
  connections.push(connection);
  return { connection, logs };
}

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 5000 };

describe('OAuth sign-in of an HTTP server', () => {
  it('waits for the user before any browser opens: a start without a sign-in rests in "sign-in required"', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { connection } = connect(server, host);
    await connection.start();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required' });
    expect(host.asked).toEqual([]);
    expect(server.stats.authorizations).toBe(0);
  });

  it('signs in through the browser when asked: registers, checks state, redeems the code, and calls with the token', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { connection } = connect(server, host);
    await connection.signIn();
    expect(connection.state.kind).toBe('running');
    expect(host.asked).toEqual(['prot at 127.0.0.1:9']);
    expect(server.stats).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
    expect(await connection.callTool('echo', { text: 'signed' }, call)).toMatchObject({ content: [{ text: 'signed' }] });
    const stored = JSON.parse(host.secrets.values.get(oauthSecretKey(MCP_URL))!);
    expect(stored).toMatchObject({ signedIn: true, lastIssuer: ORIGIN });
    // A later start uses the stored sign-in without asking.
    await connection.restart();
    expect(connection.state.kind).toBe('running');
    expect(server.stats.authorizations).toBe(1);
  });

  it('refreshes an expired token once and goes on, and says "sign in again" once refreshing is refused', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { connection } = connect(server, host);
    await connection.signIn();
    server.expireAccessTokens();
    const results = await Promise.all([1, 2, 3].map((n) => connection.callTool('echo', { text: `after ${n}` }, call)));
    expect(results.map((r) => r.content)).toEqual([1, 2, 3].map((n) => [{ type: 'text', text: `after ${n}` }]));
    expect(server.stats).toMatchObject({ refreshes: 1, refusedRefreshes: 0 });
    // A session the user signed into now asks again; one started from the stored sign-in cannot.
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    expect(await connection.callTool('echo', { text: 'asked again' }, call)).toMatchObject({ content: [{ text: 'asked again' }] });
    expect(host.asked).toHaveLength(2);
    await connection.restart();
    server.expireAccessTokens();
    server.revokeRefreshTokens();
    await expect(connection.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'unavailable', message: 'sign-in required: the saved sign-in is no longer valid, sign in again' });
    await expect.poll(() => connection.state.kind).not.toBe('running');
    await connection.restart();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required: the saved sign-in is no longer valid, sign in again' });
  });

  it('asks again for more access when a call needs it (step-up), then makes the call', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { connection } = connect(server, host);
    await connection.signIn();
    expect(await connection.callTool('step_up', {}, call)).toMatchObject({ content: [{ text: 'admin done' }] });
    expect(server.stats.authorizations).toBe(2);
    expect(host.asked).toHaveLength(2);
  });

  it('stays "sign-in required" when the user declines, and when the redirect is not the one started', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    host.confirm = false;
    const { connection } = connect(server, host);
    await connection.signIn();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required: sign-in was declined' });
    host.confirm = true;
    server.forgeState = true;
    await connection.signIn();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required: the redirect did not match the sign-in that was started' });
    server.forgeState = false;
    server.denyWith = 'access_denied';
    await connection.signIn();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required: the authorization server answered "access_denied"' });
    server.denyWith = 'not a code <script>';
    await connection.signIn();
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required: the authorization server answered "an error"' });
  });

  it('forgets the sign-in on sign-out', async () => {
    const server = new MemoryOAuthServer();
    const host = new MemoryAuthHost(server);
    const { connection } = connect(server, host);
    await connection.signIn();
    await connection.signOut();
    expect(host.secrets.values.has(oauthSecretKey(MCP_URL))).toBe(false);
    expect(connection.state).toEqual({ kind: 'auth_required', reason: 'sign-in required' });
  });

  it('without a host, a server that wants a sign-in is an error with advice, and OAuth stays out of an entry with its own header', async () => {
    const server = new MemoryOAuthServer();
    const bare = connect(server, undefined).connection;
    await bare.start();
    expect(bare.state).toMatchObject({ kind: 'error', message: expect.stringMatching(/^the server refused the connection \(HTTP 401\): it needs credentials/) });
    const withHeader = connect(server, new MemoryAuthHost(server), { headers: { Authorization: 'Bearer wrong' } }).connection;
    await withHeader.start();
    expect(withHeader.state).toMatchObject({ kind: 'error', message: expect.stringMatching(/the "Authorization" header was sent and rejected/) });
    expect(server.stats.registrations).toBe(0);
  });
});

describe('OAuth machine identities', () => {
  it('gets a token with client credentials, no person involved', async () => {
    const server = new MemoryOAuthServer();
    const { connection, logs } = connect(server, undefined, { oauth: { clientId: 'machine', clientSecret: 'machine-secret', grant: 'client_credentials' } });
    await connection.start();
    expect(connection.state.kind).toBe('running');
    expect(server.stats.clientCredentials).toBe(1);
    expect(logs).toContain('oauth.issuer is not set: the client credentials go to whichever authorization server this MCP server names');
  });

  it('names the authorization server\'s refusal of wrong credentials, never "sign in"', async () => {
    const server = new MemoryOAuthServer();
    const { connection } = connect(server, undefined, { oauth: { clientId: 'machine', clientSecret: 'wrong', grant: 'client_credentials' } });
    await connection.start();
    expect(connection.state).toMatchObject({ kind: 'error', message: expect.stringMatching(/^the authorization server refused the client credentials of "machine": invalid_client/) });
  });

  it('gets a token with the workload\'s own JWT, and names a refusal as the workload token\'s', async () => {
    const server = new MemoryOAuthServer();
    const { connection } = connect(server, undefined, { oauth: { clientId: 'ci-job', grant: 'jwt_bearer', assertion: ' workload.jwt.token ', issuer: ORIGIN } });
    await connection.start();
    expect(connection.state.kind).toBe('running');
    expect(server.stats.jwtBearer).toBe(1);
    const refused = connect(server, undefined, { oauth: { clientId: 'ci-job', grant: 'jwt_bearer', assertion: 'stolen', issuer: ORIGIN } }).connection;
    await refused.start();
    expect(refused.state).toMatchObject({ kind: 'error', message: expect.stringMatching(/^the authorization server refused the workload token of "ci-job": invalid_grant/) });
  });
});
