import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpUiResourceCsp } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import type { IDisposable } from '../base/lifecycle';
import { appCspHeader, sanitizeCsp } from './appCsp';
import { SANDBOX_PROXY_PAGE } from './sandboxProxyPage';

/** The path of the sandbox page; a prefix before it is allowed (a remote host's port proxy keeps one). */
export const SANDBOX_PATH = '/sandbox';

/**
 * Serves the MCP Apps sandbox page on a loopback port of its own, so an app runs in a frame whose
 * content security policy comes from an HTTP header (a webview's own policy would otherwise be
 * inherited and block it) and whose origin is opaque (the page forces `sandbox allow-scripts`). It
 * keeps nothing: the policy comes in the query (`?csp=` the resource's declared origins as JSON,
 * sanitized again here), the app's HTML through the frame's messages. A constructor starts
 * nothing; {@link start} listens, once.
 */
export class AppSandboxServer implements IDisposable {
  private _server: http.Server | undefined;
  private _url: Promise<string> | undefined;

  /** Listens on 127.0.0.1 (a free port) and resolves with the page's URL; safe to call twice. */
  start(): Promise<string> {
    this._url ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => respond(req, res));
      this._server = server;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}${SANDBOX_PATH}`));
    });
    return this._url;
  }

  dispose(): void {
    this._server?.closeAllConnections();
    this._server?.close();
    this._server = undefined;
  }
}

/** The URL of the sandbox page for an app with these declared origins. */
export function sandboxPageUrl(base: string, csp: McpUiResourceCsp): string {
  return `${base}?csp=${encodeURIComponent(JSON.stringify(csp))}`;
}

function respond(req: http.IncomingMessage, res: http.ServerResponse): void {
  // Stryker disable next-line StringLiteral: a request an http.Server hands over always has a URL
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !url.pathname.endsWith(SANDBOX_PATH)) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  let declared: unknown;
  try {
    declared = JSON.parse(url.searchParams.get('csp') ?? '{}');
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('csp is not JSON');
    return;
  }
  // Stryker disable next-line ConditionalExpression,LogicalOperator: sanitizeCsp reads no origin out of null, a number, a string or a boolean either
  const { csp } = sanitizeCsp(typeof declared === 'object' && declared !== null ? (declared as McpUiResourceCsp) : {});
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // The app's policy, and a sandbox even if the page is opened outside the chat's frame.
    'content-security-policy': `${appCspHeader(csp)}; sandbox allow-scripts`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'cross-origin-resource-policy': 'cross-origin',
  });
  // Stryker disable next-line ConditionalExpression,StringLiteral: Node's server sends no body to a HEAD request in any case
  res.end(req.method === 'HEAD' ? undefined : SANDBOX_PROXY_PAGE);
}
