import * as path from 'node:path';
import * as vscode from 'vscode';
import { definitionFingerprint, describeLaunch, type McpServerDefinition } from '../core';

const KEY = 'mcpHarness.approvedServers';
const PROMPT_DELAY_MS = 100;

export const NOT_TRUSTED = 'workspace is not trusted';
export const AWAITING_APPROVAL = 'waiting for approval (a workspace file defines it)';

/**
 * Decides whether a server may start. Servers from workspace files run code the workspace chose,
 * so they start only in a trusted workspace and after the user approved them once. The approval
 * is remembered per workspace and per definition: a changed command or URL asks again.
 */
export class ServerApprovals implements vscode.Disposable {
  private readonly _pending = new Map<string, McpServerDefinition>();
  private _timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly _state: vscode.Memento,
    private readonly _onApproved: (names: string[]) => void,
  ) {}

  /** The harness's start gate: undefined to start, or why not. */
  async check(def: McpServerDefinition): Promise<string | undefined> {
    if (def.origin.source === 'user') return undefined; // the user wrote it in their own settings
    if (!vscode.workspace.isTrusted) return NOT_TRUSTED;
    if (this.isApproved(def)) return undefined;
    this._pending.set(def.name, def);
    clearTimeout(this._timer);
    this._timer = setTimeout(() => void this._prompt(), PROMPT_DELAY_MS);
    return AWAITING_APPROVAL;
  }

  isApproved(def: McpServerDefinition): boolean {
    return this._approved().includes(approvalKey(def));
  }

  /** Records approval of these definitions (an explicit start by the user counts as one). */
  async approve(defs: readonly McpServerDefinition[]): Promise<void> {
    const approved = new Set(this._approved());
    for (const def of defs) {
      approved.add(approvalKey(def));
      this._pending.delete(def.name);
    }
    await this._state.update(KEY, [...approved]);
  }

  /** Approves everything waiting and reports which servers may now start. */
  async approvePending(): Promise<string[]> {
    const defs = [...this._pending.values()];
    await this.approve(defs);
    return defs.map((d) => d.name);
  }

  get pendingCount(): number {
    return this._pending.size;
  }

  dispose(): void {
    clearTimeout(this._timer);
  }

  private _approved(): string[] {
    return this._state.get<string[]>(KEY, []);
  }

  /** One question per config file: "Start 3 MCP servers from .mcp.json?" with what they run. */
  private async _prompt(): Promise<void> {
    const byFile = new Map<string, McpServerDefinition[]>();
    for (const def of this._pending.values()) byFile.set(def.origin.file, [...(byFile.get(def.origin.file) ?? []), def]);
    await Promise.all(
      [...byFile].map(async ([file, defs]) => {
        const what = defs.map((d) => `${d.name} (${shorten(describeLaunch(d), 72)})`).join('; ');
        const label = relativeLabel(file);
        const count = defs.length === 1 ? '1 MCP server' : `${defs.length} MCP servers`;
        const answer = await vscode.window.showWarningMessage(`Start ${count} from ${label}? ${what}`, 'Start', 'Open File', 'Not Now');
        if (answer === 'Start') {
          const still = defs.filter((d) => this._pending.get(d.name) === d);
          await this.approve(still);
          this._onApproved(still.map((d) => d.name));
        } else if (answer === 'Open File') {
          await vscode.window.showTextDocument(vscode.Uri.file(file));
        }
      }),
    );
  }
}

function approvalKey(def: McpServerDefinition): string {
  return `${def.name}\u0000${definitionFingerprint(def)}`;
}

function relativeLabel(file: string): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  return folder ? path.relative(folder.uri.fsPath, file) : path.basename(file);
}

/** Keeps both ends of a long command line (the program and the script name matter most). */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor((max - 1) / 2);
  return `${text.slice(0, half)}…${text.slice(-half)}`;
}
