import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthClientConfig } from '../config/types';
import { McpAuthRequiredError, type IMcpSecretStore } from './types';

/** What is kept per MCP server: registrations and tokens per authorization server (issuer). */
interface McpStoredAuth {
  /** Issuer of the most recent tokens, for the per-request token read that carries no issuer. */
  lastIssuer?: string;
  /** Set at the first sign-in and kept until sign-out, so losing the tokens reads "sign in again". */
  signedIn?: boolean;
  clients: Record<string, StoredOAuthClientInformation>;
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

/**
 * The SDK's OAuth client provider for one MCP server: the SDK runs discovery, registration, PKCE,
 * refresh and step-up; this keeps state and credentials, keyed by issuer so a client registered
 * with one authorization server is never offered to another. Without a redirect URL it is
 * refresh-only: a flow that needs the browser ends in {@link McpAuthRequiredError}.
 */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  /** Set by the SDK when the flow needs the browser; the caller opens it after asking. */
  pendingAuthorization: URL | undefined;
  saveClientInformation?: (info: StoredOAuthClientInformation, ctx?: OAuthClientInformationContext) => Promise<void>;

  private _verifier: string | undefined;
  private _state: string | undefined;
  private _discovery: OAuthDiscoveryState | undefined;
  private _writes: Promise<void> = Promise.resolve();
  private readonly _key: string;

  constructor(private readonly _o: McpOAuthProviderOptions) {
    this._key = oauthSecretKey(_o.serverUrl);
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

  /** The `state` sent with the authorization request, to compare with the redirect's. */
  get expectedState(): string | undefined {
    return this._state;
  }

  state(): string {
    this._state = randomBytes(16).toString('base64url');
    return this._state;
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
    const stored = await this._read();
    return stored.tokens[ctx?.issuer ?? stored.lastIssuer ?? NO_ISSUER];
  }

  saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    // Discovery is kept only for the flow that just ended: a later refusal discovers again, so a
    // server that moved to another authorization server is followed there (and registered with).
    this._discovery = undefined;
    return this._change((s) => {
      const issuer = issuerOf(ctx, tokens);
      s.tokens[issuer] = tokens;
      s.lastIssuer = issuer;
      s.signedIn = true;
    });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    if (!this.interactive) throw new McpAuthRequiredError('sign-in required');
    this.pendingAuthorization = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this._verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this._verifier === undefined) throw new McpAuthRequiredError('sign-in required: no authorization is under way');
    return this._verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this._discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this._discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier' || scope === 'all') this._verifier = undefined;
    if (scope === 'discovery' || scope === 'all') this._discovery = undefined;
    if (scope === 'all') return this._change((s) => ((s.tokens = {}), (s.clients = {}), (s.lastIssuer = undefined)));
    if (scope === 'tokens') return this._change((s) => ((s.tokens = {}), (s.lastIssuer = undefined)));
    if (scope === 'client') return this._change((s) => void (s.clients = {}));
  }

  private async _read(): Promise<McpStoredAuth> {
    await this._writes;
    const raw = await this._o.secrets.get(this._key);
    return raw === undefined ? emptyStored() : parseStored(raw);
  }

  /** Read-modify-write, one at a time, so two saves in a row do not lose either. */
  private _change(edit: (stored: McpStoredAuth) => void): Promise<void> {
    const next = this._writes.then(async () => {
      const raw = await this._o.secrets.get(this._key);
      const stored = raw === undefined ? emptyStored() : parseStored(raw);
      edit(stored);
      await this._o.secrets.set(this._key, JSON.stringify(stored));
    });
    this._writes = next.catch(() => undefined);
    return next;
  }
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
    return { lastIssuer: value.lastIssuer, signedIn: value.signedIn, clients: value.clients ?? {}, tokens: value.tokens ?? {} };
  } catch {
    return emptyStored(); // unreadable: as if never signed in
  }
}
