import * as vscode from 'vscode';

const KEY = 'mcpHarness.disabledTools';

/**
 * Which tools the user switched off for the agent, remembered per workspace. Keyed by server and
 * original tool name (exposed names can shift when servers come and go).
 */
export class ToolEnablement implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<void>();
  readonly onDidChange = this._onDidChange.event;
  private _disabled: Set<string>;

  constructor(private readonly _state: vscode.Memento) {
    this._disabled = new Set(_state.get<string[]>(KEY, []));
  }

  isEnabled(server: string, tool: string): boolean {
    return !this._disabled.has(key(server, tool));
  }

  async setEnabled(server: string, tool: string, enabled: boolean): Promise<void> {
    const k = key(server, tool);
    if (enabled === !this._disabled.has(k)) return;
    if (enabled) this._disabled.delete(k);
    else this._disabled.add(k);
    await this._state.update(KEY, [...this._disabled]);
    this._onDidChange.fire();
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}

function key(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}
