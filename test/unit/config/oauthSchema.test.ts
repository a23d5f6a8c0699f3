import { describe, expect, it } from 'vitest';
import { parseMcpConfigText } from '../../../src/core/config/parseMcpConfigText';

/** The errors of one http server entry with this `oauth`, as `jsonPath: message`, paths below `oauth`. */
function oauthErrors(oauth: unknown): string[] {
  const text = JSON.stringify({ mcpServers: { api: { type: 'http', url: 'https://mcp.example.com/mcp', oauth } } });
  const { errors } = parseMcpConfigText(text, '/ws/.mcp.json', 'claude', '/ws');
  return errors.map((e) => `${e.jsonPath!.replace('mcpServers.api.', '')}: ${e.message}`);
}

const MUST_BE_REFERENCE = 'must be "${input:ID}" or "${env:NAME}": a machine identity\'s secret is never written into settings';
const EXACTLY_ONE = 'oauth: client_credentials needs exactly one of "clientSecret" (client_secret_basic) and "privateKey" (a signed JWT, private_key_jwt)';
const idp = { issuer: 'https://idp.example', clientId: 'idp-app', idToken: '${input:id-token}' };

describe('the oauth field of a server entry', () => {
  it('accepts each grant in its complete form', () => {
    expect(oauthErrors({ clientId: 'app', clientSecret: 'written-here-is-fine', scopes: ['read'] })).toEqual([]);
    expect(oauthErrors({ grant: 'authorization_code', clientId: 'app' })).toEqual([]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:S}', issuer: 'https://auth.example', dpop: true })).toEqual([]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', privateKey: '${input:key}', signingAlgorithm: 'ES256' })).toEqual([]);
    expect(oauthErrors({ grant: 'jwt_bearer', clientId: 'ci', assertion: '${env:T}', issuer: 'https://auth.example', dpop: false })).toEqual([]);
    expect(oauthErrors({ grant: 'enterprise_managed', clientId: 'app', clientSecret: '${env:S}', idp: { ...idp, clientSecret: '${env:I}', tokenEndpoint: 'https://idp.example/token' } })).toEqual([]);
  });

  it('wants a machine identity to have exactly one secret, each a variable, and a signing algorithm only with a key', () => {
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc' })).toEqual([EXACTLY_ONE]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${env:A}', privateKey: '${env:B}' })).toEqual([EXACTLY_ONE]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', clientSecret: 'hunter2', signingAlgorithm: 'ES256' })).toEqual([
      `oauth.clientSecret: ${MUST_BE_REFERENCE}`,
      'oauth.signingAlgorithm: only used with "privateKey"',
    ]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', privateKey: '${env:KEY}x', assertion: '${env:T}' })).toEqual([
      'oauth.assertion: only used with "grant": "jwt_bearer"',
      `oauth.privateKey: ${MUST_BE_REFERENCE}`,
    ]);
    expect(oauthErrors({ grant: 'client_credentials', clientId: 'svc', clientSecret: '${config:x}' })).toEqual([`oauth.clientSecret: ${MUST_BE_REFERENCE}`]);
  });

  it('keeps the machine identity fields away from the interactive grant', () => {
    expect(oauthErrors({ clientId: 'app', dpop: true, privateKey: '${env:K}', signingAlgorithm: 'ES256', issuer: 'https://auth.example', assertion: '${env:T}', idp })).toEqual([
      'oauth.idp: only used with "grant": "enterprise_managed"',
      'oauth.dpop: only used with "grant": "client_credentials" or "jwt_bearer"',
      'oauth.privateKey: only used with "grant": "client_credentials"',
      'oauth.signingAlgorithm: only used with "grant": "client_credentials"',
      'oauth.issuer: only used with "grant": "client_credentials"',
      'oauth.assertion: only used with "grant": "jwt_bearer"',
    ]);
  });

  it('wants a workload identity to have its assertion as a variable, and no client secret or key', () => {
    expect(oauthErrors({ grant: 'jwt_bearer', clientId: 'ci' })).toEqual(['oauth: jwt_bearer needs "assertion": the workload\'s JWT, as "${env:NAME}" or "${input:ID}"']);
    expect(oauthErrors({ grant: 'jwt_bearer', clientId: 'ci', assertion: 'eyJ.x.y', clientSecret: '${env:S}', privateKey: '${env:K}', signingAlgorithm: 'ES256' })).toEqual([
      `oauth.assertion: ${MUST_BE_REFERENCE}`,
      'oauth.clientSecret: only used with "grant": "client_credentials"',
      'oauth.privateKey: only used with "grant": "client_credentials"',
      'oauth.signingAlgorithm: only used with "grant": "client_credentials"',
    ]);
  });

  it('wants enterprise-managed authorization to have a client secret and an identity provider, their secrets as variables', () => {
    expect(oauthErrors({ grant: 'enterprise_managed', clientId: 'app' })).toEqual([
      'oauth: enterprise_managed needs "clientSecret" (the client at the MCP server\'s authorization server)',
      'oauth: enterprise_managed needs "idp": {"issuer", "clientId", "idToken"}',
    ]);
    const written = 'must be "${input:ID}" or "${env:NAME}": it is never written into settings';
    expect(oauthErrors({ grant: 'enterprise_managed', clientId: 'app', clientSecret: 'plain', idp: { ...idp, idToken: 'eyJ.x.y', clientSecret: 'plain-idp' }, privateKey: '${env:K}', signingAlgorithm: 'ES256', assertion: '${env:T}' })).toEqual([
      `oauth.clientSecret: ${MUST_BE_REFERENCE}`,
      `oauth.idp.idToken: ${written}`,
      `oauth.idp.clientSecret: ${written}`,
      'oauth.privateKey: only used with "grant": "client_credentials or jwt_bearer"',
      'oauth.signingAlgorithm: only used with "grant": "client_credentials or jwt_bearer"',
      'oauth.assertion: only used with "grant": "client_credentials or jwt_bearer"',
    ]);
  });

  it('reports the shape of the field itself: empty names, unknown grants, a value that is no object', () => {
    expect(oauthErrors({ clientId: '' })).toEqual(['oauth.clientId: must not be empty']);
    expect(oauthErrors({ clientId: 'app', grant: 'password' })).toEqual([
      'oauth.grant: expected "authorization_code", "client_credentials", "jwt_bearer" or "enterprise_managed", got "password"',
    ]);
    expect(oauthErrors({ clientId: 'app', signingAlgorithm: '', issuer: '' })).toEqual([
      'oauth.signingAlgorithm: must not be empty',
      'oauth.issuer: must not be empty',
      'oauth.signingAlgorithm: only used with "grant": "client_credentials"',
      'oauth.issuer: only used with "grant": "client_credentials"',
    ]);
    expect(oauthErrors({ grant: 'enterprise_managed', clientId: 'app', clientSecret: '${env:S}', idp: { issuer: '', clientId: '', idToken: '${env:T}', tokenEndpoint: '' } })).toEqual([
      'oauth.idp.issuer: must not be empty',
      'oauth.idp.tokenEndpoint: must not be empty',
      'oauth.idp.clientId: must not be empty',
    ]);
    expect(oauthErrors(5)).toEqual(['oauth: expected object, got number']);
  });
});
