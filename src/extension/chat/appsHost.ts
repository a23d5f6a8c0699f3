import * as vscode from 'vscode';
import { AppSandboxServer } from '../../core/apps/AppSandboxServer';
import type { IChatAppsHost } from '../../core/chat/ChatApps';

/**
 * The editor's side of MCP Apps: the loopback sandbox page the chat frames each app in (reached
 * through VS Code's port forwarding when the window is remote), and the question before a link an
 * app asks for is opened.
 */
export class ChatAppsHost implements IChatAppsHost, vscode.Disposable {
  private readonly _server = new AppSandboxServer();
  private _url: Promise<string> | undefined;

  /** The sandbox page's URL as the chat page reaches it; the first call starts the server. */
  sandboxUrl(): Promise<string> {
    this._url ??= this._server.start().then(async (local) => (await vscode.env.asExternalUri(vscode.Uri.parse(local))).toString(true));
    return this._url;
  }

  /** The origin the chat page's policy lets frames come from, or undefined when the server could not start. */
  async frameOrigin(): Promise<string | undefined> {
    try {
      return new URL(await this.sandboxUrl()).origin;
    } catch {
      return undefined;
    }
  }

  async openLink(url: string, app: string): Promise<boolean> {
    const open = 'Open Link';
    const choice = await vscode.window.showWarningMessage(
      `The app ${app} asks to open ${url}`,
      { modal: true, detail: 'An app opens a link only after you agree. Open it in your browser?' },
      open,
    );
    return choice === open && vscode.env.openExternal(vscode.Uri.parse(url, true));
  }

  dispose(): void {
    this._server.dispose();
  }
}
