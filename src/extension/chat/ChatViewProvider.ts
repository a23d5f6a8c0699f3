import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { HostMessage, WebviewRequestHandlers, WebviewRequestMessage } from '../../shared/chatProtocol';
import { parseWebviewMessage } from '../../shared/parseChatMessage';
import { errorMessage } from '../../core/base/errors';
import { ChatRequestError } from '../../core/chat';

export const CHAT_VIEW_ID = 'mcpHarness.chat';

/** What the view needs of the chat: the state to show, and somewhere to send the panel's requests. */
export interface IChatViewHost {
  /** The full state for a (re)opened panel. */
  initMessage(): HostMessage;
  /** The handlers of the panel's requests; a handler's thrown error goes back as the answer's error. */
  requests(): WebviewRequestHandlers;
}

/**
 * The chat's webview view in the MCP container (movable to the secondary side bar). It posts
 * nothing before the panel says `ready`, drops malformed messages with a log line, and answers each
 * request by its sequence number. The page loads one script from the bundle's own folder (the only
 * local resource root) under a strict CSP with a nonce.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private _view: vscode.WebviewView | undefined;
  private _ready = false;
  private readonly _viewDisposables: vscode.Disposable[] = [];
  /** Time the last view was resolved, for the restore figure in the log. */
  private _resolvedAt = 0;

  constructor(
    private readonly _extensionUri: vscode.Uri,
    private readonly _host: IChatViewHost,
    private readonly _log: vscode.LogOutputChannel,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this._disposeView();
    this._resolvedAt = performance.now();
    this._view = view;
    this._ready = false;
    const bundle = vscode.Uri.joinPath(this._extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [bundle] };
    view.webview.html = chatHtml(view.webview, vscode.Uri.joinPath(bundle, 'webview.js'));
    this._viewDisposables.push(
      view.webview.onDidReceiveMessage((data: unknown) => this._receive(data)),
      view.onDidDispose(() => {
        if (this._view === view) {
          this._view = undefined;
          this._ready = false;
        }
      }),
    );
  }

  get visible(): boolean {
    return this._view?.visible ?? false;
  }

  /** Posts to the panel once it is ready; before that the panel gets everything in its `init`. */
  post(message: HostMessage): void {
    if (!this._view || !this._ready) return;
    void this._view.webview.postMessage(message).then(undefined, (err) => this._log.warn(`chat: posting ${message.type} failed: ${err}`));
  }

  dispose(): void {
    this._disposeView();
  }

  private _receive(data: unknown): void {
    const parsed = parseWebviewMessage(data);
    if (!parsed.ok) {
      this._log.warn(`chat: dropped a message from the panel: ${parsed.error}`);
      return;
    }
    const message = parsed.value;
    if (message.type === 'ready') {
      this._ready = true;
      this.post(this._host.initMessage());
      this._log.info(`chat: panel ready ${Math.round(performance.now() - this._resolvedAt)} ms after it was opened`);
      return;
    }
    void dispatch(this._host.requests(), message).then(
      (value) => this.post({ type: 'response', seq: message.seq, ok: true, value }),
      (err: unknown) => {
        if (!(err instanceof ChatRequestError)) this._log.error(`chat: ${message.type} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.post({ type: 'response', seq: message.seq, ok: false, error: errorMessage(err) });
      },
    );
  }

  private _disposeView(): void {
    for (const d of this._viewDisposables.splice(0)) d.dispose();
  }
}

/** Runs one request by its handler: each request type is answered by the handler of that type. */
function dispatch(handlers: WebviewRequestHandlers, message: WebviewRequestMessage): Promise<unknown> {
  const { type, seq: _seq, ...params } = message;
  return (handlers[type] as (p: typeof params) => Promise<unknown>)(params);
}

/** The page: one script from the bundle, nothing inline, a policy that allows only that. */
export function chatHtml(webview: vscode.Webview, script: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>MCP Chat</title>
</head>
<body>
<script nonce="${nonce}" src="${webview.asWebviewUri(script).toString()}"></script>
</body>
</html>`;
}
