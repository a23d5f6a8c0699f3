import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, type HarnessTool, type McpHarness } from '../../core';
import { AuditLog, PermissionGate, type IApprovalStore } from '../../core/permissions';
import type { ChatActionId } from '../../shared/chatProtocol';
import { ChatHistoryStore, ChatRequestError, ChatSession } from '../../core/chat';
import { ChangePreviewDocuments } from './ChangePreviewDocuments';
import { DiskToolResultStore } from '../../core/agent';
import { ChatModels, type ApiProviderId } from './ChatModels';
import { manageApprovals } from './ManageApprovals';
import { pickContext } from './pickContext';
import { ResourceDocuments } from './ResourceDocuments';
import { CHAT_VIEW_ID, ChatViewProvider } from './ChatViewProvider';
import { ChatAppsHost } from './appsHost';
import { errorMessage } from '../../core/base/errors';

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
    const changes = this._register(new ChangePreviewDocuments());
    const apps = this._register(new ChatAppsHost());
    const resources = this._register(new ResourceDocuments());
    this._view = new ChatViewProvider(context.extensionUri, { initMessage: () => ({ type: 'init', state: this.session.state() }), requests: () => this.session.requests }, _log, () => apps.frameOrigin());
    // Large results live beside the audit log, one folder per conversation, removed with it.
    const results = new DiskToolResultStore(path.join(storage.fsPath, 'tool-results'));
    const history = new ChatHistoryStore(context.workspaceState);
    void results.prune(new Set(history.list().map((c) => c.id).concat(history.currentId() ?? [])));
    this.session = session = new ChatSession({
      // Tools only apps may call (MCP Apps) are never offered to the model.
      enabledTools: () => enabledTools().filter((t) => !this.session.apps?.isAppOnly(t)),
      apps: { servers: harness, host: apps },
      servers: () => harness.servers(),
      call: (request, options) => harness.call(request, options),
      gate: this.gate,
      audit: this.audit,
      hooks: harness.chatHooks,
      history,
      results,
      openResult: (result) => this._openResult(result),
      models: async () => {
        const entries = await this._models.list();
        return { entries, selected: this._models.pick(entries) };
      },
      selectModel: (id) => this._models.remember(id),
      settings: () => {
        const s = vscode.workspace.getConfiguration('mcpHarness.chat');
        return {
          maxSteps: s.get<number>('maxSteps', 25),
          suggestions: s.get<unknown[]>('suggestions', []).filter((v): v is string => typeof v === 'string'),
          toolSearch: { maxTools: s.get<number>('toolSearch.maxTools', 64), maxSchemaShare: s.get<number>('toolSearch.maxSchemaShare', 0.1) },
          autoCompactThreshold: s.get<number>('autoCompactThreshold', 0.8),
        };
      },
      post: (m) => this._view.post(m),
      runAction: (action) => this._runAction(action),
      copy: async (text) => vscode.env.clipboard.writeText(text),
      insert: async (text) => {
        const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
        if (!editor) throw new ChatRequestError('Open a file to insert the code into.');
        await editor.edit((edit) => edit.replace(editor.selection, text));
      },
      log: (line) => _log.warn(line),
      workspaceFolders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      showChange: (change) => changes.show(change),
      pickContext: () => pickContext(harness),
      serverItems: harness,
      openResource: (resource) => resources.show(resource),
      cancelTask: (server, taskId) => harness.cancelTask(server, taskId),
    });
    // The session goes first: it stops the running turn while the view can still show it.
    this._register({ dispose: () => this.session.dispose() });
    // A task a previous window's turn started ended: its result goes to that conversation.
    const finished = harness.onDidFinishTask((f) => void session!.deliverTaskResult(f).catch((err) => _log.warn(`chat: delivering the result of task ${f.task.taskId} failed: ${err}`)));
    this._register({ dispose: () => finished.dispose() });
    // Until then, the cards of those tasks follow their state (the tree's row has the details).
    this._register(harness.onDidChangeTasks(() => session!.showTaskStates(harness.tasks())));
    this._register(this._models);
    this._register(this._view);
    // Apps in the cards keep their state while the view is hidden (a re-created page would start them again).
    this._register(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this._view, { webviewOptions: { retainContextWhenHidden: true } }));
    this._register(this._models.onDidChange(() => void this._refreshModels()));
    this._register(vscode.commands.registerCommand('mcpHarness.openChat', () => this.open()));
    this._register(vscode.commands.registerCommand('mcpHarness.openChatInEditor', () => this._view.openEditor()));
    this._register(vscode.commands.registerCommand('mcpHarness.newChat', () => this.session.newChat()));
    this._register(vscode.commands.registerCommand('mcpHarness.compactConversation', () => this._compact()));
    this._register(vscode.commands.registerCommand('mcpHarness.setApiKey', (provider?: ApiProviderId) => this.setApiKey(provider)));
    this._register(vscode.commands.registerCommand('mcpHarness.addModel', () => this.addModel()));
    this._register(vscode.commands.registerCommand('mcpHarness.resetApprovals', () => this.resetApprovals()));
    this._register(vscode.commands.registerCommand('mcpHarness.manageApprovals', () => manageApprovals(this.gate)));
    this._register(vscode.commands.registerCommand('mcpHarness.showAuditLog', () => this.showAuditLog()));
  }

  /** A kept result in an editor: its file (read-only use; the model never reads edits back). */
  private async _openResult(result: { handle: string; toolName: string; path?: string; text: string }): Promise<void> {
    const document = result.path
      ? await vscode.workspace.openTextDocument(vscode.Uri.file(result.path))
      : await vscode.workspace.openTextDocument({ content: result.text, language: 'plaintext' });
    await vscode.window.showTextDocument(document, { preview: true });
  }

  private async _compact(): Promise<void> {
    try {
      await this.session.compact();
    } catch (err) {
      void vscode.window.showWarningMessage(errorMessage(err));
    }
  }

  /** Whether the chat view is on screen: servers' questions go there as cards. */
  get viewVisible(): boolean {
    return this._view.visible;
  }

  /** Lists the models for the picker (VS Code's may take a moment to register). */
  start(): void {
    void this._refreshModels();
  }

  /** "MCP: Open Chat": shows the chat view wherever the user moved it, caret in the message box. */
  async open(): Promise<void> {
    await this._view.focusView();
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

  /**
   * "MCP: Add Model...": points the OpenAI-compatible or Anthropic provider at a base URL and model
   * (user settings) with its key in secret storage, and picks that model. One endpoint per kind:
   * adding another replaces the one configured.
   */
  async addModel(): Promise<void> {
    const kind = (
      await vscode.window.showQuickPick(
        [
          { label: 'OpenAI-compatible', detail: 'OpenAI, Ollama, LM Studio, vLLM, OpenRouter...', id: 'openai' as const },
          { label: 'Anthropic', detail: 'the Anthropic Messages API', id: 'anthropic' as const },
        ],
        { title: 'Add Model: which kind of API?' },
      )
    )?.id;
    if (!kind) return;
    const settings = vscode.workspace.getConfiguration('mcpHarness.chat');
    const baseUrl = await vscode.window.showInputBox({
      title: 'Add Model: base URL',
      value: settings.get<string>(`${kind}.baseUrl`) ?? '',
      prompt: kind === 'openai' ? 'e.g. https://api.openai.com/v1, or http://127.0.0.1:11434/v1 for Ollama' : 'e.g. https://api.anthropic.com',
      ignoreFocusOut: true,
      validateInput: (v) => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'An http:// or https:// URL'),
    });
    if (baseUrl === undefined) return;
    const model = await vscode.window.showInputBox({ title: 'Add Model: model id', value: settings.get<string>(`${kind}.model`) ?? '', ignoreFocusOut: true, validateInput: (v) => (v.trim() ? undefined : 'A model id') });
    if (model === undefined) return;
    const key = await vscode.window.showInputBox({
      title: 'Add Model: API key',
      prompt: "Kept in VS Code's secret storage. Leave empty for a local server that needs none (or to keep the stored key).",
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    await settings.update(`${kind}.baseUrl`, baseUrl.trim(), vscode.ConfigurationTarget.Global);
    await settings.update(`${kind}.model`, model.trim(), vscode.ConfigurationTarget.Global);
    if (key.trim()) await this._models.setApiKey(kind, key.trim());
    await this._models.remember(`${kind}:${model.trim()}`);
    await this._refreshModels();
    void vscode.window.showInformationMessage(`MCP: ${model.trim()} added to the chat's models.`);
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
