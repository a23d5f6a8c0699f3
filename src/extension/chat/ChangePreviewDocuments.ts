import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileChange } from '../../core/chat/ChangePreview';

const SCHEME = 'mcp-harness-change';
/** Previews kept for their diff editors; older ones are dropped (their tabs show nothing on reload). */
const MAX_KEPT = 20;

/**
 * "Preview Change": a waiting write or edit opened in VS Code's diff editor, the file as it is on
 * the left (empty when it does not exist yet) and the content the call would leave on the right.
 * The right side is a read-only virtual document; nothing is written until the call is allowed.
 */
export class ChangePreviewDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly _contents = new Map<string, string>();
  private readonly _registration: vscode.Disposable;
  private _counter = 0;

  constructor() {
    this._registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this._contents.get(uri.path) ?? '';
  }

  async show(change: FileChange): Promise<void> {
    const id = ++this._counter;
    const name = path.basename(change.absolute);
    const right = this._keep(`/${id}/proposed/${name}`, change.after);
    const left = change.before !== undefined && fs.existsSync(change.absolute) ? vscode.Uri.file(change.absolute) : this._keep(`/${id}/new/${name}`, '');
    const title = `${change.path} ↔ proposed change${change.before === undefined ? ' (new file)' : ''}`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  dispose(): void {
    this._registration.dispose();
    this._contents.clear();
  }

  private _keep(key: string, text: string): vscode.Uri {
    this._contents.set(key, text);
    while (this._contents.size > MAX_KEPT) this._contents.delete(this._contents.keys().next().value!);
    return vscode.Uri.from({ scheme: SCHEME, path: key });
  }
}
