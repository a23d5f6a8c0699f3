import {
  ClientCredentialsProvider,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  requestJwtAuthorizationGrant,
  DpopSession,
  PrivateKeyJwtProvider,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthClientConfig } from '../config/types';

/** The algorithm a client assertion is signed with when neither the entry nor the JWK names one. */
export const DEFAULT_SIGNING_ALGORITHM = 'RS256';

/** A machine identity's key or secret could not be used (a key that does not parse, a missing secret). */
export class McpMachineIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpMachineIdentityError';
  }
}

/** The grant type of workload identity federation (RFC 7523 §2.1). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Whether `oauth` is a machine identity (client credentials, or a workload's JWT): no person and no browser. */
export function isMachineIdentity(oauth: McpOAuthClientConfig | undefined): oauth is McpOAuthClientConfig & { grant: 'client_credentials' | 'jwt_bearer' | 'enterprise_managed' } {
  return oauth?.grant === 'client_credentials' || oauth?.grant === 'jwt_bearer' || oauth?.grant === 'enterprise_managed';
}

/**
 * The provider for a machine identity. A workload's JWT gets {@link McpJwtBearerProvider}; for
 * client credentials it is the SDK's own: `ClientCredentialsProvider` (client_secret_basic)
 * for a `clientSecret`, `PrivateKeyJwtProvider` (private_key_jwt, RFC 7523: a JWT signed with the
 * key, its audience the authorization server's issuer) for a `privateKey`. Tokens live in the
 * provider only, for as long as the connection: a new connection asks for a new token, so none is
 * ever written anywhere. With `issuer`, the credentials are sent to that authorization server only.
 */
export function createMachineIdentityProvider(oauth: McpOAuthClientConfig): OAuthClientProvider {
  const provider = createProvider(oauth);
  return oauth.dpop ? withDpop(provider) : provider;
}

/**
 * `provider` asking for DPoP-bound tokens (RFC 9449, SEP-1932): the SDK then signs a proof into
 * every token request and presents the token with the `DPoP` scheme and a fresh proof on every MCP
 * request, answering nonce challenges from either server. The key pair is made for this
 * connection and never leaves memory (non-extractable), like the tokens it binds.
 */
function withDpop(provider: OAuthClientProvider): OAuthClientProvider {
  const session = DpopSession.create();
  provider.dpop = () => session;
  return provider;
}

function createProvider(oauth: McpOAuthClientConfig): OAuthClientProvider {
  const scope = oauth.scopes && oauth.scopes.length > 0 ? oauth.scopes.join(' ') : undefined;
  if (oauth.grant === 'enterprise_managed') return enterpriseManaged(oauth);
  if (oauth.grant === 'jwt_bearer') {
    if (!oauth.assertion) throw new McpMachineIdentityError('oauth.assertion is empty: the JWT bearer grant needs the workload\'s token');
    return new McpJwtBearerProvider(oauth.clientId, oauth.assertion.trim(), scope, oauth.issuer);
  }
  const common = { clientId: oauth.clientId, clientName: 'MCP Harness', scope, ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}) };
  if (oauth.privateKey !== undefined) {
    const { key, alg } = readPrivateKey(oauth.privateKey, oauth.signingAlgorithm);
    return new PrivateKeyJwtProvider({ ...common, privateKey: key, algorithm: alg });
  }
  if (!oauth.clientSecret) throw new McpMachineIdentityError('oauth.clientSecret is empty: the client credentials grant needs the secret (or a privateKey)');
  return new ClientCredentialsProvider({ ...common, clientSecret: oauth.clientSecret });
}

/**
 * Enterprise-managed authorization (the SDK's `CrossAppAccessProvider`): the ID token the
 * organisation's identity provider issued is exchanged there for an ID-JAG (RFC 8693 token
 * exchange), which the MCP server's authorization server takes as a JWT bearer grant, with no
 * browser step. The ID token comes from `${input:...}` or `${env:...}` like any secret.
 */
