import * as vscode from 'vscode';
import type { McpHarness } from '../core';
import { AWAITING_APPROVAL } from './ServerApprovals';
import { escapeMarkdown, stateLabel } from './serverPresentation';
import type { ToolEnablement } from './ToolEnablement';

/** Many model APIs, and VS Code's own chat, refuse more tools than this in one request. */
export const TOOL_LIMIT = 128;

/**
 * `$(plug) MCP 3/4 · 27 tools`: running servers of those meant to run, and enabled tools.
 * Spins while any server starts, turns to warning colours when any is in error.
 */
export class StatusBarController implements vscode.Disposable {
  private readonly _item = vscode.window.createStatusBarItem('mcpHarness.status', vscode.StatusBarAlignment.Left, 50);
  private readonly _disposables: vscode.Disposable[] = [];

  constructor(
    private readonly _harness: McpHarness,
    private readonly _enablement: ToolEnablement,
  ) {
    this._item.name = 'MCP Servers';
    this._item.command = 'mcpHarness.servers.focus';
    this._disposables.push(_harness.onDidChange(() => this.update()), _enablement.onDidChange(() => this.update()));
    this.update();
    this._item.show();
  }

  update(): void {
    const servers = this._harness.snapshots();
    const active = servers.filter((s) => s.state.kind !== 'disabled');
    const running = active.filter((s) => s.state.kind === 'running');
    const busy = active.some((s) => s.state.kind === 'starting' || s.state.kind === 'reconnecting');
    const failed = active.filter((s) => s.state.kind === 'error');
    const awaiting = active.filter((s) => s.state.kind === 'blocked' && s.state.reason === AWAITING_APPROVAL);
    const tools = this._harness.tools().filter((t) => t.server === undefined || this._enablement.isEnabled(t.server, t.originalName)).length;
    const icon = busy ? '$(loading~spin)' : awaiting.length ? '$(shield)' : '$(plug)';
    this._item.text = `${icon} MCP ${running.length}/${active.length} · ${tools} ${tools === 1 ? 'tool' : 'tools'}`;
    this._item.backgroundColor = failed.length ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this._item.color = failed.length ? new vscode.ThemeColor('statusBarItem.warningForeground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['mcpHarness.approveServers'] };
    md.appendMarkdown(`**MCP servers**: ${running.length} of ${active.length} running, ${tools} tools enabled\n\n`);
    if (awaiting.length) {
      md.appendMarkdown(`$(shield) ${awaiting.length === 1 ? '1 server waits' : `${awaiting.length} servers wait`} for your approval: [Allow them to start](command:mcpHarness.approveServers)\n\n`);
    }
    for (const s of servers) md.appendMarkdown(`- ${escapeMarkdown(s.name)}: ${escapeMarkdown(stateLabel(s.state))}${s.state.kind === 'error' ? `: ${escapeMarkdown(s.state.message.split('\n')[0])}` : ''}\n`);
    if (tools > TOOL_LIMIT) {
      md.appendMarkdown(`\n$(warning) ${tools} tools are enabled; many models accept at most ${TOOL_LIMIT}. Uncheck tools in the MCP Servers view.`);
    }
    this._item.tooltip = md;
    this._item.accessibilityInformation = { label: `MCP: ${running.length} of ${active.length} servers running, ${tools} tools${failed.length ? `, ${failed.length} in error` : ''}` };
  }

  /** The text shown, for the view's own tests and for logs. */
  get text(): string {
    return this._item.text;
  }

  dispose(): void {
    for (const d of this._disposables) d.dispose();
    this._item.dispose();
  }
}
