/** Transports a server entry can ask for. */
export type McpTransportKind = 'stdio' | 'http' | 'sse';

/**
 * Where a server entry came from, in precedence order (first wins a name clash). The first five
 * are read always; the rest are found elsewhere (see `discoverServers`): other agents' files,
 * VS Code's user-level `mcp.json`, and servers that extensions provide.
 */
export type McpConfigSource =
  | 'explicit'
  | 'vscode'
  | 'claude'
  | 'harness'
  | 'user'
  | McpDiscoverySource
  | 'extension';

/** Other agents' (and the editor's) own config files that servers can be discovered in. */
export type McpDiscoverySource = 'vscode-user' | 'claude-code' | 'claude-desktop' | 'cursor';

/** The file and JSON path of one entry, so a user can be sent to it. */
export interface McpConfigOrigin {
  readonly source: McpConfigSource;
  /** Absolute path of the file, or a label such as `settings.json` for host-supplied entries. */
  readonly file: string;
  /** Dotted JSON path of the entry, e.g. `mcpServers.github`. */
  readonly jsonPath: string;
  /** 1-based line and column of the entry's key, when known. */
  readonly line?: number;
  readonly column?: number;
  /** Other places that define the same command or URL; the server is shown once, with all of them. */
  readonly alsoIn?: readonly McpConfigOrigin[];
}

/** A VS Code style `inputs` entry that `${input:id}` refers to. */
export interface McpInputDefinition {
  readonly id: string;
  readonly type: string;
  readonly description?: string;
  readonly password?: boolean;
  readonly default?: string;
  readonly options?: readonly string[];
}

/**
 * One configured server, as written (variables not yet substituted: that happens at start, so
 * secrets are never held in a definition and an edited environment takes effect on restart).
 */
export interface McpServerDefinition {
  readonly name: string;
  /** Declared or inferred transport; undefined only when `problem` explains why. */
  readonly type: McpTransportKind | undefined;
  readonly command?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly envFile?: string;
  readonly cwd?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly disabled: boolean;
  readonly startupTimeoutMs?: number;
  readonly toolTimeoutMs?: number;
  /** A client registered with the server's authorization server ahead of time (HTTP servers only). */
  readonly oauth?: McpOAuthClientConfig;
  /**
   * `sandbox` of a stdio entry: `true` (read the workspace, write nowhere, no network) or what it
   * may reach. A sandboxed server never runs unsandboxed: where sandboxing is unavailable it does not start.
   */
  readonly sandbox?: McpSandboxConfig;
  /** Folder that `${workspaceFolder}` means for this entry. */
  readonly workspaceFolder?: string;
  /** `inputs` declared next to this entry (VS Code format only). */
  readonly inputs: readonly McpInputDefinition[];
  readonly origin: McpConfigOrigin;
  /** Set when the entry is unusable (bad field, unsupported type); the server is shown in error and never started. */
  readonly problem?: string;
}

/**
 * `oauth` of a server entry: a pre-registered OAuth client (`clientSecret` may be `${input:...}`).
 * With `grant: "client_credentials"` it is a machine identity: no browser and no user, the client
 * authenticates with `clientSecret` (client_secret_basic) or a JWT signed with `privateKey`
 * (private_key_jwt, RFC 7523); either comes from `${input:...}` or `${env:...}`, never settings.
 */
export interface McpOAuthClientConfig {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scopes?: readonly string[];
  /** `authorization_code` (the default: a person signs in) or `client_credentials`. */
  readonly grant?: McpOAuthGrant;
  /** client_credentials: a PEM (PKCS#8) or JWK private key to sign the client assertion with. */
  readonly privateKey?: string;
  /** client_credentials with `privateKey`: the JWS algorithm (default: the JWK's `alg`, else RS256). */
  readonly signingAlgorithm?: string;
  /** client_credentials and jwt_bearer: the authorization server the credentials belong to; they are sent to no other. */
  readonly issuer?: string;
  /** jwt_bearer (workload identity federation, RFC 7523 §2.1): the workload's JWT, e.g. a CI job's OIDC token. */
  readonly assertion?: string;
  /** client_credentials and jwt_bearer: ask for sender-constrained (DPoP, RFC 9449) tokens, proved with a key of this connection's own. */
  readonly dpop?: boolean;
  /** enterprise_managed: the organisation's identity provider and the ID token it issued the user. */
  readonly idp?: McpIdentityProviderConfig;
}

/**
 * `oauth.idp` of enterprise-managed authorization: the ID token is exchanged at the identity
 * provider for an ID-JAG (RFC 8693), which the MCP server's authorization server takes as a JWT
 * bearer grant (RFC 7523).
 */
export interface McpIdentityProviderConfig {
  readonly issuer: string;
  /** The token endpoint, when the identity provider's metadata should not be discovered from `issuer`. */
  readonly tokenEndpoint?: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly idToken: string;
}

export type McpOAuthGrant = 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'enterprise_managed';

/** What a sandboxed stdio server may reach; `true` in a config file is `{}` (the defaults). */
export interface McpSandboxConfig {
  readonly filesystem?: { readonly allowWrite?: readonly string[]; readonly denyRead?: readonly string[] };
  readonly network?: { readonly allowedDomains?: readonly string[] };
}

/** A problem with configuration content. Loading reports these instead of throwing. */
export interface McpConfigError {
  /** Absolute path of the file (or the host label). */
  readonly file: string;
  /** Dotted JSON path of the bad field, e.g. `mcpServers.github.args[1]`; absent for syntax errors. */
  readonly jsonPath?: string;
  readonly line?: number;
  readonly column?: number;
  /** Human message without the location, e.g. `expected string, got number`. */
  readonly message: string;
  /** The server the problem belongs to, when there is one. */
  readonly server?: string;
}

export interface McpConfigLoadResult {
  /** Every server after precedence, including entries with a `problem`. */
  readonly servers: readonly McpServerDefinition[];
  readonly errors: readonly McpConfigError[];
}
