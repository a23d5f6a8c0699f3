// Over 300 lines because it implements the SDK's whole OAuthClientProvider contract in one place
// (client information, tokens, PKCE verifiers, discovery state, the browser step and its state
// check), each keyed by issuer; splitting it would spread one credential store over several files.
import { createHash, randomBytes } from 'node:crypto';
import type {
  DpopSession,
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthClientConfig } from '../config/types';
import { assertAllowedAuthUrl } from './McpAuthFetchGuard';
import { dpopSession } from './McpDpopKeys';
import { McpAuthRequiredError, McpScopeRequiredError, type IMcpSecretStore } from './types';

/** What is kept per MCP server: registrations and tokens per authorization server (issuer). */
interface McpStoredAuth {
  /** Issuer of the most recent tokens, for the per-request token read that carries no issuer. */
  lastIssuer?: string;
  /** Set at the first sign-in and kept until sign-out, so losing the tokens reads "sign in again". */
  signedIn?: boolean;
  /**
   * Scopes a server demanded (step-up) while no browser could be opened; the next authorization
   * asks for them along with what was granted, and a sign-in then starts a new authorization.
   */
  wantedScope?: string;
  clients: Record<string, StoredOAuthClientInformation>;
  /** Each with `scope` as granted: from the token response, else what was asked for. */
  tokens: Record<string, StoredOAuthTokens>;
}

const NO_ISSUER = '';
/** Used when no redirect can be received (refreshing only); never sent to a browser. */
const UNUSED_REDIRECT = 'http://127.0.0.1/callback';

export interface McpOAuthProviderOptions {
  /** The MCP server's URL; credentials are kept under it. */
  readonly serverUrl: string;
  readonly secrets: IMcpSecretStore;
  /** A pre-registered client from the server entry; no dynamic registration then. */
  readonly preregistered?: McpOAuthClientConfig;
  readonly clientMetadataUrl?: string;
  /** Where the redirect comes back; absent when only stored tokens may be used or refreshed. */
  readonly redirectUrl?: string;
  /**
   * Start a new authorization instead of using the stored tokens (a sign-in asked for after the
   * server demanded more access): the stored tokens are not offered until new ones are saved.
   */
  readonly reauthorize?: boolean;
}

/** Read-modify-writes per secret store and key, shared by every provider, so none is lost. */
const writeQueues = new WeakMap<IMcpSecretStore, Map<string, Promise<void>>>();

/** One authorization request as the browser gets it, with what its redirect is checked and redeemed with. */
interface McpAuthorizationRequest {
  readonly url: URL;
  readonly state: string | undefined;
  readonly verifier: string | undefined;
  readonly scope: string | undefined;
}

/** The key under which a server's OAuth credentials are stored. */
export function oauthSecretKey(serverUrl: string): string {
  return `mcp-harness.oauth/${serverUrl}`;
}

/** `tokens`: usable or refreshable tokens are stored; `lost`: signed in before, tokens gone; else `none`. */
export async function readSignInState(secrets: IMcpSecretStore, serverUrl: string): Promise<'none' | 'tokens' | 'lost'> {
  const raw = await secrets.get(oauthSecretKey(serverUrl));
  if (raw === undefined) return 'none';
  const stored = parseStored(raw);
  if (Object.keys(stored.tokens).length > 0) return 'tokens';
  return stored.signedIn ? 'lost' : 'none';
}

/** Scopes a server demanded that the stored tokens were not granted (empty when none are missing). */
export async function readMissingScopes(secrets: IMcpSecretStore, serverUrl: string): Promise<string[]> {
  const raw = await secrets.get(oauthSecretKey(serverUrl));
  if (raw === undefined) return [];
  const stored = parseStored(raw);
  return missingScopes(stored.wantedScope, grantedScope(stored));
}

