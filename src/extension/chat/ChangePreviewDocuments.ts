import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileChange } from '../../core/chat/ChangePreview';
import { VirtualDocuments } from './VirtualDocuments';

const SCHEME = 'mcp-harness-change';

/**
 * "Preview Change": a waiting write or edit opened in VS Code's diff editor, the file as it is on
 * the left (empty when it does not exist yet) and the content the call would leave on the right.
 * The right side is a read-only virtual document; nothing is written until the call is allowed.
 */
export class ChangePreviewDocuments implements vscode.Disposable {
  private readonly _documents = new VirtualDocuments(SCHEME);

  async show(change: FileChange): Promise<void> {
    const id = this._documents.next();
    const name = path.basename(change.absolute);
    const right = this._documents.keep(`/${id}/proposed/${name}`, change.after);
    const left = change.before !== undefined && fs.existsSync(change.absolute) ? vscode.Uri.file(change.absolute) : this._documents.keep(`/${id}/new/${name}`, '');
    const title = `${change.path} ↔ proposed change${change.before === undefined ? ' (new file)' : ''}`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
  }

  dispose(): void {
    this._documents.dispose();
  }
}
