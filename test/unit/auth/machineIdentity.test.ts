import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseMcpConfigText, resolveServerLaunch } from '../../../src/core/config';
import { createMachineIdentityProvider, JWT_BEARER_GRANT, McpJwtBearerProvider, McpMachineIdentityError, readPrivateKey } from '../../../src/core/auth/machineIdentity';

function parse(oauth: unknown) {
  const text = JSON.stringify({ mcpServers: { api: { type: 'http', url: 'https://mcp.example.com/mcp', oauth } } });
  return parseMcpConfigText(text, '/ws/.mcp.json', 'claude', '/ws');
}

describe('oauth with grant "client_credentials"', () => {
  it('accepts enterprise-managed authorization with the ID token as a variable', () => {
    const parsed = parse({ grant: 'enterprise_managed', clientId: 'app', clientSecret: '${env:S}', idp: { issuer: 'https://idp.example.com', clientId: 'idp-app', idToken: '${input:id-token}' } });
    expect(parsed.errors).toEqual([]);
  });

  it('accepts a secret or a key given as a variable', () => {
    const secret = parse({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:SVC_SECRET}', scopes: ['read'], issuer: 'https://auth.example.com' });
    expect(secret.errors).toEqual([]);
    expect(secret.servers[0]!.oauth).toEqual({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:SVC_SECRET}', scopes: ['read'], issuer: 'https://auth.example.com' });
    const key = parse({ grant: 'client_credentials', clientId: 'svc', privateKey: '${input:svc-key}', signingAlgorithm: 'ES256' });
    expect(key.errors).toEqual([]);
  });

  it.each([
    [{ grant: 'client_credentials', clientId: 'svc' }, 'mcpServers.api.oauth: client_credentials needs exactly one of "clientSecret" (client_secret_basic) and "privateKey"'],
    [{ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:A}', privateKey: '${env:B}' }, 'mcpServers.api.oauth: client_credentials needs exactly one of'],
    [{ grant: 'client_credentials', clientId: 'svc', clientSecret: 'hunter2' }, 'mcpServers.api.oauth.clientSecret: must be "${input:ID}" or "${env:NAME}": a machine identity\'s secret is never written into settings'],
    [{ grant: 'client_credentials', clientId: 'svc', privateKey: 'prefix-${env:KEY}' }, 'mcpServers.api.oauth.privateKey: must be "${input:ID}" or "${env:NAME}"'],
    [{ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:A}', signingAlgorithm: 'ES256' }, 'mcpServers.api.oauth.signingAlgorithm: only used with "privateKey"'],
    [{ clientId: 'app', privateKey: '${env:KEY}' }, 'mcpServers.api.oauth.privateKey: only used with "grant": "client_credentials"'],
    [{ grant: 'password', clientId: 'svc' }, 'mcpServers.api.oauth.grant: expected "authorization_code", "client_credentials", "jwt_bearer" or "enterprise_managed", got "password"'],
    [{ grant: 'jwt_bearer', clientId: 'ci' }, 'mcpServers.api.oauth: jwt_bearer needs "assertion"'],
    [{ grant: 'enterprise_managed', clientId: 'app', clientSecret: '${env:S}' }, 'mcpServers.api.oauth: enterprise_managed needs "idp"'],
    [{ grant: 'enterprise_managed', clientId: 'app', clientSecret: '${env:S}', idp: { issuer: 'https://idp', clientId: 'c', idToken: 'eyJ.x.y' } }, 'mcpServers.api.oauth.idp.idToken: must be "${input:ID}" or "${env:NAME}"'],
    [{ clientId: 'app', idp: { issuer: 'https://idp', clientId: 'c', idToken: '${env:T}' } }, 'mcpServers.api.oauth.idp: only used with "grant": "enterprise_managed"'],
    [{ clientId: 'app', dpop: true }, 'mcpServers.api.oauth.dpop: only used with "grant": "client_credentials" or "jwt_bearer"'],
    [{ grant: 'jwt_bearer', clientId: 'ci', assertion: 'eyJhbGciOi.x.y' }, 'mcpServers.api.oauth.assertion: must be "${input:ID}" or "${env:NAME}"'],
    [{ grant: 'jwt_bearer', clientId: 'ci', assertion: '${env:T}', clientSecret: '${env:S}' }, 'mcpServers.api.oauth.clientSecret: only used with "grant": "client_credentials"'],
    [{ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:A}', assertion: '${env:T}' }, 'mcpServers.api.oauth.assertion: only used with "grant": "jwt_bearer"'],
  ])('refuses %j', (oauth, message) => {
    const { errors, servers } = parse(oauth);
    expect(errors.map((e) => `${e.jsonPath}: ${e.message}`).join('\n')).toContain(message);
    // The server is listed in error, never started with half a configuration.
    expect(servers[0]!.problem).toBeDefined();
  });

  it('resolves the secret from the environment at start and masks it', async () => {
    const def = parse({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:SVC_SECRET}' }).servers[0]!;
    const resolved = await resolveServerLaunch(def, { env: { SVC_SECRET: 's3cret-value' }, userHome: '/home/me' });
    expect(resolved.ok && resolved.value.oauth?.clientSecret).toBe('s3cret-value');
    expect(resolved.ok && resolved.value.secretValues).toContain('s3cret-value');
    const unset = await resolveServerLaunch(def, { env: {}, userHome: '/home/me' });
    expect(unset).toEqual({ ok: false, error: expect.stringContaining('SVC_SECRET') });
  });
});

describe('readPrivateKey', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('takes a PEM as it is, and one pasted on a single line', () => {
    expect(readPrivateKey(pem, 'ES256')).toEqual({ key: pem, alg: 'ES256' });
    expect(readPrivateKey(pem.replace(/\n/g, ' '), 'ES256')).toEqual({ key: pem, alg: 'ES256' });
    expect(readPrivateKey(pem, undefined).alg).toBe('RS256');
  });

  it('takes a JWK, its own alg by default', () => {
    const jwk = { ...privateKey.export({ format: 'jwk' }), alg: 'ES256' };
    expect(readPrivateKey(JSON.stringify(jwk), undefined)).toEqual({ key: jwk, alg: 'ES256' });
  });

  it.each([
    ['not a key', 'neither a PEM private key'],
    ['{"kty": "EC"', 'is not valid JSON'],
    ['{"kty": "EC", "x": "a", "y": "b"}', 'without its private part'],
    ['-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----', 'convert it to PKCS#8'],
  ])('refuses %j', (text, message) => {
    expect(() => readPrivateKey(text, undefined)).toThrow(McpMachineIdentityError);
    expect(() => readPrivateKey(text, undefined)).toThrow(message);
  });
});

describe('oauth with grant "jwt_bearer" (workload identity federation)', () => {
  it('accepts the workload token as a variable and resolves it at start, masked', async () => {
    const parsed = parse({ grant: 'jwt_bearer', clientId: 'ci', assertion: '${env:CI_OIDC_TOKEN}', issuer: 'https://login.example.com' });
    expect(parsed.errors).toEqual([]);
    const resolved = await resolveServerLaunch(parsed.servers[0]!, { env: { CI_OIDC_TOKEN: 'header.payload.signature' }, userHome: '/home/me' });
    expect(resolved.ok && resolved.value.oauth?.assertion).toBe('header.payload.signature');
    expect(resolved.ok && resolved.value.secretValues).toContain('header.payload.signature');
  });

  it('asks for a token with the JWT bearer grant and the workload token as the assertion', () => {
    const provider = createMachineIdentityProvider({ grant: 'jwt_bearer', clientId: 'ci', assertion: ' header.payload.signature\n', scopes: ['tools:read'], issuer: 'https://login.example.com' });
    expect(provider).toBeInstanceOf(McpJwtBearerProvider);
    const params = provider.prepareTokenRequest!('tools:read') as URLSearchParams;
    expect(Object.fromEntries(params)).toEqual({ grant_type: JWT_BEARER_GRANT, assertion: 'header.payload.signature', scope: 'tools:read' });
    expect(provider.clientInformation()).toEqual({ client_id: 'ci', issuer: 'https://login.example.com' });
    expect(provider.redirectUrl).toBeUndefined();
    expect(() => provider.redirectToAuthorization(new URL('https://x'))).toThrow(McpMachineIdentityError);
    expect(provider.dpop).toBeUndefined();
  });

  it('with "dpop" keeps one DPoP session (one key) for the connection', async () => {
    const provider = createMachineIdentityProvider({ grant: 'jwt_bearer', clientId: 'ci', assertion: 'a.b.c', dpop: true });
    const first = await provider.dpop!();
    expect(first?.thumbprint).toMatch(/^[\w-]{43}$/);
    expect(await provider.dpop!()).toBe(first);
  });
});
