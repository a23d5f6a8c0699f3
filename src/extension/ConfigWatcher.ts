import * as vscode from 'vscode';
import { SETTINGS_SECTION } from './ConfigFiles';

const DEBOUNCE_MS = 300;
const PATTERN = '{.mcp.json,.vscode/mcp.json,.harness/mcp.json}';

/**
 * Calls `onChange` (debounced) when any config file is created, changed or deleted in any
 * workspace folder, when folders come or go, or when the extension's settings change.
 */
export class ConfigWatcher implements vscode.Disposable {
  private readonly _disposables: vscode.Disposable[] = [];
  private _folderWatchers: vscode.Disposable[] = [];
  private _timer: NodeJS.Timeout | undefined;

  constructor(private readonly _onChange: () => void) {
    this._watchFolders();
    this._disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this._watchFolders();
        this._schedule();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTINGS_SECTION)) this._schedule();
      }),
    );
  }

  dispose(): void {
    clearTimeout(this._timer);
    for (const d of [...this._disposables, ...this._folderWatchers]) d.dispose();
  }

  private _watchFolders(): void {
    for (const d of this._folderWatchers) d.dispose();
    this._folderWatchers = (vscode.workspace.workspaceFolders ?? []).map((folder) => {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, PATTERN));
      const onEvent = () => this._schedule();
      return vscode.Disposable.from(watcher, watcher.onDidCreate(onEvent), watcher.onDidChange(onEvent), watcher.onDidDelete(onEvent));
    });
  }

  private _schedule(): void {
    clearTimeout(this._timer);
    this._timer = setTimeout(this._onChange, DEBOUNCE_MS);
  }
}
