import { ClientCredentialsProvider, CrossAppAccessProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { McpOAuthClientConfig } from '../../../src/core/config/types';
import { createMachineIdentityProvider, isMachineIdentity, JWT_BEARER_GRANT, McpJwtBearerProvider, readPrivateKey } from '../../../src/core/auth/machineIdentity';
import { MCP_URL, MemoryOAuthServer, ORIGIN } from '../../support/memoryOAuth';
import { create } from './httpAuthRig';

const config = (oauth: Partial<McpOAuthClientConfig>) => ({ clientId: 'svc', ...oauth }) as McpOAuthClientConfig;

describe('machine identity providers', () => {
  it('counts the three machine grants as machine identities, and nothing else', () => {
    expect(['client_credentials', 'jwt_bearer', 'enterprise_managed'].map((grant) => isMachineIdentity(config({ grant } as never)))).toEqual([true, true, true]);
    expect(isMachineIdentity(config({}))).toBe(false);
    expect(isMachineIdentity(undefined)).toBe(false);
  });

  it('makes the SDK provider each configuration needs, named "MCP Harness" and asking for the configured scopes', () => {
    const secret = createMachineIdentityProvider(config({ grant: 'client_credentials', clientSecret: 's', scopes: ['read', 'write'] }));
    expect(secret).toBeInstanceOf(ClientCredentialsProvider);
    expect(secret.clientMetadata).toMatchObject({ client_name: 'MCP Harness', scope: 'read write' });
    const noScopes = createMachineIdentityProvider(config({ grant: 'client_credentials', clientSecret: 's', scopes: [] }));
    expect(noScopes.clientMetadata.scope).toBeUndefined();
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' };
    expect(createMachineIdentityProvider(config({ grant: 'client_credentials', privateKey: JSON.stringify(jwk) }))).toBeInstanceOf(PrivateKeyJwtProvider);
    const enterprise = createMachineIdentityProvider(config({ grant: 'enterprise_managed', clientSecret: 's', idp: { issuer: ORIGIN, clientId: 'idp', idToken: 't' } }));
    expect(enterprise).toBeInstanceOf(CrossAppAccessProvider);
    expect(enterprise.clientMetadata.client_name).toBe('MCP Harness');
    const workload = createMachineIdentityProvider(config({ grant: 'jwt_bearer', assertion: ' token ', scopes: ['read'] }));
    expect(workload).toBeInstanceOf(McpJwtBearerProvider);
    expect(workload.clientMetadata).toEqual({ client_name: 'MCP Harness', redirect_uris: [], grant_types: [JWT_BEARER_GRANT], token_endpoint_auth_method: 'none', scope: 'read' });
  });

  it('names what is missing from a configuration', () => {
    const attempt = (oauth: Partial<McpOAuthClientConfig>) => {
      try {
        createMachineIdentityProvider(config(oauth));
        return 'made';
      } catch (err) {
        return `${(err as Error).name}: ${(err as Error).message}`;
      }
    };
    expect(attempt({ grant: 'jwt_bearer' })).toBe('McpMachineIdentityError: oauth.assertion is empty: the JWT bearer grant needs the workload\'s token');
    expect(attempt({ grant: 'client_credentials' })).toBe('McpMachineIdentityError: oauth.clientSecret is empty: the client credentials grant needs the secret (or a privateKey)');
    expect(attempt({ grant: 'enterprise_managed', clientSecret: 's' })).toBe('McpMachineIdentityError: oauth.idp.idToken is empty: enterprise-managed authorization needs the identity provider\'s ID token');
    expect(attempt({ grant: 'enterprise_managed', clientSecret: 's', idp: { issuer: ORIGIN, clientId: 'idp', idToken: '' } })).toMatch(/idp\.idToken is empty/);
    expect(attempt({ grant: 'enterprise_managed', idp: { issuer: ORIGIN, clientId: 'idp', idToken: 't' } })).toBe('McpMachineIdentityError: oauth.clientSecret is empty');
  });

  it('a workload identity has no browser step and no code, and asks for a scope only when it has one', () => {
    const provider = new McpJwtBearerProvider('job', 'jwt', undefined, undefined);
    expect(provider.redirectUrl).toBeUndefined();
    expect(provider.clientInformation()).toEqual({ client_id: 'job' });
    expect(() => provider.redirectToAuthorization()).toThrow('a workload identity has no browser step');
    expect(() => provider.codeVerifier()).toThrow('a workload identity has no authorization code');
    expect([...provider.prepareTokenRequest().keys()]).toEqual(['grant_type', 'assertion']);
    expect(provider.prepareTokenRequest('read').get('scope')).toBe('read');
    expect(new McpJwtBearerProvider('job', 'jwt', undefined, ORIGIN).clientInformation()).toEqual({ client_id: 'job', issuer: ORIGIN });
  });
});

describe('readPrivateKey', () => {
  it('reads a JWK with surrounding space, taking its own algorithm only when it is text', () => {
    expect(readPrivateKey('  {"kty":"EC","d":"x","alg":"ES256"}  ', undefined)).toEqual({ key: { kty: 'EC', d: 'x', alg: 'ES256' }, alg: 'ES256' });
    expect(readPrivateKey('{"kty":"EC","d":"x","alg":7}', undefined).alg).toBe('RS256');
    expect(readPrivateKey('{"kty":"EC","d":"x","alg":"ES256"}', 'PS256').alg).toBe('PS256');
  });

  it('refuses a JWK without its private part', () => {
    expect(() => readPrivateKey('{"kty":"EC","d":7}', undefined)).toThrow('oauth.privateKey is a JWK without its private part ("d")');
  });

  it('puts an empty PEM body back together without inventing lines', () => {
    expect(readPrivateKey('-----BEGIN PRIVATE KEY----------END PRIVATE KEY-----', undefined).key).toBe('-----BEGIN PRIVATE KEY-----\n\n-----END PRIVATE KEY-----\n');
  });
});

describe('enterprise-managed authorization end to end', () => {
  it('exchanges the trimmed ID token at the identity provider and connects with the grant it returns', async () => {
    const server = new MemoryOAuthServer();
    // The identity provider is a real loopback HTTP server: the SDK reaches it with the global fetch.
    const exchanges: URLSearchParams[] = [];
    const idpServer = createServer((req, res) => {
      if (req.method === 'GET') {
        const issuer = `http://127.0.0.1:${(idpServer.address() as AddressInfo).port}`;
        res.writeHead(req.url === '/.well-known/oauth-authorization-server' ? 200 : 404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] }));
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        exchanges.push(new URLSearchParams(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag', access_token: 'workload.jwt.token', token_type: 'N_A', expires_in: 300 }));
      });
    });
    await new Promise<void>((resolve) => idpServer.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => void idpServer.close());
    const { port } = idpServer.address() as AddressInfo;
    const idp = { issuer: `http://127.0.0.1:${port}`, clientId: 'idp-app', clientSecret: 'idp-secret', idToken: ' id.token ', tokenEndpoint: `http://127.0.0.1:${port}/token` };
    const { run } = await create(server, undefined, { preregistered: config({ grant: 'enterprise_managed', clientId: 'ci-job', clientSecret: 'app-secret', issuer: ORIGIN, idp }) });
    await run();
    expect(server.stats.jwtBearer).toBe(1);
    expect(exchanges).toHaveLength(1);
    expect(Object.fromEntries(exchanges[0]!)).toMatchObject({ subject_token: 'id.token', client_id: 'idp-app', client_secret: 'idp-secret', audience: ORIGIN, resource: MCP_URL });
    // Without a token endpoint it is discovered from the issuer; a public IdP client sends no secret.
    const discovered = await create(server, undefined, { preregistered: config({ grant: 'enterprise_managed', clientId: 'ci-job', clientSecret: 'app-secret', idp: { ...idp, clientSecret: undefined, tokenEndpoint: undefined } }) });
    await discovered.run();
    expect(exchanges).toHaveLength(2);
    expect(exchanges[1]!.get('subject_token')).toBe('id.token');
    expect(exchanges[1]!.has('client_secret')).toBe(false);
  });
});

describe('a machine identity with an issuer', () => {
  it('sends its client credentials to that authorization server only', async () => {
    const server = new MemoryOAuthServer();
    const oauth = config({ grant: 'client_credentials', clientId: 'machine', clientSecret: 'machine-secret', issuer: 'https://elsewhere.example' });
    const { run } = await create(server, undefined, { preregistered: oauth });
    await expect(run()).rejects.toThrow();
    expect(server.requests.filter((r) => r.includes('/token'))).toEqual([]);
    expect(server.stats.clientCredentials).toBe(0);
  });
});
