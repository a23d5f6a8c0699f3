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
