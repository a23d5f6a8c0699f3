import { auth, createFetchWithInit, extractWWWAuthenticateParams, type FetchLike } from '@modelcontextprotocol/client';
import { McpOAuthProvider, oauthSecretKey, type McpOAuthProviderOptions } from './McpOAuthProvider';
import type { IMcpSecretStore } from './types';
import { errorMessage } from '../base/errors';

/** Refreshes under way in this process, per secret store and credential key: concurrent refusals share one. */
const inFlight = new WeakMap<IMcpSecretStore, Map<string, Promise<boolean>>>();

/**
 * Refreshes an expired access token once for everyone who was refused with it. The SDK refreshes
 * on every 401 by itself, so ten calls refused together would run ten refresh grants with the same
 * refresh token; an authorization server that rotates refresh tokens rejects all but the first
 * and the sign-in would be lost. Across processes sharing a store (one token file), the store's
 * lock does the same. The fetch this makes for the transport answers a 401 to a request
 * that carried a token by waiting for the one refresh of that token (or starting it), then sends
 * the request again with the new token. The SDK sees a 401 only when refreshing did not help.
 */
export class McpTokenRefresher {
  private readonly _key: string;
  private readonly _provider: McpOAuthProvider;

  constructor(
    private readonly _o: Pick<McpOAuthProviderOptions, 'serverUrl' | 'secrets' | 'preregistered' | 'clientMetadataUrl'>,
    private readonly _log: (message: string) => void = () => undefined,
  ) {
    this._key = oauthSecretKey(_o.serverUrl);
    // Refresh-only: a flow that would need the browser ends here, and the SDK's own flow takes over.
    this._provider = new McpOAuthProvider({ ..._o, redirectUrl: undefined });
  }

  /** `base` (the global fetch when absent) with refusals of an expired token answered by one refresh. */
  wrap(base: FetchLike | undefined, requestInit: RequestInit | undefined): FetchLike {
    const send: FetchLike = base ?? ((url, init) => fetch(url, init));
    const authFetch = createFetchWithInit(base, requestInit);
    return async (url, init) => {
      const response = await send(url, init);
      const sent = bearerToken(init?.headers);
      if (response.status !== 401 || sent === undefined || !canResend(init)) return response;
      if (!(await this.refresh(sent, response, authFetch))) return response;
      const token = (await this._provider.tokens())?.access_token;
      if (token === undefined || token === sent) return response;
      await response.body?.cancel().catch(() => undefined);
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${token}`);
      return send(url, { ...init, headers });
    };
  }

  /**
   * Makes sure `rejected` is no longer the stored access token: resolves true once newer tokens are
   * stored (by this refresh, or one that ran meanwhile), false when refreshing was not possible.
   */
  refresh(rejected: string, refusal: Response, fetchFn: FetchLike): Promise<boolean> {
    let byKey = inFlight.get(this._o.secrets);
    if (!byKey) inFlight.set(this._o.secrets, (byKey = new Map()));
    const running = byKey.get(this._key);
    if (running) return running;
    const map = byKey;
    const started = this._refreshUnlessDone(rejected, refusal, fetchFn).finally(() => map.delete(this._key));
    map.set(this._key, started);
    return started;
  }

  /** Under the store's lock when it has one: another process may have refreshed meanwhile, so the tokens are read after taking it. */
  private async _refreshUnlessDone(rejected: string, refusal: Response, fetchFn: FetchLike): Promise<boolean> {
    const release = await this._o.secrets.lock?.(this._key);
    try {
      return await this._refreshLocked(rejected, refusal, fetchFn);
    } finally {
      await release?.();
    }
  }

  private async _refreshLocked(rejected: string, refusal: Response, fetchFn: FetchLike): Promise<boolean> {
    const current = await this._provider.tokens();
    if (current === undefined) return false;
    if (current.access_token !== rejected) return true;
    if (!current.refresh_token) return false;
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(refusal);
    try {
      const outcome = await auth(this._provider, { serverUrl: this._o.serverUrl, resourceMetadataUrl, scope, fetchFn });
      return outcome === 'AUTHORIZED';
    } catch (err) {
      this._log(`could not refresh the sign-in: ${errorMessage(err)}`);
      return false;
    }
  }
}

/** The bearer token in request headers, if any. */
function bearerToken(headers: RequestInit['headers']): string | undefined {
  const value = new Headers(headers).get('authorization');
  const match = value ? /^Bearer\s+(\S+)$/i.exec(value) : null;
  return match?.[1];
}

/** A body that was a stream is spent; strings and absent bodies can be sent again. */
function canResend(init: RequestInit | undefined): boolean {
  return init?.body === undefined || init.body === null || typeof init.body === 'string';
}
