import type { JWTPayload, JWTVerifyGetKey } from 'jose' with { 'resolution-mode': 'import' };
import { createHash, timingSafeEqual } from 'node:crypto';
import { errorMessage } from '../base/errors';
import { fail, ok, type Result } from '../base/result';

/** How the gateway accepts OAuth access tokens (RFC 9728 protected resource). */
export interface ServeOAuthOptions {
  /** The authorization server's issuer: tokens must be signed by its keys (its JWKS) and name it as `iss`. */
  readonly issuer: string;
  /** Scopes every token must carry (default: none). */
  readonly scopes?: readonly string[];
  /** The JWKS, when it should not be discovered from the issuer's metadata. */
  readonly jwksUri?: string;
}

// jose is an ES module; the bundles (CommonJS) carry it, loaded on the first token.
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });
let josePromise: Promise<Jose> | undefined;
const loadJose = () => (josePromise ??= import('jose'));

/** Who a valid token says the caller is. */
export interface ServeCaller {
  /** `sub`, else `client_id` (a machine identity's token). */
  readonly subject: string;
  readonly clientId?: string;
  readonly scopes: readonly string[];
}

/** Why a token was refused, as RFC 6750 names it: `invalid_token` (401) or `insufficient_scope` (403). */
export interface ServeTokenRefusal {
  readonly error: 'invalid_token' | 'insufficient_scope';
  readonly description: string;
}

/**
 * Checks JWT access tokens for the gateway: signed by the issuer's keys, issued by it, for this
 * gateway's URL (`aud`), not expired, with the required scopes. The issuer's keys are discovered
 * once from its metadata (OAuth, else OpenID Connect) and refreshed by jose when a new `kid` shows.
 */
export class ServeOAuth {
  private _keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly _o: ServeOAuthOptions,
    private readonly _fetch: typeof fetch = fetch,
  ) {}

  get issuer(): string {
    return this._o.issuer;
  }

  /** Protected resource metadata (RFC 9728) for `resource`, the gateway's MCP URL. */
  metadata(resource: string): Record<string, unknown> {
    return {
      resource,
      authorization_servers: [this._o.issuer],
      bearer_methods_supported: ['header'],
      ...(this._o.scopes?.length ? { scopes_supported: [...this._o.scopes] } : {}),
      resource_name: 'MCP Harness gateway',
    };
  }

  /** Verifies `token` for `resource`; the caller it names, or why it was refused. */
  async verify(token: string, resource: string): Promise<Result<ServeCaller, ServeTokenRefusal>> {
    const jose = await loadJose();
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, await this._jwks(), { issuer: this._o.issuer, audience: resource, requiredClaims: ['exp'] }));
    } catch (err) {
      return fail({ error: 'invalid_token', description: describeJoseError(jose, err) });
    }
    const scopes = tokenScopes(payload);
    const missing = (this._o.scopes ?? []).filter((s) => !scopes.includes(s));
    if (missing.length > 0) return fail({ error: 'insufficient_scope', description: `the token lacks the scope ${missing.join(' ')}` });
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const subject = payload.sub ?? clientId;
    if (!subject) return fail({ error: 'invalid_token', description: 'the token names no subject (sub) and no client_id' });
    return ok({ subject, ...(clientId ? { clientId } : {}), scopes });
  }

  private _jwks(): Promise<JWTVerifyGetKey> {
    this._keys ??= this._discoverJwks().catch((err: unknown) => {
      // Try again on the next request: the issuer may only have been down.
      this._keys = undefined;
      throw err;
    });
    return this._keys;
  }

  private async _discoverJwks(): Promise<JWTVerifyGetKey> {
    const { createRemoteJWKSet } = await loadJose();
    if (this._o.jwksUri) return createRemoteJWKSet(new URL(this._o.jwksUri));
    const issuer = new URL(this._o.issuer);
    const suffix = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
    const candidates = [
      `${issuer.origin}/.well-known/oauth-authorization-server${suffix}`,
      `${issuer.origin}/.well-known/openid-configuration${suffix}`,
      `${this._o.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    ];
    for (const url of candidates) {
      const response = await this._fetch(url, { headers: { accept: 'application/json' } }).catch(() => undefined);
      if (!response?.ok) continue;
      const metadata = (await response.json().catch(() => undefined)) as { jwks_uri?: unknown } | undefined;
      if (typeof metadata?.jwks_uri === 'string') return createRemoteJWKSet(new URL(metadata.jwks_uri));
    }
    throw new Error(`could not find the keys (jwks_uri) of the issuer ${this._o.issuer} in its metadata`);
  }
}

function tokenScopes(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

function describeJoseError({ errors: joseErrors }: Jose, err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'the token is for another audience, not this gateway';
    if (err.claim === 'iss') return 'the token was issued by another authorization server';
    return `the token's "${err.claim}" claim is not valid`;
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) return "the token's signature does not verify with the issuer's keys";
  if (err instanceof joseErrors.JOSEError) return `the token is not a valid JWT (${err.code})`;
  return `the token could not be checked: ${errorMessage(err)}`;
}

/** The well-known paths of the gateway's protected resource metadata (with and without the resource's path). */
export const METADATA_PATHS = new Set([`/.well-known/oauth-protected-resource/mcp`, '/.well-known/oauth-protected-resource']);

/**
 * Checks a request's `Authorization`: the static token (no caller name), else an OAuth access
 * token (the caller its subject names). `undefined` as the error: no credentials worth a reason.
 */
export async function authenticate(
  header: string | undefined,
  tokenDigest: Buffer | undefined,
  oauth: ServeOAuth | undefined,
  resource: string,
): Promise<Result<string | undefined, ServeTokenRefusal | undefined>> {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return fail(undefined);
  if (tokenDigest && timingSafeEqual(createHash('sha256').update(match[1]).digest(), tokenDigest)) return ok(undefined);
  if (!oauth) return fail(undefined);
  const verified = await oauth.verify(match[1], resource);
  return verified.ok ? ok(verified.value.subject) : fail(verified.error);
}

/** Where the protected resource metadata of `resource` is (RFC 9728: the well-known path before the resource's path). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname === '/' ? '' : url.pathname}`;
}
