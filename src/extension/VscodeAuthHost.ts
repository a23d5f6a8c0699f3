import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { assertBrowserUrl, type IMcpAuthHost, type IMcpRedirectReceiver, type IMcpSecretStore } from '../core';

const CALLBACK_PATH = '/oauth/callback';

/**
 * VS Code as the core's OAuth host: a modal question before the browser opens, the redirect back
 * through the extension's URI handler (`asExternalUri`, so Remote and code-server work), and
 * tokens and client registrations in SecretStorage.
 */
export class VscodeAuthHost implements IMcpAuthHost, vscode.UriHandler, vscode.Disposable {
  readonly secrets: IMcpSecretStore;
  /** Redirects waited for, by the `flow` query parameter of their callback URI. */
  private readonly _waiting = new Map<string, (query: URLSearchParams) => void>();
  private readonly _registration: vscode.Disposable;

  constructor(private readonly _context: vscode.ExtensionContext) {
    const storage = _context.secrets;
    this.secrets = {
      get: async (key) => storage.get(key),
      set: async (key, value) => storage.store(key, value),
      delete: async (key) => storage.delete(key),
    };
    this._registration = vscode.window.registerUriHandler(this);
  }

  async confirmSignIn(server: string, authorizationHost: string): Promise<boolean> {
    const pick = await vscode.window.showInformationMessage(`Sign in to ${server} at ${authorizationHost}?`, { modal: true }, 'Sign In');
    return pick === 'Sign In';
  }

  /**
   * The redirect URI for `server`: the extension's own URI as `asExternalUri` makes it reachable.
   * On the desktop it is the same every time, so the client registration stays valid; in a browser
   * (code-server) each call gets a new request id, and the provider renews a registration made for
   * another redirect URI.
   */
  async createRedirectReceiver(server: string): Promise<IMcpRedirectReceiver> {
    // An opaque id, the same for a server every time: a name may hold `&`, `#` or `%`, which the
    // round trip through `Uri` and the authorization server would not keep intact.
    const flow = createHash('sha256').update(server).digest('hex').slice(0, 16);
    const own = vscode.Uri.from({ scheme: vscode.env.uriScheme, authority: this._context.extension.id, path: CALLBACK_PATH, query: `flow=${flow}` });
    const external = await vscode.env.asExternalUri(own);
    const waiting = this._waiting;
    return {
      redirectUrl: external.toString(true),
      async authorize(authorizationUrl, signal) {
        signal.throwIfAborted();
        assertBrowserUrl(authorizationUrl, 'authorization URL');
        if (waiting.has(flow)) throw new Error(`another sign-in to ${server} is waiting for the browser; finish or cancel it first`);
        const arrived = new Promise<URLSearchParams>((resolve, reject) => {
          const onAbort = () => {
            waiting.delete(flow);
            reject(signal.reason);
          };
          waiting.set(flow, (query) => {
            signal.removeEventListener('abort', onAbort);
            resolve(query);
          });
          signal.addEventListener('abort', onAbort, { once: true });
        });
        if (!(await openVerbatim(authorizationUrl))) {
          waiting.delete(flow);
          throw new Error('the browser could not be opened');
        }
        return arrived;
      },
      dispose() {
        waiting.delete(flow);
      },
    };
  }

  handleUri(uri: vscode.Uri): void {
    if (uri.path !== CALLBACK_PATH) return;
    const query = new URLSearchParams(uri.query);
    const flow = query.get('flow');
    const resolve = flow ? this._waiting.get(flow) : undefined;
    if (!flow || !resolve) return;
    this._waiting.delete(flow);
    query.delete('flow');
    resolve(query);
  }

  dispose(): void {
    this._registration.dispose();
    this._waiting.clear();
  }
}

/** `vscode.env.openExternal` as it is at runtime: a string is opened as given (ExtHostWindow.openUri). */
type OpenExternal = (target: vscode.Uri | string) => Thenable<boolean>;

/**
 * Opens `url` in the browser with its query byte for byte. A `vscode.Uri` would not do: it decodes
 * the query and VS Code encodes it again on the way out, so an escaped `&`, `=` or `?` inside a
 * parameter (the `redirect_uri`, the `resource`) turns into a parameter separator and the
 * authorization server sees another request. Only a string is passed through untouched, and only
 * when VS Code does not rewrite the address: a loopback server in a remote window (code-server,
 * SSH) is reached through a forwarded port, which is asked for here first.
 */
async function openVerbatim(url: URL): Promise<boolean> {
  const origin = vscode.Uri.parse(`${url.protocol}//${url.host}/`);
  const external = await vscode.env.asExternalUri(origin);
  const base = external.toString(true).replace(/\/$/, '');
  return (vscode.env.openExternal as OpenExternal)(`${base}${url.pathname}${url.search}${url.hash}`);
}