function enterpriseManaged(oauth: McpOAuthClientConfig): OAuthClientProvider {
  const idp = oauth.idp;
  if (!idp?.idToken) throw new McpMachineIdentityError('oauth.idp.idToken is empty: enterprise-managed authorization needs the identity provider\'s ID token');
  if (!oauth.clientSecret) throw new McpMachineIdentityError('oauth.clientSecret is empty');
  return new CrossAppAccessProvider({
    clientId: oauth.clientId,
    clientSecret: oauth.clientSecret,
    clientName: 'MCP Harness',
    ...(oauth.issuer ? { expectedIssuer: oauth.issuer } : {}),
    assertion: async (ctx) => {
      const request = {
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken: idp.idToken.trim(),
        clientId: idp.clientId,
        ...(idp.clientSecret ? { clientSecret: idp.clientSecret } : {}),
        scope: ctx.scope,
        fetchFn: ctx.fetchFn,
      };
      const grant = idp.tokenEndpoint
        ? await requestJwtAuthorizationGrant({ ...request, tokenEndpoint: idp.tokenEndpoint })
        : await discoverAndRequestJwtAuthGrant({ ...request, idpUrl: idp.issuer });
      return grant.jwtAuthGrant;
    },
  });
}

/**
 * A private key as the SDK signs with it: a JWK (JSON) as an object, a PEM as text. A PEM pasted
 * into a one-line prompt arrives with its line breaks turned into spaces; it is put back together.
 */
export function readPrivateKey(text: string, algorithm: string | undefined): { key: string | Record<string, unknown>; alg: string } {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      throw new McpMachineIdentityError('oauth.privateKey looks like a JWK but is not valid JSON');
    }
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk) || typeof (jwk as { d?: unknown }).d !== 'string') {
      throw new McpMachineIdentityError('oauth.privateKey is a JWK without its private part ("d")');
    }
    const own = (jwk as { alg?: unknown }).alg;
    return { key: jwk as Record<string, unknown>, alg: algorithm ?? (typeof own === 'string' ? own : DEFAULT_SIGNING_ALGORITHM) };
  }
  const pem = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END \1-----/.exec(trimmed);
  if (!pem) throw new McpMachineIdentityError('oauth.privateKey is neither a PEM private key ("-----BEGIN PRIVATE KEY-----") nor a JWK');
  if (pem[1] !== 'PRIVATE KEY') throw new McpMachineIdentityError(`oauth.privateKey is a "${pem[1]}"; convert it to PKCS#8 ("BEGIN PRIVATE KEY"), e.g. with \`openssl pkcs8 -topk8 -nocrypt\``);
  const body = pem[2]!.replace(/\s+/g, '');
  const lines = body.match(/.{1,64}/g) ?? [];
  return { key: `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`, alg: algorithm ?? DEFAULT_SIGNING_ALGORITHM };
}

/**
 * Workload identity federation (SEP-1933): the workload's own JWT (a CI job's OIDC token, a
 * Kubernetes service account token) is the authorization grant (RFC 7523 §2.1), sent as
 * `assertion` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`. The SDK has no
 * provider for it, so this is one in the shape of its client credentials providers: the SDK's
 * `auth()` asks it for the token request and keeps the tokens here, in memory. A refusal is final:
 * nothing else is tried.
 */
export class McpJwtBearerProvider implements OAuthClientProvider {
  private _tokens: StoredOAuthTokens | undefined;
  private readonly _client: StoredOAuthClientInformation;
  private readonly _metadata: OAuthClientMetadata;

  constructor(
    clientId: string,
    private readonly _assertion: string,
    scope: string | undefined,
    issuer: string | undefined,
  ) {
    this._client = { client_id: clientId, ...(issuer ? { issuer } : {}) };
    this._metadata = { client_name: 'MCP Harness', redirect_uris: [], grant_types: [JWT_BEARER_GRANT], token_endpoint_auth_method: 'none', ...(scope ? { scope } : {}) };
  }

  get redirectUrl(): undefined {
    return undefined;
  }
  get clientMetadata(): OAuthClientMetadata {
    return this._metadata;
  }
  clientInformation(): StoredOAuthClientInformation {
    return this._client;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this._tokens;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this._tokens = tokens;
  }
  redirectToAuthorization(): void {
    throw new McpMachineIdentityError('a workload identity has no browser step');
  }
  saveCodeVerifier(): void {}
  codeVerifier(): string {
    throw new McpMachineIdentityError('a workload identity has no authorization code');
  }
  prepareTokenRequest(scope?: string): URLSearchParams {
    const params = new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: this._assertion });
    if (scope) params.set('scope', scope);
    return params;
  }
}
