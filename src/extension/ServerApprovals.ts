import * as path from 'node:path';
import * as vscode from 'vscode';
import { definitionFingerprint, describeLaunch, DISCOVERY_AGENTS, type McpDiscoverySource, type McpServerDefinition } from '../core';

const KEY = 'mcpHarness.approvedServers';
const PROMPT_DELAY_MS = 100;

export const NOT_TRUSTED = 'workspace is not trusted';
export const AWAITING_APPROVAL = 'needs your approval to start';

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

  dispose(): void {
    clearTimeout(this._timer);
  }

  private _approved(): string[] {
    return this._state.get<string[]>(KEY, []);
  }

  /**
   * One question per config file, naming the servers: "Start 3 MCP servers from .mcp.json?".
   * "Show Commands" lists exactly what would run (secrets masked) before anything does.
   */
  private async _prompt(): Promise<void> {
    const byFile = new Map<string, McpServerDefinition[]>();
    for (const def of this._pending.values()) byFile.set(def.origin.file, [...(byFile.get(def.origin.file) ?? []), def]);
    await Promise.all([...byFile].map(([file, defs]) => this._ask(fileLabel(file, defs[0]), defs)));
  }

  private async _ask(label: string, defs: McpServerDefinition[]): Promise<void> {
    const count = defs.length === 1 ? '1 MCP server' : `${defs.length} MCP servers`;
    const names = defs.map((d) => d.name).join(', ');
    let answer = await vscode.window.showWarningMessage(`Start ${count} from ${label}? ${names}`, 'Start', 'Show Commands', 'Not Now');
    if (answer === 'Show Commands') {
      const detail = defs.map((d) => `${d.name}: ${describeLaunch(d)}`).join('\n\n');
      answer = await vscode.window.showWarningMessage(`Start ${count} from ${label}?`, { modal: true, detail }, 'Start');
    }
    if (answer !== 'Start') return;
    const still = defs.filter((d) => this._pending.get(d.name) === d);
    await this.approve(still);
    this._onApproved(still.map((d) => d.name));
  }
}

function approvalKey(def: McpServerDefinition): string {
  return `${def.name}\u0000${definitionFingerprint(def)}`;
}

/** `.mcp.json` for a workspace's file; `Claude Desktop's claude_desktop_config.json` for another agent's. */
function fileLabel(file: string, def: McpServerDefinition): string {
  const agent = DISCOVERY_AGENTS[def.origin.source as McpDiscoverySource];
  return agent ? `${agent}'s ${path.basename(file)}` : relativeLabel(file);
}

function relativeLabel(file: string): string {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  return folder ? path.relative(folder.uri.fsPath, file) : path.basename(file);
}
