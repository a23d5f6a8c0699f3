import * as vscode from 'vscode';
import type { HostMessage, WebviewRequestHandlers, WebviewRequestMessage } from '../../shared/chatProtocol';
import { parseWebviewMessage } from '../../shared/parseChatMessage';
import { errorMessage } from '../../core/base/errors';
import { ChatRequestError } from '../../core/chat';
import { chatHtml, embeddedJson } from './chatHtml';

/** What a chat page needs of the chat: the state to show, and somewhere to send the panel's requests. */
export interface IChatViewHost {
  /** The full state for a (re)opened panel. */
  initMessage(): HostMessage;
  /** The handlers of the panel's requests; a handler's thrown error goes back as the answer's error. */
  requests(): WebviewRequestHandlers;
}

/**
 * One chat page (the side bar view or the editor tab). It posts nothing before the page says
 * `ready`, drops malformed messages with a log line, and answers each request by its sequence
 * number. The page loads one script from the bundle's own folder (the only local resource root)
 * under a strict CSP with a nonce.
 */
export class ChatWebviewConnection implements vscode.Disposable {
  private _ready = false;
  private _focusWhenReady = false;
  private readonly _disposables: vscode.Disposable[] = [];
  private readonly _openedAt = performance.now();
  /** The state the page was made with: at `ready`, the same state is not sent again. */
  private _embedded: string | undefined;

  constructor(
    private readonly _webview: vscode.Webview,
    extensionUri: vscode.Uri,
    private readonly _host: IChatViewHost,
    private readonly _log: vscode.LogOutputChannel,
    private readonly _where: string,
    /** Where MCP Apps' sandbox frames come from (the page may frame nothing else). */
    frameOrigin?: string,
  ) {
    const bundle = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    _webview.options = { enableScripts: true, localResourceRoots: [bundle] };
    this._embedded = embeddedJson(_host.initMessage());
    _webview.html = chatHtml(_webview, vscode.Uri.joinPath(bundle, 'webview.js'), { frameOrigin, appHost: vscode.Uri.joinPath(bundle, 'appHost.js') }, this._embedded);
    this._disposables.push(_webview.onDidReceiveMessage((data: unknown) => this._receive(data)));
  }

  /** Posts once the page is ready; before that the page gets everything in its `init` (first in its HTML). */
  post(message: HostMessage): void {
    if (!this._ready) return;
    void this._webview.postMessage(message).then(undefined, (err) => this._log.warn(`chat: posting ${message.type} failed: ${err}`));
  }

  /** Puts the caret in the message box, now or as soon as the page has loaded. */
  focusInput(): void {
    if (this._ready) this.post({ type: 'focusInput' });
    else this._focusWhenReady = true;
  }

  dispose(): void {
    for (const d of this._disposables.splice(0)) d.dispose();
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
      // The page already shows the state it was made with; only a state that changed since is sent.
      const init = this._host.initMessage();
      if (embeddedJson(init) !== this._embedded) this.post(init);
      this._embedded = undefined;
      if (this._focusWhenReady) this.post({ type: 'focusInput' });
      this._focusWhenReady = false;
      this._log.info(`chat: ${this._where} ready ${Math.round(performance.now() - this._openedAt)} ms after it was opened`);
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
}

/** Runs one request by its handler: each request type is answered by the handler of that type. */
function dispatch(handlers: WebviewRequestHandlers, message: WebviewRequestMessage): Promise<unknown> {
  const { type, seq: _seq, ...params } = message;
  return (handlers[type] as (p: typeof params) => Promise<unknown>)(params);
}
