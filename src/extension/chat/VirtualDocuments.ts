import * as vscode from 'vscode';

/** Documents kept for their editors; older ones are dropped (their tabs show nothing on reload). */
const MAX_KEPT = 20;

/**
 * Read-only virtual documents under one URI scheme: text the chat opens in an editor (a proposed
 * change, a server's resource) without writing it anywhere. Each `keep` gets a path of its own.
 */
export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly _contents = new Map<string, string>();
  private readonly _registration: vscode.Disposable;
  private _counter = 0;

  constructor(private readonly _scheme: string) {
    this._registration = vscode.workspace.registerTextDocumentContentProvider(_scheme, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this._contents.get(uri.path) ?? '';
  }

  /** A number for the next group of documents, so equal names never share a path. */
  next(): number {
    return ++this._counter;
  }

  /** Keeps `text` under `key` (a path starting with `/`) and returns its URI. */
  keep(key: string, text: string): vscode.Uri {
    this._contents.set(key, text);
    while (this._contents.size > MAX_KEPT) this._contents.delete(this._contents.keys().next().value!);
    return vscode.Uri.from({ scheme: this._scheme, path: key });
  }

  dispose(): void {
    this._registration.dispose();
    this._contents.clear();
  }
}
