import { AUTH_REQUEST_TIMEOUT_MS } from './McpAuthFetchGuard';
import { McpHttpAuth } from './McpHttpAuth';
import { dpopSecretKey } from './McpDpopKeys';
import { isMachineIdentity } from './machineIdentity';
import { oauthSecretKey } from './McpOAuthProvider';
import type { IMcpAuthHost, IMcpConnectAuth, IMcpServerAuth, McpConnectAuthOptions } from './types';

/**
 * OAuth for the harness's HTTP servers: a person's sign-in, kept in the host's secret store (when
 * there is a host), and machine identities (client credentials, JWT bearer, enterprise-managed),
 * which need no host.
 */
export class McpServerAuth implements IMcpServerAuth {
  constructor(private readonly _host: IMcpAuthHost | undefined) {}

  appliesTo(oauth: McpConnectAuthOptions['preregistered']): boolean {
    return this._host !== undefined || isMachineIdentity(oauth);
  }

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

  async signOut(serverUrl: string): Promise<void> {
    await this._host?.secrets.delete(oauthSecretKey(serverUrl));
    // The key that DPoP-bound tokens were proved with goes with them.
    await this._host?.secrets.delete(dpopSecretKey(serverUrl));
  }
}
