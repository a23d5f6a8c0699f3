import * as vscode from 'vscode';
import { Disposable, HARNESS_VERSION, McpHarness, type HarnessApplyResult, type HarnessTool, type HookApprovals, type McpServerPolicyState } from '../core';
import { ChatFeature } from './chat/ChatFeature';
import { registerCommands } from './commands';
import { VscodeAuthHost } from './VscodeAuthHost';
import { readUserServers, SETTINGS_SECTION, type IgnoredUserServers } from './ConfigFiles';
import { ConfigWatcher } from './ConfigWatcher';
import { HookFeature, readHookSettings } from './HookFeature';
import { ServerApprovals } from './ServerApprovals';
import { ServerDiscovery, type McpServerProvider } from './ServerDiscovery';
import { importServersCommand } from './ImportServers';
import { readServerPolicy } from './ServerPolicySetting';
import { copyServerConfigurationCommand, GatewayDefinitionProvider } from './ServeIntegration';
import { serverAskOptions } from './ServerAskFeature';
import { ServerLogs } from './ServerLogs';
import { ServerTreeProvider, type ServerTreeNode } from './ServerTreeProvider';
import { StatusBarController } from './StatusBarController';
import { TaskFeature, WorkspaceTaskStore } from './TaskFeature';
import { ToolEnablement } from './ToolEnablement';
import { VscodeInputResolver } from './VscodeInputResolver';

/** What the extension offers other extensions (and its own tests) from `activate()`. */
export interface McpHarnessApi {
  readonly harness: McpHarness;
  /** How long `activate()` itself took, in milliseconds. */
  readonly activationMs: number;
  /** Tools the user left enabled: what an agent may offer a model. */
  enabledTools(): HarnessTool[];
  readonly onDidChangeEnabledTools: vscode.Event<void>;
  /** The status bar text, e.g. `$(plug) MCP 3/4 · 27 tools`. */
  statusText(): string;
  /**
   * Adds the servers a provider gives (VS Code's `McpServerDefinitionProvider` shape: stdio
   * definitions with `command`, HTTP ones with `uri`), shown as `<id>:<label>`. They start after
   * the same approval as a workspace's servers; disposing the result removes them.
   */
  registerServerProvider(id: string, provider: McpServerProvider): vscode.Disposable;
}

/**
 * The extension's one root object: owns the harness and every piece of UI over it. The shell is
 * thin: state lives in the core; this wires it to VS Code and disposes it all together.
 */
export class McpHarnessExtension extends Disposable {
  readonly harness: McpHarness;
  private readonly _log = vscode.window.createOutputChannel('MCP Harness', { log: true });
  private readonly _enablement: ToolEnablement;
  private readonly _status: StatusBarController;
  private readonly _chat: ChatFeature;
  private readonly _hookApprovals: HookApprovals;
  private readonly _discovery: ServerDiscovery;
  private _serverCount: number | undefined;
  /** The last ignored-settings report, so that an unchanged one is not shown again at every reload. */
  private _ignoredReport = '';
  /** The last broken-policy report, likewise. */
  private _policyReport = '';

