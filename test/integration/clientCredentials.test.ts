import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness } from '../../src/core';
import { freePort, repoPath, startProcess } from '../support/servers';

// Machine identities (the OAuth client credentials grant) against a real authorization server
// nobody here wrote: oidc-provider on loopback with client credentials and resource indicators on,
// issuing JWT access tokens for an MCP server that checks them against the issuer's keys.
const SCOPE = 'mcp:tools';

function pkcs8(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

describe('OAuth client credentials against oidc-provider', () => {
  const clientKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const strangerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let issuer = '';
  let mcpUrl = '';
  /** The same MCP server, accepting only DPoP-bound tokens. */
  let dpopUrl = '';
  let authServer: http.Server;
  let resourceServer: Awaited<ReturnType<typeof startProcess>>;
  let dpopServer: Awaited<ReturnType<typeof startProcess>>;
  /** Token requests the authorization server received, by client, with their outcome. */
  const tokenRequests: Array<{ client: string | undefined; ok: boolean; error?: string }> = [];
  const harnesses: McpHarness[] = [];

  beforeAll(async () => {
    const authPort = await freePort();
    issuer = `http://127.0.0.1:${authPort}`;
    const mcpPort = await freePort();
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const dpopPort = await freePort();
    dpopUrl = `http://127.0.0.1:${dpopPort}/mcp`;
    // oidc-provider is ESM only.
    const { default: Provider, errors } = await import('oidc-provider');
    const { loopbackIssuerConfig } = await import('../fixtures/servers/loopbackIssuer.mjs');
    const provider = new Provider(
      issuer,
      loopbackIssuerConfig({
        signingKey,
        resources: [mcpUrl, dpopUrl],
        errors,
        clients: [
          { client_id: 'svc-basic', client_secret: 'the-right-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', scope: SCOPE },
          {
            client_id: 'svc-jwt',
            grant_types: ['client_credentials'],
            response_types: [],
            redirect_uris: [],
            token_endpoint_auth_method: 'private_key_jwt',
            token_endpoint_auth_signing_alg: 'ES256',
            jwks: { keys: [{ ...clientKey.publicKey.export({ format: 'jwk' }), use: 'sig', alg: 'ES256' }] },
            scope: SCOPE,
          },
        ],
        features: { clientCredentials: { enabled: true } },
      }),
    );
    provider.on('grant.success', (ctx) => tokenRequests.push({ client: ctx.oidc.client?.clientId, ok: true }));
    provider.on('grant.error', (ctx, err) => tokenRequests.push({ client: ctx.oidc.client?.clientId ?? ctx.oidc.params?.client_id as string | undefined, ok: false, error: (err as { error?: string }).error }));
    authServer = http.createServer(provider.callback());
    await new Promise<void>((resolve) => authServer.listen(authPort, '127.0.0.1', resolve));
    resourceServer = await startProcess(process.execPath, [repoPath('test/fixtures/servers/resourceServer.mjs'), `--issuer=${issuer}`, `--port=${mcpPort}`], { ready: /listening \d+/ });
    dpopServer = await startProcess(process.execPath, [repoPath('test/fixtures/servers/resourceServer.mjs'), `--issuer=${issuer}`, `--port=${dpopPort}`, '--dpop'], { ready: /listening \d+/ });
  });

  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.dispose()));
    await resourceServer?.stop();
    await dpopServer?.stop();
    await new Promise((resolve) => authServer?.close(resolve));
  });

  async function connect(oauth: Record<string, unknown>, env: Record<string, string>, url = mcpUrl) {
    // No auth host: a machine identity needs no person, browser or token store.
    const harness = new McpHarness({ userServers: { label: 'test', jsonPath: 'servers', entries: { api: { type: 'http', url, oauth } } }, env, reconnectDelaysMs: [] });
    harnesses.push(harness);
    await harness.start();
    return harness;
  }

  async function whoami(harness: McpHarness): Promise<Record<string, unknown>> {
    const result = await harness.callTool('mcp__api__whoami', {});
    expect(result.isError).toBe(false);
    return JSON.parse(result.text) as Record<string, unknown>;
  }

  it('client_secret_basic: the secret from the environment buys a token the MCP server accepts', async () => {
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-basic', clientSecret: '${env:SVC_SECRET}', issuer, scopes: [SCOPE] }, { SVC_SECRET: 'the-right-secret' });
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(await whoami(h)).toEqual({ client_id: 'svc-basic', sub: 'svc-basic', scope: SCOPE });
    expect(tokenRequests.filter((r) => r.client === 'svc-basic' && r.ok)).toHaveLength(1);
  });

  it('private_key_jwt: a JWT signed with the key (RFC 7523) is the client authentication', async () => {
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-jwt', privateKey: '${env:SVC_KEY}', signingAlgorithm: 'ES256', issuer }, { SVC_KEY: pkcs8(clientKey.privateKey) });
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(await whoami(h)).toMatchObject({ client_id: 'svc-jwt', scope: SCOPE });
  });

  it('a JWK key works as well as a PEM', async () => {
    const jwk = JSON.stringify({ ...clientKey.privateKey.export({ format: 'jwk' }), alg: 'ES256' });
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-jwt', privateKey: '${env:SVC_KEY}', issuer }, { SVC_KEY: jwk });
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
  });

  it('a wrong secret is refused (invalid_client), and the server says so instead of asking anyone to sign in', async () => {
    const before = tokenRequests.length;
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-basic', clientSecret: '${env:SVC_SECRET}', issuer }, { SVC_SECRET: 'a-wrong-secret' });
    const [server] = h.servers();
    expect(server!.state).toBe('error');
    expect(server!.error).toContain('the authorization server refused the client credentials of "svc-basic": invalid_client');
    expect(server!.error).not.toContain('a-wrong-secret');
    // The SDK tries once more after invalid_client (it expects a stale registration); both are refused.
    const refused = tokenRequests.slice(before);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(2);
    for (const r of refused) expect(r).toEqual({ client: 'svc-basic', ok: false, error: 'invalid_client' });
  });

  it('an assertion signed with a key the server does not know is refused', async () => {
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-jwt', privateKey: '${env:SVC_KEY}', signingAlgorithm: 'ES256', issuer }, { SVC_KEY: pkcs8(strangerKey.privateKey) });
    const [server] = h.servers();
    expect(server!.state).toBe('error');
    expect(server!.error).toContain('the authorization server refused the client credentials of "svc-jwt": invalid_client');
  });

  it('credentials bound to another issuer are never sent to this one', async () => {
    const before = tokenRequests.length;
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-basic', clientSecret: '${env:SVC_SECRET}', issuer: 'https://login.example.com' }, { SVC_SECRET: 'the-right-secret' });
    expect(h.servers()[0]!.state).toBe('error');
    expect(tokenRequests.slice(before)).toEqual([]);
  });

  it('with "dpop": true the token is bound to a key of the connection, and every MCP request proves it (RFC 9449)', async () => {
    const stats = async () => (await (await fetch(`${dpopUrl.replace(/\/mcp$/, '')}/test/stats`)).json()) as { accepted: number; dpop: number };
    const before = await stats();
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-basic', clientSecret: '${env:SVC_SECRET}', issuer, dpop: true }, { SVC_SECRET: 'the-right-secret' }, dpopUrl);
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(await whoami(h)).toMatchObject({ client_id: 'svc-basic' });
    const after = await stats();
    // Every request the server accepted carried a proof made with the token's key.
    expect(after.dpop - before.dpop).toBe(after.accepted - before.accepted);
    expect(after.accepted - before.accepted).toBeGreaterThan(1);
  });

  it('a Bearer token is refused where the server wants DPoP', async () => {
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-basic', clientSecret: '${env:SVC_SECRET}', issuer }, { SVC_SECRET: 'the-right-secret' }, dpopUrl);
    expect(h.servers()[0]).toMatchObject({ state: 'error', error: expect.stringContaining('the server refused the access token obtained with the client credentials of "svc-basic"') });
  });
});
