import { SdkHttpError, UnauthorizedError, type FetchLike, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { someCause } from '../base/errors';
import type { McpOAuthClientConfig } from '../config/types';

/** Where the host keeps secrets: the editor's secret storage, a 0600 file, or nothing at all. */
export interface IMcpSecretStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * For a store other processes share (a file): takes an exclusive lock on `key` that holds across
   * processes, resolving the function that releases it. A token refresh reads, refreshes and
   * writes under it, so two processes never spend one rotating refresh token. Stores only this
   * process uses leave it out.
   */
  lock?(key: string): Promise<() => Promise<void>>;
}

/**
 * Receives one authorization redirect. Created before the flow starts, since the redirect URL is
 * part of the client's registration and of the authorization request.
 */
export interface IMcpRedirectReceiver {
  /** The `redirect_uri` to register and send. */
  readonly redirectUrl: string;
  /**
   * Sends the user agent to `authorizationUrl` (opens the browser) and resolves the query of the
   * redirect that comes back. Rejects when `signal` aborts.
   */
  authorize(authorizationUrl: URL, signal: AbortSignal): Promise<URLSearchParams>;
  dispose(): void;
}

/**
 * OAuth sign-in as the core sees the editor or terminal: it asks before opening a browser, it
 * receives the redirect, and it keeps the tokens and client registrations.
 */
export interface IMcpAuthHost {
  readonly secrets: IMcpSecretStore;
  /** Asks "Sign in to <server> at <host>?"; false means not now (the server stays "sign-in required"). */
  confirmSignIn(server: string, authorizationHost: string): Promise<boolean>;
  /** Prepares to receive a redirect for `server` (a loopback listener, a URI handler). */
  createRedirectReceiver(server: string): Promise<IMcpRedirectReceiver>;
  /**
   * An HTTPS URL serving this client's metadata document (a client ID metadata document), used as
   * the client ID where the authorization server supports it, before dynamic registration.
   */
  readonly clientMetadataUrl?: string;
}

/** A server needs the user to sign in (again); a state, not a failure. */
export class McpAuthRequiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpAuthRequiredError';
  }
}

/** A server demanded scopes the saved sign-in lacks, and no browser could be opened to ask for them. */
export class McpScopeRequiredError extends McpAuthRequiredError {
  constructor(readonly missingScopes: readonly string[]) {
    super(`sign-in required: the server asks for more access (${missingScopes.join(' ')}); sign in again to grant it`);
    this.name = 'McpScopeRequiredError';
  }
}

/** A failure that only signing in (again) can fix: the SDK's refusal, a 401, or our own "sign-in required". */
export function isAuthFailure(err: unknown): boolean {
  return someCause(err, (e) => e instanceof McpAuthRequiredError || e instanceof UnauthorizedError || (e instanceof SdkHttpError && e.status === 401));
}

/** What one connect to an HTTP server needs to know to prepare its OAuth. */
export interface McpConnectAuthOptions {
  readonly server: string;
  readonly serverUrl: string;
  /** Whether the user asked to sign in now; otherwise only stored tokens are used (and refreshed). */
  readonly interactive: boolean;
  readonly preregistered?: McpOAuthClientConfig;
  /** Whether the entry sends its own Authorization header (then OAuth stays out of the way). */
  readonly hasAuthorizationHeader: boolean;
  /** The handshake's time: OAuth requests get at most half of it, so a silent authorization server is named. */
  readonly startupTimeoutMs: number;
  log(message: string): void;
}

/** Redeems an authorization redirect on the transport that asked for it (`transport.finishAuth`). */
export type McpFinishAuth = (callback: URLSearchParams) => Promise<void>;

/**
 * OAuth for one connect to an HTTP server and, after an interactive sign-in, for the session it
 * opened: what the MCP session calls. The browser step, token storage and step-up are behind it.
 */
export interface IMcpConnectAuth {
  /** The SDK's provider for the transports; undefined when OAuth is not in play for this connect. */
  readonly provider: OAuthClientProvider | undefined;
  /** The fetch for the transports: OAuth requests checked and bounded, expired tokens refreshed. */
  fetch(base: FetchLike | undefined, requestInit: RequestInit | undefined): FetchLike;
  /** Runs `connect`, signing in through the browser when the server asks, until it succeeds or cannot. */
  run(connect: () => Promise<void>, finish: McpFinishAuth, signal: AbortSignal): Promise<void>;
  /** Whether the session should keep this after connecting (the user signed in now, so a step-up can ask again). */
  readonly keepsForSession: boolean;
  /**
   * Runs `attempt`; when the server refuses it for want of access and the user can be asked, asks
   * (once for every attempt refused together), redeems the new sign-in and runs `attempt` once more.
   */
  withStepUp<T>(attempt: () => Promise<T>, finish: McpFinishAuth, signal: AbortSignal | undefined): Promise<T>;
  dispose(): void;
}

/** OAuth as the MCP connection sees it: prepared per connect, forgotten on sign-out. */
export interface IMcpServerAuth {
  /** Whether a server with this `oauth` configuration connects through it (a sign-in host, or a machine identity). */
  appliesTo(oauth: McpConnectAuthOptions['preregistered']): boolean;
  begin(options: McpConnectAuthOptions): Promise<IMcpConnectAuth>;
  /** Forgets the tokens and client registrations kept for the server at `serverUrl`. */
  signOut(serverUrl: string): Promise<void>;
}