  constructor(context: vscode.ExtensionContext) {
    super();
    // deactivate() awaits shutdown(); this is for a host that only disposes.
    this._register({ dispose: () => void this.shutdown() });
    const logs = this._register(new ServerLogs((server) => this.harness.applyLogLevel(server)));
    const inputs = new VscodeInputResolver(context.secrets, context.globalState);
    const approvals = this._register(new ServerApprovals(context.workspaceState, (names) => void this._startAll(names)));
    this._enablement = this._register(new ToolEnablement(context.workspaceState));
    const authHost = this._register(new VscodeAuthHost(context));
    this._hookApprovals = HookFeature.createApprovals(context.workspaceState);
    this._discovery = this._register(new ServerDiscovery(context, (m) => this._log.warn(m)));
    this.harness = new McpHarness({
      ...this._readHostConfig(),
      authHost,
      inputResolver: inputs,
      checkStart: (def) => approvals.check(def),
      traceEnabled: (server) => logs.isTracing(server),
      logLevel: (server) => logs.mcpLevel(server),
      // The chat is created below; questions reach it (or the input flow) through this late binding.
      asks: serverAskOptions(() => this._chat, this._log),
      // The chat renders MCP Apps: servers are told, and offer their UI tools.
      handlers: { apps: true },
      // Tool calls that became tasks are followed again after a window reload.
      taskStore: new WorkspaceTaskStore(context.workspaceState),
    });
    this._register(this.harness.onDidLog((e) => logs.append(e)));
    this._register(this.harness.onDidChange(() => this._updateContext()));

    const tree = this._register(new ServerTreeProvider(this.harness, this._enablement));
    const view = this._register(vscode.window.createTreeView<ServerTreeNode>('mcpHarness.servers', { treeDataProvider: tree, showCollapseAll: true }));
    this._register(
      view.onDidChangeCheckboxState((e) => {
        for (const [node, state] of e.items) {
          if (node.kind === 'tool') void this._enablement.setEnabled(node.server, node.tool, state === vscode.TreeItemCheckboxState.Checked);
        }
      }),
    );
    this._register(new HookFeature(this.harness, this._hookApprovals));
    this._register(new TaskFeature(this.harness));
    this._status = this._register(new StatusBarController(this.harness, this._enablement));
    this._chat = this._register(new ChatFeature(context, this.harness, () => this._enabledTools(), this._log));
    for (const command of registerCommands({ harness: this.harness, approvals, logs, inputs, enablement: this._enablement, reload: (o) => this.reload(o) })) this._register(command);
    this._register(vscode.commands.registerCommand('mcpHarness.copyServerConfiguration', () => copyServerConfigurationCommand(context.extensionPath)));
    this._register(new GatewayDefinitionProvider(context.extensionPath, SETTINGS_SECTION, HARNESS_VERSION));
    this._register(new ConfigWatcher(() => void this.reload({ restartFailed: false }).catch((err) => this._log.error(`applying the configuration failed: ${err}`))));
    const reload = () => void this.reload({ restartFailed: false }).catch((err) => this._log.error(`applying the configuration failed: ${err}`));
    this._register(this._discovery.onDidChange(reload));
    this._register(vscode.commands.registerCommand('mcpHarness.importServers', () => importServersCommand(this.harness, this._discovery, () => this.reload({ restartFailed: false }))));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this._startAll(this._blocked())));
  }

  /** Loads the configuration and connects in the background. */
  start(): void {
    this._chat.start();
    void this.harness.start().then(
      () => {
        const servers = this.harness.servers();
        this._log.info(`configuration applied: ${servers.length} servers, ${servers.filter((s) => s.state === 'running').length} running`);
        // Tasks a previous window left running: their results go to the conversations that started them.
        this.harness.resumeTasks().catch((err) => this._log.warn(`picking up running tasks failed: ${err}`));
        for (const e of this.harness.configErrors()) this._log.warn(`config: ${e.file}${e.line ? `:${e.line}:${e.column}` : ''}: ${e.jsonPath ?? ''} ${e.message}`);
      },
      (err) => this._log.error(`starting failed: ${err}`),
    );
  }

  /** Re-reads every config location (and the settings) and applies the result as a diff. */
  async reload(options: { restartFailed: boolean }): Promise<HarnessApplyResult> {
    const result = await this.harness.applyConfig(this._readHostConfig(), { restartFailed: options.restartFailed, wait: false });
    this._log.info(`configuration: +${result.added.length} added, ${result.restarted.length} restarted, ${result.removed.length} removed, ${result.unchanged.length} unchanged, ${result.configErrors.length} config errors`);
    return result;
  }

  api(activationMs: number): McpHarnessApi {
    return {
      harness: this.harness,
      activationMs,
      enabledTools: () => this._enabledTools(),
      onDidChangeEnabledTools: (listener, thisArg, disposables) => {
        const a = this._enablement.onDidChange(listener, thisArg, disposables);
        const b = toVscode(this.harness.onDidChangeTools(() => listener.call(thisArg)));
        return vscode.Disposable.from(a, b);
      },
      statusText: () => this._status.text,
      registerServerProvider: (id, provider) => this._discovery.registerProvider(id, provider),
    };
  }

  log(message: string): void {
    this._log.info(message);
  }

  /** Saves the chat, stops every server and waits until their processes are gone (safe to call twice). */
  async shutdown(): Promise<void> {
    // Running tasks keep running on their servers (and are picked up after a reload): stopping the chat's turn must not cancel them.
    this.harness.suspendTasks();
    this._chat.session.stop();
    await this._chat.flush().catch((err) => this._log.warn(`chat: saving on exit failed: ${err}`));
    await this.harness.dispose();
  }

  override dispose(): void {
    super.dispose();
    this._log.dispose();
  }

  private _enabledTools(): HarnessTool[] {
    return this.harness.tools().filter((t) => t.server === undefined || this._enablement.isEnabled(t.server, t.originalName));
  }

  /** What the harness takes from the editor; settings it will not use are reported here. */
  private _readHostConfig() {
    const { userServers, ignored } = readUserServers();
    const hooks = readHookSettings(this._hookApprovals);
    this._reportIgnored(ignored, hooks.ignored);
    const host = readHostConfig(userServers);
    this._reportPolicy(host.serverPolicy);
    return { ...host, ...this._discovery.hostOptions(), hooks: hooks.options };
  }

  /** A broken server policy is said once per distinct problem: until it is fixed no server starts. */
  private _reportPolicy(policy: McpServerPolicyState | undefined): void {
    const problem = policy && !policy.ok ? policy.error : '';
    if (problem === this._policyReport) return;
    this._policyReport = problem;
    if (!problem) return;
    this._log.error(`server policy: ${problem}; no server starts until it is fixed`);
    void vscode.window.showErrorMessage(`MCP: the server policy is broken (${problem}); no server starts until it is fixed.`, 'Open User Settings').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettingsJson');
    });
  }

  private _reportIgnored(ignored: readonly IgnoredUserServers[], hookSettings: readonly string[]): void {
    const hooks = hookSettings.length ? ` ${hookSettings.join(' and ')} in workspace settings ${hookSettings.length === 1 ? 'is' : 'are'} not used: a workspace's hooks belong in .harness/hooks.json, where they need your approval.` : '';
    const report = (ignored.map((i) => `mcpHarness.servers in ${i.where} (${i.names.join(', ')}) is not used: ${i.reason}.`).join(' ') + hooks).trim();
    if (report === this._ignoredReport) return;
    this._ignoredReport = report;
    if (!report) return;
    this._log.warn(report);
    void vscode.window.showWarningMessage(`MCP: ${report}`, 'Open Workspace Settings').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', { query: 'mcpHarness.servers' });
    });
  }

  private _blocked(): string[] {
    return this.harness.snapshots().filter((s) => s.state.kind === 'blocked').map((s) => s.name);
  }

  private async _startAll(names: string[]): Promise<void> {
    await Promise.all(names.map((n) => this.harness.startServer(n).catch((err) => this._log.error(`starting ${n} failed: ${err}`))));
  }

  /** Context keys for the welcome view; set only when the count changes, not on every state event. */
  private _updateContext(): void {
    const count = this.harness.snapshots().length;
    if (count === this._serverCount) return;
    if (this._serverCount === undefined) void vscode.commands.executeCommand('setContext', 'mcpHarness.ready', true);
    this._serverCount = count;
    void vscode.commands.executeCommand('setContext', 'mcpHarness.serverCount', count);
  }

}

/** What the harness takes from the editor: folders, the user's servers, and the settings. */
function readHostConfig(userServers: ReturnType<typeof readUserServers>['userServers']) {
  const settings = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return {
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    userServers,
    toolTimeoutMs: settings.get<number>('toolTimeoutMs'),
    maxOutputChars: settings.get<number>('maxOutputChars'),
    maxOutputCharsPerTool: settings.get<Record<string, number>>('maxOutputCharsPerTool'),
    inheritEnv: settings.get<boolean>('inheritEnvironment'),
    serverPolicy: readServerPolicy(),
  };
}

function toVscode(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}
