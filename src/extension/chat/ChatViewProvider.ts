import * as vscode from 'vscode';
import type { HostMessage } from '../../shared/chatProtocol';
import { ChatWebviewConnection, type IChatViewHost } from './ChatWebviewConnection';

export type { IChatViewHost } from './ChatWebviewConnection';
export { chatHtml } from './chatHtml';

export const CHAT_VIEW_ID = 'mcpHarness.chat';
const CHAT_EDITOR_TYPE = 'mcpHarness.chatEditor';

/**
 * The chat's pages: the webview view in its own container (the secondary side bar where the host
 * has one) and, on request, an editor tab. Both show the same session; every message goes to each
 * open page.
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private _view: { view: vscode.WebviewView; connection: ChatWebviewConnection; disposables: vscode.Disposable[] } | undefined;
  private _editor: { panel: vscode.WebviewPanel; connection: ChatWebviewConnection } | undefined;
  /** "MCP: Open Chat" ran before VS Code had asked for the view's page: its caret goes to the page once it is made. */
  private _focusWhenResolved = false;

  constructor(
    private readonly _extensionUri: vscode.Uri,
    private readonly _host: IChatViewHost,
    private readonly _log: vscode.LogOutputChannel,
    /** Where the page may load frames from (the MCP Apps sandbox), if anywhere. */
    private readonly _frameOrigin: () => Promise<string | undefined> = async () => undefined,
  ) {}

  async resolveWebviewView(view: vscode.WebviewView): Promise<void> {
    this._disposeView();
    const frameOrigin = await this._frameOrigin();
    const connection = new ChatWebviewConnection(view.webview, this._extensionUri, this._host, this._log, 'view', frameOrigin);
    const disposables: vscode.Disposable[] = [
      connection,
      view.onDidDispose(() => {
        if (this._view?.view === view) this._disposeView();
      }),
    ];
    this._view = { view, connection, disposables };
    if (this._focusWhenResolved) {
      this._focusWhenResolved = false;
      connection.focusInput();
    }
  }

  get visible(): boolean {
    return (this._view?.view.visible ?? false) || (this._editor?.panel.visible ?? false);
  }

  /** Posts to every open page that is ready. */
  post(message: HostMessage): void {
    this._view?.connection.post(message);
    this._editor?.connection.post(message);
  }

  /** Reveals the side bar view and puts the caret in its message box. */
  async focusView(): Promise<void> {
    // The first time, VS Code may make the page only after the focus command has returned.
    this._focusWhenResolved = this._view === undefined;
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    this._view?.connection.focusInput();
  }

  /** Opens (or reveals) the chat as an editor tab, caret in the message box. */
  async openEditor(): Promise<void> {
    if (this._editor) {
      this._editor.panel.reveal(undefined, false);
      this._editor.connection.focusInput();
      return;
    }
    const frameOrigin = await this._frameOrigin();
    if (this._editor) return this.openEditor();
    const panel = vscode.window.createWebviewPanel(CHAT_EDITOR_TYPE, 'MCP Chat', { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, { retainContextWhenHidden: true });
    panel.iconPath = vscode.Uri.joinPath(this._extensionUri, 'media', 'chat.svg');
    const connection = new ChatWebviewConnection(panel.webview, this._extensionUri, this._host, this._log, 'editor tab', frameOrigin);
    this._editor = { panel, connection };
    panel.onDidDispose(() => {
      connection.dispose();
      if (this._editor?.panel === panel) this._editor = undefined;
    });
    connection.focusInput();
  }

  dispose(): void {
    this._disposeView();
    this._editor?.panel.dispose();
  }

  private _disposeView(): void {
    for (const d of this._view?.disposables.splice(0) ?? []) d.dispose();
    this._view = undefined;
  }
}
