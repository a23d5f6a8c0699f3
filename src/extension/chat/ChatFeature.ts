import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, type HarnessTool, type McpHarness } from '../../core';
import { AuditLog, PermissionGate, type IApprovalStore } from '../../core/permissions';
import type { ChatActionId } from '../../shared/chatProtocol';
import { ChatHistoryStore, ChatSession } from '../../core/chat';
import { ChatModels, type ApiProviderId } from './ChatModels';
import { CHAT_VIEW_ID, ChatViewProvider } from './ChatViewProvider';

const APPROVALS_KEY = 'mcpHarness.toolApprovals';

/**
 * The chat in this window: the view, its session, the permission gate with its remembered
 * approvals, the audit log, and the chat's commands. One disposable for the extension's root.
 */
export class ChatFeature extends Disposable {
  readonly session: ChatSession;
  readonly gate: PermissionGate;
  readonly audit: AuditLog;
  private readonly _models: ChatModels;
  private readonly _view: ChatViewProvider;

  constructor(
    context: vscode.ExtensionContext,
    private readonly _harness: McpHarness,
    enabledTools: () => HarnessTool[],
    private readonly _log: vscode.LogOutputChannel,
  ) {
    super();
    const harness = _harness;
    const storage = context.storageUri ?? context.globalStorageUri;
    this.audit = new AuditLog(path.join(storage.fsPath, 'audit.jsonl'), { onError: (err) => _log.warn(`audit log: ${err}`) });
    const store: IApprovalStore = {
      get: async () => context.workspaceState.get<Record<string, string>>(APPROVALS_KEY, {}),
      set: async (entries) => context.workspaceState.update(APPROVALS_KEY, entries),
    };
    // The session answers the cards; it needs the gate, so the gate asks it through this late binding.
    let session: ChatSession | undefined;
    this.gate = new PermissionGate({
      prompter: { ask: (request, signal) => (session ? session.prompter.ask(request, signal) : Promise.resolve({ choice: 'deny', reason: 'the chat is closed' })) },
      store,
      rules: () => {
        const s = vscode.workspace.getConfiguration('mcpHarness.permissions');
        return { allow: s.get<string[]>('allow', []), deny: s.get<string[]>('deny', []), autoAllowReadOnly: s.get<boolean>('autoAllowReadOnly', false) };
      },
    });
    this._models = new ChatModels(context.secrets, context.globalState);
    this._view = new ChatViewProvider(context.extensionUri, { initMessage: () => ({ type: 'init', state: this.session.state() }), requests: () => this.session.requests }, _log);
    this.session = session = new ChatSession({
      enabledTools,
      servers: () => harness.servers(),
      call: (request, options) => harness.call(request, options),
      gate: this.gate,
      audit: this.audit,
      hooks: harness.chatHooks,
      history: new ChatHistoryStore(context.workspaceState),
      models: async () => {
        const entries = await this._models.list();
        return { entries, selected: this._models.pick(entries) };
      },
      selectModel: (id) => this._models.remember(id),
      settings: () => {
        const s = vscode.workspace.getConfiguration('mcpHarness.chat');
        return {
          maxSteps: s.get<number>('maxSteps', 25),
          toolSearch: { maxTools: s.get<number>('toolSearch.maxTools', 64), maxSchemaShare: s.get<number>('toolSearch.maxSchemaShare', 0.1) },
        };
      },
      post: (m) => this._view.post(m),
      runAction: (action) => this._runAction(action),
      copy: async (text) => vscode.env.clipboard.writeText(text),
      log: (line) => _log.warn(line),
    });
    // The session goes first: it stops the running turn while the view can still show it.
    this._register({ dispose: () => this.session.dispose() });
    this._register(this._models);
    this._register(this._view);
    this._register(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this._view));
    this._register(this._models.onDidChange(() => void this._refreshModels()));
    this._register(vscode.commands.registerCommand('mcpHarness.openChat', () => this.open()));
    this._register(vscode.commands.registerCommand('mcpHarness.newChat', () => this.session.newChat()));
    this._register(vscode.commands.registerCommand('mcpHarness.setApiKey', (provider?: ApiProviderId) => this.setApiKey(provider)));
    this._register(vscode.commands.registerCommand('mcpHarness.resetApprovals', () => this.resetApprovals()));
    this._register(vscode.commands.registerCommand('mcpHarness.showAuditLog', () => this.showAuditLog()));
  }

  /** Whether the chat view is on screen: servers' questions go there as cards. */
  get viewVisible(): boolean {
    return this._view.visible;
  }

  /** Lists the models for the picker (VS Code's may take a moment to register). */
  start(): void {
    void this._refreshModels();
  }

  /** "MCP: Open Chat": shows and focuses the chat view wherever the user moved it. */
  async open(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** "MCP: Set API Key...": kept in secret storage; an empty entry removes it. */
  async setApiKey(provider?: ApiProviderId): Promise<void> {
    const id =
      provider ??
      (
        await vscode.window.showQuickPick(
          [
            { label: 'OpenAI-compatible', description: 'mcpHarness.chat.openai.baseUrl', id: 'openai' as const },
            { label: 'Anthropic', description: 'mcpHarness.chat.anthropic.baseUrl', id: 'anthropic' as const },
          ],
          { title: 'Set the API key for' },
        )
      )?.id;
    if (!id) return;
    const key = await vscode.window.showInputBox({
      title: `API key for ${id === 'openai' ? 'the OpenAI-compatible API' : 'Anthropic'}`,
      prompt: 'Kept in VS Code\'s secret storage. Leave empty to remove the stored key.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    await this._models.setApiKey(id, key.trim() || undefined);
    void vscode.window.showInformationMessage(key.trim() ? 'MCP: API key stored.' : 'MCP: API key removed.');
  }

  /** "MCP: Reset Tool Approvals": forgets session, server and workspace approvals. */
  async resetApprovals(): Promise<void> {
    await this.gate.reset();
    this._harness.resetAskApprovals();
    void vscode.window.showInformationMessage('MCP: tool approvals reset; every tool and every server sampling request asks again.');
  }

  /** "MCP: Show Audit Log": the JSON lines file of every MCP call the chat made or refused. */
  async showAuditLog(): Promise<void> {
    const file = this.audit.filePath;
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.appendFile(file, '');
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  }

  /** Saves the open conversation (the window is closing). */
  flush(): Promise<void> {
    return this.session.flush();
  }

  private async _refreshModels(): Promise<void> {
    try {
      await this.session.refreshModels();
    } catch (err) {
      this._log.warn(`chat: listing models failed: ${err}`);
    }
  }

  private async _runAction(action: ChatActionId): Promise<void> {
    switch (action) {
      case 'setApiKey':
        return this.setApiKey();
      case 'openSettings':
        await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpHarness.chat');
        return;
      case 'showAuditLog':
        return this.showAuditLog();
      case 'resetApprovals':
        return this.resetApprovals();
    }
  }
}