/**
 * The SDK's OAuth client provider for one MCP server: the SDK runs discovery, registration, PKCE,
 * refresh and step-up; this keeps state and credentials, keyed by issuer so a client registered
 * with one authorization server is never offered to another. Without a redirect URL it is
 * refresh-only: a flow that needs the browser ends in {@link McpAuthRequiredError}.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  saveClientInformation?: (info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) => Promise<void>;

  /** PKCE verifiers by their S256 challenge: flows started together each find their own. */
  private readonly _verifiers = new Map<string, string>();
  private _discovery: OAuthDiscoveryState | undefined;
  /** The newest authorization the SDK asked the browser for. */
  private _pending: McpAuthorizationRequest | undefined;
  /** The one the browser was sent to, fixed until its code is redeemed, whatever starts meanwhile. */
  private _sent: McpAuthorizationRequest | undefined;
  /** The `scope` of the request whose code is being redeemed, recorded with its tokens if the answer has none. */
  private _exchangeScope: string | undefined;
  private _reauthorize: boolean;
  private readonly _key: string;

  constructor(private readonly _o: McpOAuthProviderOptions) {
    this._key = oauthSecretKey(_o.serverUrl);
    this._reauthorize = _o.reauthorize === true;
    this.clientMetadataUrl = _o.preregistered ? undefined : _o.clientMetadataUrl;
    if (!_o.preregistered) {
      this.saveClientInformation = (info, ctx) => this._change((s) => void (s.clients[issuerOf(ctx, info)] = info));
    }
  }

  /** Whether this provider may send the user to the browser. */
  get interactive(): boolean {
    return this._o.redirectUrl !== undefined;
  }

  get redirectUrl(): string {
    return this._o.redirectUrl ?? UNUSED_REDIRECT;
  }

  /**
   * DPoP (RFC 9449, SEP-1932) where the authorization server offers it (its metadata lists
   * `dpop_signing_alg_values_supported`) or the stored tokens are DPoP-bound: the SDK then proves
   * every token request and MCP request with the server's key pair (see `McpDpopKeys`).
   */
  async dpop(): Promise<DpopSession | undefined> {
    const advertised = (this._discovery?.authorizationServerMetadata as { dpop_signing_alg_values_supported?: unknown } | undefined)?.dpop_signing_alg_values_supported;
    const offered = Array.isArray(advertised) && advertised.length > 0;
    if (!offered) {
      const stored = await this._read();
      if (stored.tokens[stored.lastIssuer ?? NO_ISSUER]?.token_type?.toLowerCase() !== 'dpop') return undefined;
    }
    return dpopSession(this._o.secrets, this._o.serverUrl);
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this._o.preregistered?.scopes?.join(' ');
    return {
      client_name: 'MCP Harness',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(scope ? { scope } : {}),
    };
  }

  /** Set when the flow needs the browser; the caller opens it after asking (see {@link takePendingAuthorization}). */
  get pendingAuthorization(): URL | undefined {
    return this._pending?.url;
  }

  /**
   * Takes the authorization to open in the browser. Its `state`, verifier and scope stay the ones
   * the redirect is checked and redeemed with until {@link endAuthorization}, even when another
   * refused request starts a flow meanwhile.
   */
  takePendingAuthorization(): URL | undefined {
    this._sent = this._pending;
    this._pending = undefined;
    return this._sent?.url;
  }

  /** The browser step is over (redeemed, refused or abandoned). */
  endAuthorization(): void {
    this._sent = undefined;
    // Flows other refused requests started meanwhile are answered by this one.
    this._pending = undefined;
  }

  /** The `state` sent with the authorization request, to compare with the redirect's. */
  get expectedState(): string | undefined {
    return this._sent?.state;
  }

  state(): string {
    return randomBytes(16).toString('base64url');
  }

  async clientInformation(ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const pre = this._o.preregistered;
    if (pre) return { client_id: pre.clientId, ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}) };
    const stored = await this._read();
    const client = stored.clients[ctx?.issuer ?? stored.lastIssuer ?? NO_ISSUER];
    // A registration for another redirect URL (a loopback port from an earlier sign-in) is renewed.
    if (client && this.interactive && 'redirect_uris' in client && Array.isArray(client.redirect_uris) && !client.redirect_uris.includes(this.redirectUrl)) {
      return undefined;
    }
    return client;
  }

  async tokens(ctx?: OAuthClientInformationContext): Promise<StoredOAuthTokens | undefined> {
    if (this._reauthorize) return undefined;
    const stored = await this._read();
    return stored.tokens[ctx?.issuer ?? stored.lastIssuer ?? NO_ISSUER];
  }

  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    // Discovery is kept only for the flow that just ended: a later refusal discovers again, so a
    // server that moved to another authorization server is followed there (and registered with).
    this._discovery = undefined;
    const asked = this._exchangeScope;
    this._exchangeScope = undefined;
    this._reauthorize = false;
    return this._change((s) => {
      const issuer = issuerOf(ctx, tokens);
      // An answer without `scope` granted what was asked (RFC 6749 §5.1); a refresh keeps the grant (§6).
      const scope = tokens.scope || asked || s.tokens[issuer]?.scope;
      s.tokens[issuer] = scope ? { ...tokens, scope } : tokens;
      s.lastIssuer = issuer;
      s.signedIn = true;
      if (missingScopes(s.wantedScope, scope).length === 0) s.wantedScope = undefined;
    });
  }

  /**
   * Asks for the union of what was granted, what a server demanded earlier and what the SDK asks
   * for now, so a step-up never trades the access already given for the new one. Without a
   * browser, the demand is remembered for the next sign-in.
   */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    // The URL comes from the authorization server's metadata: `file:` or `javascript:` never reach a browser.
    assertAllowedAuthUrl(authorizationUrl, 'authorization endpoint', this._o.serverUrl);
    const stored = await this._read();
    const scope = unionScopes(grantedScope(stored), stored.wantedScope, authorizationUrl.searchParams.get('scope') ?? undefined);
    if (scope) authorizationUrl.searchParams.set('scope', scope);
    if (!this.interactive) {
      const missing = missingScopes(scope, grantedScope(stored));
      if (missing.length === 0 || Object.keys(stored.tokens).length === 0) throw new McpAuthRequiredError('sign-in required');
      await this._change((s) => void (s.wantedScope = unionScopes(s.wantedScope, missing.join(' '))));
      throw new McpScopeRequiredError(missing);
    }
    const challenge = authorizationUrl.searchParams.get('code_challenge');
    this._pending = {
      url: authorizationUrl,
      state: authorizationUrl.searchParams.get('state') ?? undefined,
      verifier: challenge === null ? undefined : this._verifiers.get(challenge),
      scope,
    };
    if (challenge !== null) this._verifiers.delete(challenge);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this._verifiers.set(createHash('sha256').update(codeVerifier).digest('base64url'), codeVerifier);
  }

  codeVerifier(): string {
    const verifier = this._sent?.verifier;
    if (verifier === undefined) throw new McpAuthRequiredError('sign-in required: no authorization is under way');
    this._exchangeScope = this._sent?.scope;
    return verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this._discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this._discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this._verifiers.clear();
    if (scope === 'discovery' || scope === 'all') this._discovery = undefined;
    if (scope === 'all') return this._change((s) => ((s.tokens = {}), (s.clients = {}), (s.lastIssuer = undefined)));
    if (scope === 'tokens') return this._change((s) => ((s.tokens = {}), (s.lastIssuer = undefined)));
    if (scope === 'client') return this._change((s) => void (s.clients = {}));
  }

  private async _read(): Promise<McpStoredAuth> {
    await this._queue().get(this._key);
    const raw = await this._o.secrets.get(this._key);
    return raw === undefined ? emptyStored() : parseStored(raw);
  }

  /** Read-modify-write, one at a time per key, so two saves in a row do not lose either. */
  private _change(edit: (stored: McpStoredAuth) => void): Promise<void> {
    const queue = this._queue();
    const next = (queue.get(this._key) ?? Promise.resolve()).then(async () => {
      const raw = await this._o.secrets.get(this._key);
      const stored = raw === undefined ? emptyStored() : parseStored(raw);
      edit(stored);
      await this._o.secrets.set(this._key, JSON.stringify(stored));
    });
    const settled = next.catch(() => undefined);
    queue.set(this._key, settled);
    void settled.then(() => queue.get(this._key) === settled && queue.delete(this._key));
    return next;
  }

  private _queue(): Map<string, Promise<void>> {
    let queue = writeQueues.get(this._o.secrets);
    if (!queue) writeQueues.set(this._o.secrets, (queue = new Map()));
    return queue;
  }
}

