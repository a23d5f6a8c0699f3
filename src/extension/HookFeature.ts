import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, HookApprovals, hookApprovalKey, hookLabel, type HarnessHookOptions, type HookDefinition, type HookRunRecord, type McpHarness } from '../core';
import { SETTINGS_SECTION } from './ConfigFiles';

const APPROVALS_KEY = 'mcpHarness.approvedHooks';
export const HOOKS_SETTING = 'hooks';
export const CLAUDE_HOOKS_SETTING = 'claudeCodeHooks';

/**
 * Hooks in this window: the user's `mcpHarness.hooks` setting, each folder's `.harness/hooks.json`
 * and (opted in) `.claude/settings.json`; the approval of a workspace's hooks (asked once per
 * hook and again when it changes, never in an untrusted workspace); "MCP: Show Hook Log", the
 * output channel of every run.
 */
export class HookFeature extends Disposable {
  /** The approvals the harness's `permit` asks; made before the harness, which needs them. */
  static createApprovals(state: vscode.Memento): HookApprovals {
    return new HookApprovals({ get: () => state.get<string[]>(APPROVALS_KEY, []), set: (keys) => Promise.resolve(state.update(APPROVALS_KEY, [...keys])) }, () => vscode.workspace.isTrusted);
  }

  private readonly _channel = this._register(vscode.window.createOutputChannel('MCP Hooks', { log: true }));

  constructor(
    private readonly _harness: McpHarness,
    private readonly _approvals: HookApprovals,
  ) {
    super();
    this._register(_approvals);
    this._register(_harness.onDidRunHook((run) => this._log(run)));
    this._register(_approvals.onDidRequest((hooks) => void this._ask(hooks)));
    this._register(_harness.onDidChangeHooks(() => _approvals.retain(_harness.hooks().map((s) => s.hook))));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => _harness.refreshHooks()));
    this._register(vscode.commands.registerCommand('mcpHarness.showHookLog', () => this._channel.show(true)));
    this._register(vscode.commands.registerCommand('mcpHarness.approveHooks', () => this.approvePending()));
  }

  /** "MCP: Approve Workspace Hooks": lets every hook that waits for approval run. */
  async approvePending(): Promise<void> {
    const pending = this._approvals.pending();
    if (pending.length === 0) {
      void vscode.window.showInformationMessage(vscode.workspace.isTrusted ? 'MCP: no hook is waiting for approval.' : 'MCP: this workspace is not trusted; its hooks do not run.');
      return;
    }
    await this._approve(pending);
  }

  private async _approve(hooks: readonly HookDefinition[]): Promise<void> {
    await this._approvals.approve(hooks);
    this._harness.refreshHooks();
  }

  /** One question per file: "Run 2 hooks from .harness/hooks.json?"; "Show Commands" lists exactly what would run. */
  private async _ask(hooks: readonly HookDefinition[]): Promise<void> {
    const byFile = new Map<string, HookDefinition[]>();
    for (const hook of hooks) byFile.set(hook.origin.file, [...(byFile.get(hook.origin.file) ?? []), hook]);
    await Promise.all(
      [...byFile].map(async ([file, defs]) => {
        const label = relativeLabel(file);
        const count = defs.length === 1 ? '1 hook' : `${defs.length} hooks`;
        const events = [...new Set(defs.map((d) => d.event))].join(', ');
        let answer = await vscode.window.showWarningMessage(`Run ${count} from ${label} (${events})? They run commands around tool calls.`, 'Allow', 'Show Commands', 'Not Now');
        if (answer === 'Show Commands') {
          const detail = defs.map((d) => `${d.event}${d.matcher ? ` [${d.matcher}]` : ''}: ${d.command}`).join('\n\n');
          answer = await vscode.window.showWarningMessage(`Run ${count} from ${label}?`, { modal: true, detail }, 'Allow');
        }
        if (answer !== 'Allow') return;
        // Only what is still waiting: an edit meanwhile asks again.
        const still = new Set(this._approvals.pending().map(hookApprovalKey));
        await this._approve(defs.filter((d) => still.has(hookApprovalKey(d))));
      }),
    );
  }

  private _log(run: HookRunRecord): void {
    const what = [run.hookEvent, run.tool, run.outcome, `${run.durationMs} ms`].filter(Boolean).join(' ');
    const detail = run.detail ? `: ${run.detail}` : '';
    const changed = run.changed?.length ? ` (changed ${run.changed.join(', ')})` : '';
    const line = `${what}${detail}${changed} <- ${run.hook} (${relativeLabel(run.hookId.slice(0, run.hookId.lastIndexOf('#')))})`;
    if (run.outcome === 'error') this._channel.error(line);
    else if (run.outcome === 'deny' || run.outcome === 'block' || run.outcome === 'stop' || run.outcome === 'skipped') this._channel.warn(line);
    else this._channel.info(line);
    if (run.stderr) this._channel.debug(`stderr: ${run.stderr}`);
  }
}

/**
 * What the harness takes from the editor about hooks: `mcpHarness.hooks` and
 * `mcpHarness.claudeCodeHooks` as the user set them (workspace values are returned in `ignored`,
 * so they are reported rather than dropped without a word), and who may run.
 */
export function readHookSettings(approvals: HookApprovals): { options: HarnessHookOptions; ignored: string[] } {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const hooks = config.inspect<unknown>(HOOKS_SETTING);
  const claude = config.inspect<boolean>(CLAUDE_HOOKS_SETTING);
  const ignored = [
    ...(isSet(hooks?.workspaceValue) || isSet(hooks?.workspaceFolderValue) ? [`mcpHarness.${HOOKS_SETTING}`] : []),
    ...(claude?.workspaceValue !== undefined || claude?.workspaceFolderValue !== undefined ? [`mcpHarness.${CLAUDE_HOOKS_SETTING}`] : []),
  ];
  return {
    options: {
      user: { label: 'settings.json', path: ['mcpHarness', HOOKS_SETTING], value: hooks?.globalValue ?? {} },
      claudeSettings: claude?.globalValue === true,
      permit: (hook) => approvals.permit(hook),
    },
    ignored,
  };
}

/** What the tree shows of a hook: its event, matcher and command, and where it comes from. */
export function describeHook(hook: HookDefinition): { label: string; description: string; origin: string } {
  const origin = hook.origin.source === 'user' ? 'user settings' : `${relativeLabel(hook.origin.file)}${hook.origin.line ? `:${hook.origin.line}` : ''}`;
  return { label: `${hook.event}${hook.matcher ? ` ${hook.matcher}` : ''}`, description: hookLabel(hook), origin };
}

function isSet(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}

function relativeLabel(file: string): string {
  if (!path.isAbsolute(file)) return file;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  return folder ? path.relative(folder.uri.fsPath, file) : path.basename(file);
}
