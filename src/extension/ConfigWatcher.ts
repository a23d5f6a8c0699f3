import * as vscode from 'vscode';
import { Disposable, DisposableStore } from '../core';
import { SETTINGS_SECTION } from './ConfigFiles';

const DEBOUNCE_MS = 300;
const PATTERN = '{.mcp.json,.vscode/mcp.json,.harness/mcp.json,.harness/hooks.json,.claude/settings.json}';

/**
 * Calls `onChange` (debounced) when any config file is created, changed or deleted in any
 * workspace folder, when folders come or go, or when the extension's settings change.
 */
export class ConfigWatcher extends Disposable {
  private readonly _folderWatchers = this._register(new DisposableStore());
  private _timer: NodeJS.Timeout | undefined;

  constructor(private readonly _onChange: () => void) {
    super();
    this._watchFolders();
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this._watchFolders();
        this._schedule();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SETTINGS_SECTION)) this._schedule();
      }),
    );
  }

  override dispose(): void {
    clearTimeout(this._timer);
    super.dispose();
  }

  private _watchFolders(): void {
    this._folderWatchers.clear();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, PATTERN));
      const onEvent = () => this._schedule();
      this._folderWatchers.add(vscode.Disposable.from(watcher, watcher.onDidCreate(onEvent), watcher.onDidChange(onEvent), watcher.onDidDelete(onEvent)));
    }
  }

  private _schedule(): void {
    clearTimeout(this._timer);
    this._timer = setTimeout(this._onChange, DEBOUNCE_MS);
  }
}
