import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import * as http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness } from '../../src/core';
import { freePort, repoPath, startProcess } from '../support/servers';

// The grants of machine identities against oidc-provider, where they are refused as much as where
// they work: workload identity federation (a JWT bearer grant, RFC 7523, registered on the
// provider through its grant API) with a good, a forged and an expired workload token;
// enterprise-managed authorization whose ID token has expired at the identity provider (a token
// exchange grant, RFC 8693, on the same provider); and DPoP where the provider demands a nonce of
// every proof (RFC 9449 §8): the client answers the challenge.
const SCOPE = 'mcp:tools';
/** jose is an ES module; loaded in beforeAll. */
let jose: typeof import('jose', { with: { 'resolution-mode': 'import' } });
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

describe('machine identity grants against oidc-provider, refusals included', () => {
  const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  /** The CI system's key: it signs the workload's OIDC tokens. */
  const workloadKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const forgerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const workloadIssuer = 'https://ci.example.com';
  let issuer = '';
  let mcpUrl = '';
  let authServer: http.Server;
  let resourceServer: Awaited<ReturnType<typeof startProcess>>;
  const refusals: string[] = [];
  let nonceChallenges = 0;
  const harnesses: McpHarness[] = [];

  beforeAll(async () => {
    jose = await import('jose');
    const authPort = await freePort();
    const mcpPort = await freePort();
    issuer = `http://127.0.0.1:${authPort}`;
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
    const { default: Provider, errors } = await import('oidc-provider');
    const { loopbackIssuerConfig } = await import('../fixtures/servers/loopbackIssuer.mjs');
    const machine = { response_types: [], redirect_uris: [], scope: SCOPE };
    const provider = new Provider(
      issuer,
      loopbackIssuerConfig({
        signingKey,
        resources: [mcpUrl],
        errors,
        clients: [
          { ...machine, client_id: 'svc-dpop', client_secret: 'dpop-secret', grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' },
          { ...machine, client_id: 'wif-ci', grant_types: [JWT_BEARER], token_endpoint_auth_method: 'none' },
          { ...machine, client_id: 'mcp-app', client_secret: 'app-secret', grant_types: [JWT_BEARER], token_endpoint_auth_method: 'client_secret_basic' },
          { ...machine, client_id: 'idp-app', client_secret: 'idp-secret', grant_types: [TOKEN_EXCHANGE], token_endpoint_auth_method: 'client_secret_basic' },
        ],
        features: { clientCredentials: { enabled: true }, dPoP: { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true } },
      }),
    );
    const resourceServerInfo = new provider.ResourceServer(mcpUrl, { scope: SCOPE, audience: mcpUrl, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } });
    /** An access token for the MCP server (naming the client as its subject), once the grant has been checked. */
    const issue = async (ctx: { oidc: { client?: unknown; provider: unknown }; body?: unknown }) => {
      const token = new (ctx.oidc.provider as InstanceType<typeof Provider>).ClientCredentials({ client: ctx.oidc.client as never, scope: SCOPE });
      token.resourceServer = resourceServerInfo;
      ctx.body = { access_token: await token.save(), token_type: 'Bearer', expires_in: token.expiration, scope: SCOPE };
    };
    const refuse = (description: string) => {
      refusals.push(description);
      return new errors.InvalidGrant(description);
    };
    // RFC 7523 JWT bearer: a workload token from the CI system, or an ID-JAG this provider made.
    provider.registerGrantType(
      JWT_BEARER,
      async (ctx) => {
        const assertion = String(ctx.oidc.params!.assertion ?? '');
        const idJag = ctx.oidc.client!.clientId === 'mcp-app';
        try {
          await (idJag
            ? jose.jwtVerify(assertion, signingKey.publicKey, { issuer, audience: issuer, typ: 'oauth-id-jag+jwt' })
            : jose.jwtVerify(assertion, workloadKey.publicKey, { issuer: workloadIssuer, audience: issuer }));
          await issue(ctx);
        } catch (err) {
          throw refuse(`assertion refused: ${(err as { code?: string }).code ?? 'invalid'}`);
        }
      },
      ['assertion', 'scope', 'resource'],
    );
    // RFC 8693 at the identity provider: an ID token it issued, unexpired, for an ID-JAG.
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const params = ctx.oidc.params as Record<string, string | undefined>;
        let subject: string;
        try {
          subject = String((await jose.jwtVerify(params.subject_token ?? '', signingKey.publicKey, { issuer })).payload.sub);
        } catch (err) {
          throw refuse(`ID token refused: ${(err as { code?: string }).code ?? 'invalid'}`);
        }
        const idJag = await new jose.SignJWT({ client_id: 'mcp-app', resource: params.resource, scope: SCOPE })
          .setProtectedHeader({ alg: 'ES256', kid: 'signing', typ: 'oauth-id-jag+jwt' })
          .setIssuer(issuer)
          .setSubject(subject)
          .setAudience(params.audience ?? issuer)
          .setIssuedAt()
          .setExpirationTime('5m')
          .setJti(randomBytes(8).toString('hex'))
          .sign(signingKey.privateKey);
        ctx.body = { access_token: idJag, issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', token_type: 'N_A', expires_in: 300 };
      },
      ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
    );
    provider.on('grant.error', (_ctx, err) => {
      if ((err as { error?: string }).error === 'use_dpop_nonce') nonceChallenges++;
    });
    authServer = http.createServer(provider.callback());
    await new Promise<void>((resolve) => authServer.listen(authPort, '127.0.0.1', resolve));
    resourceServer = await startProcess(process.execPath, [repoPath('test/fixtures/servers/resourceServer.mjs'), `--issuer=${issuer}`, `--port=${mcpPort}`], { ready: /listening \d+/ });
  });

  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.dispose()));
    await resourceServer?.stop();
    if (authServer) await new Promise((resolve) => authServer.close(resolve));
  });

  async function connect(oauth: Record<string, unknown>, env: Record<string, string>) {
    const harness = new McpHarness({ userServers: { label: 'test', jsonPath: 'servers', entries: { api: { type: 'http', url: mcpUrl, oauth } } }, env, reconnectDelaysMs: [] });
    harnesses.push(harness);
    await harness.start();
    return harness;
  }

  const token = (key: KeyObject, claims: { iss: string; sub: string; exp: number }, typ = 'JWT') =>
    new jose.SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'signing', typ })
      .setIssuer(claims.iss)
      .setSubject(claims.sub)
      .setAudience(issuer)
      .setIssuedAt(claims.exp - 600)
      .setExpirationTime(claims.exp)
      .sign(key);
  const inTenMinutes = () => Math.floor(Date.now() / 1000) + 600;
  const aMinuteAgo = () => Math.floor(Date.now() / 1000) - 60;
  const whoami = async (h: McpHarness) => JSON.parse((await h.callTool('mcp__api__whoami', {})).text) as Record<string, unknown>;

  it('workload identity: the CI token buys an access token for the workload', async () => {
    const ci = await token(workloadKey.privateKey, { iss: workloadIssuer, sub: 'repo:acme/app:ref:main', exp: inTenMinutes() });
    const h = await connect({ grant: 'jwt_bearer', clientId: 'wif-ci', assertion: '${env:CI_TOKEN}', issuer }, { CI_TOKEN: ci });
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(await whoami(h)).toMatchObject({ client_id: 'wif-ci', scope: SCOPE });
  });

  it.each([
    ['a forged workload token (bad assertion)', () => token(forgerKey.privateKey, { iss: workloadIssuer, sub: 'repo:acme/app:ref:main', exp: inTenMinutes() }), 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'],
    ['an expired workload token', () => token(workloadKey.privateKey, { iss: workloadIssuer, sub: 'repo:acme/app:ref:main', exp: aMinuteAgo() }), 'ERR_JWT_EXPIRED'],
  ])('workload identity: %s is refused, and the server says so', async (_what, make, code) => {
    const assertion = await make();
    const h = await connect({ grant: 'jwt_bearer', clientId: 'wif-ci', assertion: '${env:CI_TOKEN}', issuer }, { CI_TOKEN: assertion });
    const [server] = h.servers();
    expect(server!.state).toBe('error');
    expect(server!.error).toContain('invalid_grant');
    expect(server!.error).not.toContain(assertion);
    expect(refusals.at(-1)).toBe(`assertion refused: ${code}`);
  });

  const enterprise = (idToken: string) =>
    connect(
      { grant: 'enterprise_managed', clientId: 'mcp-app', clientSecret: '${env:APP_SECRET}', issuer, idp: { issuer, clientId: 'idp-app', clientSecret: '${env:IDP_SECRET}', idToken: '${env:ID_TOKEN}' } },
      { APP_SECRET: 'app-secret', IDP_SECRET: 'idp-secret', ID_TOKEN: idToken },
    );

  it('enterprise-managed: a valid ID token is exchanged for an ID-JAG, then an access token, with no browser', async () => {
    const h = await enterprise(await token(signingKey.privateKey, { iss: issuer, sub: 'ann@acme.example', exp: inTenMinutes() }));
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(await whoami(h)).toMatchObject({ client_id: 'mcp-app', scope: SCOPE });
  });

  it('enterprise-managed: an expired ID token is refused at the identity provider, and the server says so', async () => {
    const idToken = await token(signingKey.privateKey, { iss: issuer, sub: 'ann@acme.example', exp: aMinuteAgo() });
    const h = await enterprise(idToken);
    const [server] = h.servers();
    expect(server!.state).toBe('error');
    expect(server!.error).toContain('invalid_grant');
    expect(server!.error).not.toContain(idToken);
    expect(refusals.at(-1)).toBe('ID token refused: ERR_JWT_EXPIRED');
  });

  it('DPoP: the provider refuses a proof without its nonce, and the client answers with the nonce it was given', async () => {
    const before = nonceChallenges;
    const h = await connect({ grant: 'client_credentials', clientId: 'svc-dpop', clientSecret: '${env:SECRET}', issuer, dpop: true }, { SECRET: 'dpop-secret' });
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(nonceChallenges - before).toBe(1);
    expect(await whoami(h)).toMatchObject({ client_id: 'svc-dpop' });
  });
});
