import { AUTH_REQUEST_TIMEOUT_MS } from './McpAuthFetchGuard';
import { McpHttpAuth } from './McpHttpAuth';
import { oauthSecretKey } from './McpOAuthProvider';
import type { IMcpAuthHost, IMcpConnectAuth, IMcpServerAuth, McpConnectAuthOptions } from './types';

/** OAuth for the harness's HTTP servers, kept in the host's secret store. */
export class McpServerAuth implements IMcpServerAuth {
  constructor(private readonly _host: IMcpAuthHost) {}

  begin(options: McpConnectAuthOptions): Promise<IMcpConnectAuth> {
    return McpHttpAuth.create({
      server: options.server,
      serverUrl: options.serverUrl,
      host: this._host,
      interactive: options.interactive,
      preregistered: options.preregistered,
      hasAuthorizationHeader: options.hasAuthorizationHeader,
      // Inside the handshake's own time, so a silent authorization server is named as the cause.
      requestTimeoutMs: Math.min(AUTH_REQUEST_TIMEOUT_MS, Math.floor(options.startupTimeoutMs / 2)),
      log: options.log,
    });
  }

  signOut(serverUrl: string): Promise<void> {
    return this._host.secrets.delete(oauthSecretKey(serverUrl));
  }
}
