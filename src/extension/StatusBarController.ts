import * as vscode from 'vscode';
import { describeTask, Disposable, type McpHarness } from '../core';
import { AWAITING_APPROVAL } from './ServerApprovals';
import { escapeMarkdown, stateLabel } from './serverPresentation';
import { statusAccessibleLabel, summarizeStates } from './statusSummary';
import type { ToolEnablement } from './ToolEnablement';

/** Many model APIs, and VS Code's own chat, refuse more tools than this in one request. */
export const TOOL_LIMIT = 128;

/**
 * `$(plug) MCP 3/4 · 27 tools`: running servers of those meant to run, and enabled tools.
 * Spins while a server starts or a reconnect attempt is under way; warning colours while a server is
 * in error or down between reconnect attempts.
 */
export class StatusBarController extends Disposable {
  private readonly _item = this._register(vscode.window.createStatusBarItem('mcpHarness.status', vscode.StatusBarAlignment.Left, 50));

  constructor(
    private readonly _harness: McpHarness,
    private readonly _enablement: ToolEnablement,
  ) {
    super();
    this._item.name = 'MCP Servers';
    this._item.command = 'mcpHarness.servers.focus';
    this._register(_harness.onDidChange(() => this.update()));
    this._register(_enablement.onDidChange(() => this.update()));
    this._register(_harness.onDidChangeTasks(() => this.update()));
    this.update();
    this._item.show();
  }

  update(): void {
    const servers = this._harness.snapshots();
    const summary = summarizeStates(
      servers.map((s) => s.state),
      (state) => state.kind === 'blocked' && state.reason === AWAITING_APPROVAL,
    );
    const { running, active } = summary;
    const tools = this._harness.tools().filter((t) => t.server === undefined || this._enablement.isEnabled(t.server, t.originalName)).length;
    const tasks = this._harness.tasks();
    const taskCount = tasks.length ? ` · ${tasks.length} ${tasks.length === 1 ? 'task' : 'tasks'}` : '';
    this._item.text = `$(${summary.icon}) MCP ${running}/${active} · ${tools} ${tools === 1 ? 'tool' : 'tools'}${taskCount}`;
    this._item.backgroundColor = summary.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this._item.color = summary.warning ? new vscode.ThemeColor('statusBarItem.warningForeground') : undefined;
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = { enabledCommands: ['mcpHarness.approveServers', 'mcpHarness.signIn'] };
    md.appendMarkdown(`**MCP servers**: ${running} of ${active} running, ${tools} tools enabled\n\n`);
    if (summary.awaitingApproval) {
      const waits = summary.awaitingApproval === 1 ? '1 server waits' : `${summary.awaitingApproval} servers wait`;
      md.appendMarkdown(`$(shield) ${waits} for your approval: [Allow them to start](command:mcpHarness.approveServers)\n\n`);
    }
    if (summary.needSignIn) {
      const needs = summary.needSignIn === 1 ? '1 server needs' : `${summary.needSignIn} servers need`;
      md.appendMarkdown(`$(account) ${needs} you to sign in: [Sign In](command:mcpHarness.signIn)\n\n`);
    }
    for (const s of servers) md.appendMarkdown(`- ${escapeMarkdown(s.name)}: ${escapeMarkdown(stateLabel(s.state))}${s.state.kind === 'error' ? `: ${escapeMarkdown(s.state.message.split('\n')[0])}` : ''}\n`);
    if (tasks.length) {
      const now = Date.now();
      md.appendMarkdown(`\n**Running tasks** (cancel one from its row in the MCP Servers view):\n`);
      for (const t of tasks) md.appendMarkdown(`- ${escapeMarkdown(t.title)} on ${escapeMarkdown(t.server)}: ${escapeMarkdown(describeTask(t, now))}\n`);
    }
    if (tools > TOOL_LIMIT) {
      md.appendMarkdown(`\n$(warning) ${tools} tools are enabled; many models accept at most ${TOOL_LIMIT}. Uncheck tools in the MCP Servers view.`);
    }
    this._item.tooltip = md;
    this._item.accessibilityInformation = { label: `${statusAccessibleLabel(summary, tools)}${tasks.length ? `, ${tasks.length} ${tasks.length === 1 ? 'task' : 'tasks'} running` : ''}` };
  }

  /** The text shown, for the view's own tests and for logs. */
  get text(): string {
    return this._item.text;
  }
}