/** The scopes granted with the most recent tokens. */
function grantedScope(stored: McpStoredAuth): string | undefined {
  return stored.tokens[stored.lastIssuer ?? NO_ISSUER]?.scope;
}

/** Space-separated scopes, each once, in first-seen order. */
function unionScopes(...scopes: Array<string | undefined>): string | undefined {
  const all = new Set(scopes.flatMap((s) => s?.split(/\s+/).filter(Boolean) ?? []));
  return all.size > 0 ? [...all].join(' ') : undefined;
}

function missingScopes(wanted: string | undefined, granted: string | undefined): string[] {
  const have = new Set(granted?.split(/\s+/) ?? []);
  return (wanted?.split(/\s+/) ?? []).filter((s) => s && !have.has(s));
}

function issuerOf(ctx: OAuthClientInformationContext | undefined, value: { issuer?: string }): string {
  return ctx?.issuer ?? value.issuer ?? NO_ISSUER;
}

function emptyStored(): McpStoredAuth {
  return { clients: {}, tokens: {} };
}

function parseStored(raw: string): McpStoredAuth {
  try {
    const value = JSON.parse(raw) as Partial<McpStoredAuth>;
    return { lastIssuer: value.lastIssuer, signedIn: value.signedIn, wantedScope: value.wantedScope, clients: value.clients ?? {}, tokens: value.tokens ?? {} };
  } catch {
    return emptyStored(); // unreadable: as if never signed in
  }
}
