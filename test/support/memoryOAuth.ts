import { createHash, randomBytes } from 'node:crypto';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { IMcpAuthHost, IMcpRedirectReceiver, IMcpSecretStore } from '../../src/core/auth/types';

/** Where the in-memory server answers: a loopback origin no socket ever listens on. */
export const ORIGIN = 'http://127.0.0.1:9';
export const MCP_URL = `${ORIGIN}/mcp`;
const SCOPE = 'mcp:tools';

interface Grant {
  readonly clientId: string;
  readonly scope: string;
}

/**
 * An OAuth-protected MCP server and its authorization server as one `fetch` (no socket): protected
 * resource and authorization server metadata, dynamic registration, PKCE codes, rotating refresh
 * tokens, client credentials, and a `step_up` tool that needs one more scope. `approve` is the
 * browser: it answers an authorization URL as the authorization endpoint would.
 */
export class MemoryOAuthServer {
  readonly stats = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, refusedRefreshes: 0, clientCredentials: 0, jwtBearer: 0 };
  /** Workload tokens (JWT bearer grants) it accepts, and the client each stands for. */
  readonly workloadTokens = new Map<string, string>([['workload.jwt.token', 'ci-job']]);
  readonly requests: string[] = [];
  /** Client secrets of pre-registered confidential clients (client credentials). */
  readonly confidential = new Map<string, string>([['machine', 'machine-secret']]);
  private readonly _clients = new Set<string>(['machine']);
  private readonly _codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  private readonly _access = new Map<string, Grant>();
  private readonly _refresh = new Map<string, Grant>();
  private readonly _handler = createMcpHandler(() => this._mcpServer());
  /** Answer the authorization endpoint with this error instead of a code. */
  denyWith: string | undefined;
  /** Answer with a `state` other than the one asked for. */
  forgeState = false;

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    this.requests.push(`${request.method} ${url.pathname}`);
    if (url.origin !== ORIGIN) return new Response('not found', { status: 404 });
    switch (url.pathname) {
      case '/.well-known/oauth-protected-resource/mcp':
      case '/.well-known/oauth-protected-resource':
        return json({ resource: MCP_URL, authorization_servers: [ORIGIN], scopes_supported: [SCOPE] });
      case '/.well-known/oauth-authorization-server':
        return json({
          issuer: ORIGIN,
          authorization_endpoint: `${ORIGIN}/authorize`,
          token_endpoint: `${ORIGIN}/token`,
          registration_endpoint: `${ORIGIN}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
          authorization_response_iss_parameter_supported: true,
        });
      case '/register':
        return this._register(request);
      case '/token':
        return this._token(request);
      case '/mcp':
        return this._mcp(request);
      default:
        return new Response('not found', { status: 404 });
    }
  };

  /** Every access token expires (the next request with one is refused 401). */
  expireAccessTokens(): void {
    this._access.clear();
  }

  /** Every refresh token is revoked. */
  revokeRefreshTokens(): void {
    this._refresh.clear();
  }

  /** The browser at `authorizationUrl`: the query of the redirect the authorization endpoint sends back. */
  approve(authorizationUrl: URL): URLSearchParams {
    this.stats.authorizations++;
    const q = authorizationUrl.searchParams;
    const state = this.forgeState ? 'forged' : (q.get('state') ?? '');
    if (this.denyWith) return new URLSearchParams({ error: this.denyWith, error_description: 'spoofed <b>text</b>', state, iss: ORIGIN });
    const clientId = q.get('client_id') ?? '';
    if (!this._clients.has(clientId)) return new URLSearchParams({ error: 'invalid_client', state, iss: ORIGIN });
    const code = secret();
    this._codes.set(code, { clientId, scope: q.get('scope') ?? SCOPE, challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri') ?? '' });
    return new URLSearchParams({ code, state, iss: ORIGIN });
  }

  private async _register(request: Request): Promise<Response> {
    const body = (await request.json()) as Record<string, unknown>;
    this.stats.registrations++;
    const clientId = `client-${this.stats.registrations}`;
    this._clients.add(clientId);
    return json({ ...body, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' }, 201);
  }

  private async _token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const grant = this._codes.get(form.get('code') ?? '');
      this._codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!grant || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return oauthError('invalid_grant');
      this.stats.codeExchanges++;
      return this._issue(grant);
    }
    if (grantType === 'refresh_token') {
      const grant = this._refresh.get(form.get('refresh_token') ?? '');
      if (!grant) {
        this.stats.refusedRefreshes++;
        return oauthError('invalid_grant');
      }
      this._refresh.delete(form.get('refresh_token') ?? '');
      this.stats.refreshes++;
      return this._issue(grant);
    }
    if (grantType === 'client_credentials') {
      const [id, pass] = Buffer.from((request.headers.get('authorization') ?? '').replace(/^Basic /, ''), 'base64').toString().split(':').map(decodeURIComponent);
      const clientId = id || (form.get('client_id') ?? '');
      if (this.confidential.get(clientId) !== (pass ?? form.get('client_secret'))) return oauthError('invalid_client', 401);
      this.stats.clientCredentials++;
      return this._issue({ clientId, scope: form.get('scope') ?? SCOPE }, false);
    }
    if (grantType === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const assertion = form.get('assertion') ?? '';
      if (!this.workloadTokens.has(assertion)) return oauthError('invalid_grant');
      this.stats.jwtBearer++;
      return this._issue({ clientId: this.workloadTokens.get(assertion)!, scope: form.get('scope') ?? SCOPE }, false);
    }
    return oauthError('unsupported_grant_type');
  }

  private _issue(grant: Grant, withRefresh = true): Response {
    const access = secret();
    this._access.set(access, grant);
    const refresh = withRefresh ? secret() : undefined;
    if (refresh) this._refresh.set(refresh, grant);
    return json({ access_token: access, token_type: 'Bearer', expires_in: 3600, scope: grant.scope, ...(refresh ? { refresh_token: refresh } : {}) });
  }

  private async _mcp(request: Request): Promise<Response> {
    const token = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const grant = token === undefined ? undefined : this._access.get(token);
    if (!grant) {
      return new Response(JSON.stringify({ error: 'invalid_token' }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"` },
      });
    }
    const body = request.method === 'POST' ? await request.clone().text() : '';
    if (body.includes('"step_up"') && !grant.scope.split(' ').includes('admin')) {
      return new Response(JSON.stringify({ error: 'insufficient_scope' }), {
        status: 403,
        headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error="insufficient_scope", scope="${SCOPE} admin", resource_metadata="${ORIGIN}/.well-known/oauth-protected-resource/mcp"` },
      });
    }
    return this._handler.fetch(request);
  }

  private _mcpServer(): McpServer {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('step_up', { description: 'Needs the admin scope' }, () => ({ content: [{ type: 'text', text: 'admin done' }] }));
    return server;
  }
}

/** A secret store in memory, with the lock a shared store has. */
export class MemorySecrets implements IMcpSecretStore {
  readonly values = new Map<string, string>();
  async get(key: string): Promise<string | undefined> {
    return this.values.get(key);
  }
  async set(key: string, value: string): Promise<void> {
    this.values.set(key, value);
  }
  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }
}

/** A host whose "browser" is the in-memory server's authorization endpoint; it says yes unless told otherwise. */
export class MemoryAuthHost implements IMcpAuthHost {
  readonly secrets = new MemorySecrets();
  readonly asked: string[] = [];
  readonly opened: string[] = [];
  confirm = true;
  constructor(private readonly _server: MemoryOAuthServer) {}
  async confirmSignIn(server: string, host: string): Promise<boolean> {
    this.asked.push(`${server} at ${host}`);
    return this.confirm;
  }
  async createRedirectReceiver(): Promise<IMcpRedirectReceiver> {
    return {
      redirectUrl: 'http://127.0.0.1:33418/callback',
      authorize: async (url: URL) => {
        this.opened.push(url.pathname);
        return this._server.approve(url);
      },
      dispose: () => undefined,
    };
  }
}

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
}

function oauthError(error: string, status = 400): Response {
  return json({ error }, status);
}

function secret(): string {
  return randomBytes(12).toString('base64url');
}
