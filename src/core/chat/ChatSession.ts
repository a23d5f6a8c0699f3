// Over 300 lines: the session is the one owner of a conversation's order of events (turns, direct
// commands, cards, change previews, history, the context budget and compaction); the parts it
// delegates to (transcript, prompter, budget, compaction, hooks, previews) live in files of their own.
import { randomUUID } from 'node:crypto';
import { DIRECT_COMMANDS_HELP, DirectCommands, parseDirectCommand, type DirectCommandServer } from '../agent/DirectCommands';
import { DEFAULT_SYSTEM_PROMPT, McpAgent } from '../agent/McpAgent';
import { MemoryToolResultStore, type IToolResultStore } from '../agent/results/ToolResultStore';
import { ModelToolCalls, type AgentCallTool } from '../agent/ModelToolCalls';
import type { ToolSearchBudget } from '../tools/search';
import type { AgentEvent, ChatMessage, IModelProvider, ModelImage } from '../agent/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import type { ChatActionId, ChatItem, ChatModelChoice, ChatViewState, HostMessage, WebviewRequestHandlers } from '../../shared/chatProtocol';
import { ChatBudget } from './ChatBudget';
import { ChatHooks, type IChatHooks } from './ChatHooks';
import { makeRoom } from './compactConversation';
import { ChatAskError, ChatAsks } from './ChatAsks';
import { ChatPrompter } from './ChatPrompter';
import { ChatTranscript, type IChangeDescriber } from './ChatTranscript';
import { fileChange, unifiedDiff, type FileChange } from './ChangePreview';
import { modelMessage, type ChatAttachment } from './ChatContext';
import { ChatAttachments } from './ChatAttachments';
import { ChatRequestError } from './ChatRequestError';
import { contextRequests, type ContextRequestsOptions } from './contextRequests';
import type { IChatServerItems } from './ChatServerItems';
import { errorMessage } from '../base/errors';
import { titleFor, type ChatHistoryStore, type StoredConversation } from './ChatHistoryStore';
import { ChatApps, type AppRequestType, type IAppServers, type IChatAppsHost } from './ChatApps';
import { deliverTaskResult, taskCardUpdates } from './chatTaskResults';
import type { FinishedTask, HarnessTask } from '../tasks/taskTypes';

/** A model the chat can use: what the picker shows, and how to reach it. */
export interface ChatModelEntry {
  readonly choice: ChatModelChoice;
  readonly provider: IModelProvider;
  readonly model: string;
  readonly contextWindow?: number;
}

export { ChatRequestError };

/** How to get a model, shown when none is available. */
export const NO_MODEL_HELP = [
  '**No language model is available.** To get one, either:',
  '- install an extension that provides VS Code language models (GitHub Copilot Chat, or any other), or',
  '- run **MCP: Set API Key...** for OpenAI or Anthropic (or set `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`), and pick it with `mcpHarness.chat.provider`, or',
  '- run a local model and point `mcpHarness.chat.openai.baseUrl` at it (Ollama: `http://127.0.0.1:11434/v1`, LM Studio: `http://127.0.0.1:1234/v1`; no key needed).',
  '',
  DIRECT_COMMANDS_HELP,
].join('\n');

/** Default share of the context window past which a conversation is compacted after a turn. */
export const DEFAULT_AUTO_COMPACT_THRESHOLD = 0.8;

export interface ChatSessionOptions {
  enabledTools(): readonly HarnessTool[];
  servers(): readonly DirectCommandServer[];
  /** The harness's pipeline (`McpHarness.call`). */
  readonly call: AgentCallTool;
  /** The permission gate; it asks through this session's {@link ChatSession.prompter}. */
  readonly gate: ICallDecider;
  readonly audit?: IAuditSink;
  readonly history: ChatHistoryStore;
  /** The models on offer now and the one to use. */
  models(): Promise<{ entries: readonly ChatModelEntry[]; selected?: ChatModelEntry }>;
  selectModel(id: string): Promise<void>;
  /** `autoCompactThreshold`: share of the context window (0 to 1) past which the conversation is compacted after a turn; 0 never. */
  settings(): { maxSteps: number; toolSearch: ToolSearchBudget; suggestions?: readonly string[]; autoCompactThreshold?: number };
  post(message: HostMessage): void;
  runAction(action: ChatActionId): Promise<void>;
  copy(text: string): Promise<void>;
  /** Inserts a code block at the editor's cursor; throws a ChatRequestError when there is no editor. */
  insert?(text: string): Promise<void>;
  log(line: string): void;
  /** UserPromptSubmit and SessionStart hooks (the harness's `chatHooks`). */
  readonly hooks?: IChatHooks;
  /** Folders relative paths of writes and commands resolve against (the first one). */
  workspaceFolders?(): readonly string[];
  /** Shows a waiting write's or edit's whole change ("Preview Change": the editor's diff view). */
  showChange?(change: FileChange): Promise<void>;
  /** "Add Context...": asks the user what to attach; undefined when they chose nothing. */
  pickContext?(): Promise<ChatAttachment | undefined>;
  /** The servers' prompts, resources and completions (the harness): `/` prompts, `@` resources, resource links. */
  readonly serverItems?: IChatServerItems;
  /** Shows a server's resource whole (a tool card's resource link, "Open"). */
  openResource?: ContextRequestsOptions['openResource'];
  /** Where results over the output cap are kept, per conversation (default: in memory). */
  readonly results?: IToolResultStore;
  /** "Cancel Task" on a card: cancels the task on its server; false when it no longer runs. */
  cancelTask?(server: string, taskId: string): boolean;
  /** Shows a kept result whole (the card's "Open in Editor"): its file when the store has one, else its text. */
  openResult?(result: { readonly handle: string; readonly toolName: string; readonly path?: string; readonly text: string }): Promise<void>;
  /** MCP Apps: the servers' apps and the editor's side of them. Without it, cards render no app. */
  readonly apps?: { readonly servers: IAppServers; readonly host: IChatAppsHost };
}

/** The states a task ends in: nothing is left to cancel. */
const ENDED_TASK: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The app requests' answer in a chat that renders no apps. */
const NO_APPS: Pick<WebviewRequestHandlers, AppRequestType> = Object.fromEntries(
  (['appOpen', 'appCallTool', 'appOpenLink', 'appMessage', 'appContext', 'appLog'] as const).map((type) => [type, async () => { throw new ChatRequestError('Apps are not shown here.'); }]),
) as unknown as Pick<WebviewRequestHandlers, AppRequestType>;

/**
 * One window's chat: the open conversation, turns run by the core's agent loop, direct commands,
 * and the answers to permission cards. Renders through `post`; persists every change to the
 * workspace's history (debounced while text streams).
 */
export class ChatSession {
  /** The gate's prompter: cards are answered through the panel's requests. */
  readonly prompter = new ChatPrompter();
  /** Questions servers ask, as cards beside the transcript (see {@link ChatAsks}). */
  readonly asks: ChatAsks;
  /** The panel's requests, one handler each. */
  readonly requests: WebviewRequestHandlers;
  private _transcript: ChatTranscript;
  private _messages: ChatMessage[] = [];
  /** What the running turn added so far (saved with the rest, so a reload mid-turn keeps it). */
  private _turnMessages: readonly ChatMessage[] = [];
  /** Results of tasks that ended while a turn ran in their conversation: put in when it is over. */
  private readonly _lateResults: FinishedTask[] = [];
  /** Settles when the running turn is over (a closing window waits for it before the last save). */
  private _turnOver: Promise<void> | undefined;
  private _createdAt = Date.now();
  /** What goes with the next message (chips above the message box). */
  private readonly _attachments: ChatAttachments;
  /** The model this conversation was given (it follows the conversation, not the window). */
  private _conversationModel: string | undefined;
  /** What the last message took with it, so Retry and Edit send it again (this window only). */
  /** A change of conversation under way (see `_switch`). */
  private _switching: Promise<void> | undefined;
  private _lastSent: { readonly itemId: string; readonly attached: readonly ChatAttachment[] } | undefined;
  private _turn: AbortController | undefined;
  private _models: readonly ChatModelEntry[] = [];
  private _selected: ChatModelEntry | undefined;
  private _saveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _direct: DirectCommands;
  private readonly _hooks: ChatHooks;
  private readonly _changes: IChangeDescriber;
  private readonly _results: IToolResultStore;
  private readonly _budget = new ChatBudget(undefined, DEFAULT_SYSTEM_PROMPT);
  /** The host side of the MCP Apps its cards render. */
  readonly apps: ChatApps | undefined;

  constructor(private readonly _options: ChatSessionOptions) {
    this._results = _options.results ?? new MemoryToolResultStore();
    const folders = () => _options.workspaceFolders?.() ?? [];
    this._changes = {
      folders,
      describe: async (request) => {
        const change = await fileChange(request.tool, request.arguments, folders());
        if (!change.ok) return { path: pathArgument(request.arguments), error: change.error };
        const diff = unifiedDiff(change.value);
        return { path: change.value.path, diff: diff.text, ...(diff.truncated ? { truncated: true } : {}) };
      },
    };
    this._hooks = new ChatHooks(_options.hooks, _options.audit);
    this.asks = new ChatAsks((asks) => _options.post({ type: 'asks', asks }));
    this._attachments = new ChatAttachments((attachments) => _options.post({ type: 'attachments', attachments }), _options.serverItems, (line) => _options.log(line));
    const calls = new ModelToolCalls({ call: _options.call, decider: _options.gate, audit: _options.audit, tools: () => _options.enabledTools(), conversationId: () => this._transcript.id });
    this._direct = new DirectCommands({ tools: () => _options.enabledTools(), servers: () => _options.servers(), calls });
    this.apps = _options.apps && new ChatApps(
      { ..._options.apps, call: _options.call, decider: _options.gate, ...(_options.audit ? { audit: _options.audit } : {}), log: (line) => _options.log(line) },
      {
        item: (id) => this._transcript.item(id),
        conversationId: () => this._transcript.id,
        callEvent: (e) => this._transcript.onAgentEvent(e),
        message: (text, from) => this._appMessage(text, from),
        context: (key, label, text) => this._appContext(key, label, text),
      },
    );
    this.requests = this._handlers();
    this._transcript = this._newTranscript(randomUUID(), []);
    const current = _options.history.currentId();
    const stored = current ? _options.history.load(current) : undefined;
    if (stored) this._open(stored);
    this._hooks.opened(stored ? 'resume' : 'startup');
  }

  /** The store this session keeps large results in. */
  get results(): IToolResultStore {
    return this._results;
  }

  get busy(): boolean {
    return this._turn !== undefined;
  }

  /** Refreshes the model list (settings, keys or VS Code's models changed). */
  async refreshModels(): Promise<void> {
    const { entries, selected } = await this._options.models();
    this._models = entries;
    this._selected = entries.find((e) => e.choice.id === this._conversationModel) ?? selected;
    this._budget.setContextWindow(this._selected?.contextWindow);
    this._options.post({ type: 'models', models: entries.map((e) => e.choice), ...(selected ? { selectedModel: selected.choice.id } : {}) });
  }

  state(): ChatViewState {
    const suggestions = this._options.settings().suggestions?.filter((s) => s.trim() !== '');
    return {
      conversationId: this._transcript.id,
      items: this._transcript.items,
      conversations: this._options.history.list(),
      models: this._models.map((e) => e.choice),
      ...(this._selected ? { selectedModel: this._selected.choice.id } : {}),
      busy: this.busy,
      ...(suggestions?.length ? { suggestions: [...suggestions] } : {}),
      ...(this._attachments.length ? { attachments: this._attachments.chips() } : {}),
      budget: this._budget.view(),
      asks: this.asks.views(),
    };
  }

  /** How full the model's context is now. */
  budget(): ReturnType<ChatBudget['view']> {
    return this._budget.view();
  }

  /** The model the chat uses now: what a server's sampling request runs on. */
  get currentModel(): ChatModelEntry | undefined {
    return this._selected;
  }

  private _handlers(): WebviewRequestHandlers {
    return {
      send: async ({ text }) => this.send(text),
      resend: async ({ text }) => this.resend(text),
      stop: async () => this.stop(),
      cancelTask: async ({ itemId }) => {
        const item = this._transcript.items.find((i) => i.id === itemId);
        const task = item?.kind === 'tool' ? item.task : undefined;
        if (!task || ENDED_TASK.has(task.status)) throw new ChatRequestError('This call does not run as a task now.');
        if (!this._options.cancelTask) throw new ChatRequestError('Cancelling a task is not available here.');
        if (!this._options.cancelTask(task.server, task.taskId)) throw new ChatRequestError(`Task ${task.taskId} is no longer running on ${task.server}.`);
      },
      newChat: async () => this.newChat(),
      openConversation: async ({ id }) => this._openById(id),
      deleteConversation: async ({ id }) => {
        if (id === this._transcript.id) {
          if (this._turn) throw new ChatRequestError('Stop the running turn first.');
          return this._switch(async () => {
            await this._options.history.delete(id);
            await this._forgetResults(id);
            await this._startNew();
          });
        }
        await this._options.history.delete(id);
        await this._forgetResults(id);
        this._options.post({ type: 'conversations', conversations: this._options.history.list() });
      },
      answerPermission: async ({ callId, choice, reason }) => {
        // The panel answers a card by its item id; the call behind it is the transcript's to know.
        const call = this._transcript.callOf(callId);
        if (call === undefined || !this.prompter.answer(call, { choice, ...(reason ? { reason } : {}) })) {
          throw new ChatRequestError('This card is no longer waiting for an answer.');
        }
      },
      addContext: async () => {
        if (!this._options.pickContext) throw new ChatRequestError('Adding context is not available here.');
        const attachment = await this._options.pickContext();
        if (attachment) await this._attachments.add(attachment);
      },
      removeContext: async ({ id }) => this._attachments.remove(id),
      ...contextRequests({
        items: this._options.serverItems,
        attachments: this._attachments,
        embedded: (server, uri) => this._transcript.embeddedResource(server, uri),
        ...(this._options.openResource ? { openResource: this._options.openResource } : {}),
      }),
      previewChange: async ({ callId }) => {
        const request = this._transcript.requestOf(callId);
        if (!request) throw new ChatRequestError('This card is no longer waiting for an answer.');
        if (!this._options.showChange) throw new ChatRequestError('Previewing a change is not available here.');
        const change = await fileChange(request.tool, request.arguments, this._changes.folders());
        if (!change.ok) throw new ChatRequestError(`No preview: ${change.error}.`);
        await this._options.showChange(change.value);
      },
      answerAsk: async ({ id, action, values }) => {
        try {
          return this.asks.answer(id, action, values);
        } catch (err) {
          if (err instanceof ChatAskError) throw new ChatRequestError(err.message);
          throw err;
        }
      },
      selectModel: async ({ model }) => {
        const entry = this._models.find((e) => e.choice.id === model);
        if (!entry) throw new ChatRequestError(`The model "${model}" is no longer on offer.`);
        this._selected = entry;
        this._conversationModel = entry.choice.id;
        this._queueSave();
        this._budget.setContextWindow(entry.contextWindow);
        this._postBudget();
        await this._options.selectModel(entry.choice.id);
      },
      openResult: async ({ handle }) => this.openResult(handle),
      compact: async () => this.compact(),
      action: async ({ action }) => this._options.runAction(action),
      copy: async ({ text }) => this._options.copy(text),
      insert: async ({ text }) => {
        if (!this._options.insert) throw new ChatRequestError('Inserting is not available here.');
        await this._options.insert(text);
      },
      ...(this.apps?.requests ?? NO_APPS),
    };
  }

  /** A message an app sends: shown as the app's, never a direct command; refused while a turn runs. */
  private _appMessage(text: string, from: string): void {
    if (this._turn) throw new ChatRequestError("A turn is running: the app's message was not sent.");
    void this.send(text, from).catch((err) => this._options.log(`chat: the message of the app ${from} failed: ${errorMessage(err)}`));
  }

  /** What an app wants the model to know: one chip per app, replaced by its next update, sent with the next message. */
  private _appContext(key: string, label: string, text: string): void {
    this._attachments.put(key, text.trim() ? { kind: 'app', label, path: label, text } : undefined);
  }

  /**
   * Runs a message: a direct command, or a turn of the agent loop; `from` names the app that sent
   * it; `reattach` (Retry, Edit) is what the message it replaces took with it. Resolves when the
   * turn is over.
   */
  async send(text: string, from?: string, reattach?: readonly ChatAttachment[]): Promise<void> {
    await this._switched();
    if (this._turn) throw new ChatRequestError('A turn is still running: stop it first.');
    const abort = new AbortController();
    this._turn = abort;
    let over!: () => void;
    this._turnOver = new Promise((resolve) => (over = resolve));
    this._options.post({ type: 'busy', busy: true });
    const t = this._transcript;
    const command = from === undefined ? parseDirectCommand(text) : undefined;
    // Attachments go with a message to the model; a direct command leaves them for the next one.
    const attached = command ? [] : reattach ? [...reattach] : this._attachments.take();
    const itemId = t.nextId('u');
    this._lastSent = { itemId, attached };
    t.add({ kind: 'user', id: itemId, text, ...(attached.length ? { context: attached.map((a) => a.label) } : {}), ...(from !== undefined ? { from } : {}) });
    try {
      if (command) {
        const reply = await this._direct.run(text, { signal: abort.signal, onEvent: (e) => t.onAgentEvent(e) });
        if (reply !== undefined && command.kind !== 'call') t.add({ kind: 'assistant', id: t.nextId('a'), text: reply });
      } else if (!this._selected) {
        await this.refreshModels();
      }
      if (!command && !this._selected) t.add({ kind: 'notice', id: t.nextId('n'), level: 'info', text: NO_MODEL_HELP });
      else if (!command && this._selected) {
        const notice = (level: 'info' | 'warning', message: string) => t.add({ kind: 'notice', id: t.nextId('n'), level, text: message });
        const modelText = await this._hooks.beforeTurn(t.id, from === undefined ? text : `Message from the app ${from} (sent by the app, not typed by the user):\n${text}`, abort.signal, notice);
        const entry = this._selected;
        if (modelText !== undefined) await this._runTurn(entry, modelMessage(modelText, attached, entry.provider.imageTypes?.(entry.model) ?? []), abort.signal);
      }
    } finally {
      this._turn = undefined;
      this.prompter.denyAskedUnder(abort.signal, 'stopped before it was approved');
      await this._save();
      this._options.post({ type: 'busy', busy: false });
      over();
      void this._deliverLate();
    }
  }

  /**
   * A tool call's task ended after its call stopped waiting here (the window reloaded before): its
   * card and the message answering its call get the result, in whichever stored conversation holds
   * them. In the open one, when that call was the last thing and nothing else is pending, the model
   * goes on from it. Resolves whether a card of the task was found.
   */
  async deliverTaskResult(finished: FinishedTask): Promise<boolean> {
    const id = finished.task.origin?.conversationId;
    if (id === undefined) return false;
    if (id !== this._transcript.id) return this._deliverStored(id, finished);
    if (this._turn) {
      this._lateResults.push(finished);
      return true;
    }
    const delivered = deliverTaskResult(this._transcript.items, this._messages, finished);
    if (!delivered) return false;
    this._messages = delivered.messages;
    this._transcript.add(delivered.card);
    if (delivered.continues && this._selected) await this._continueTurn(this._selected);
    else {
      this._transcript.add({ kind: 'notice', id: this._transcript.nextId('n'), level: 'info', text: `The result of task ${finished.task.taskId} (${finished.task.title}) arrived: its card above shows it.` });
      await this._save();
    }
    return true;
  }

  /** The cards of tasks picked up again after a reload show how each stands now (`harness.tasks()`). */
  showTaskStates(tasks: readonly HarnessTask[]): void {
    for (const card of taskCardUpdates(this._transcript.items, tasks)) this._transcript.add(card);
  }

  private async _deliverStored(id: string, finished: FinishedTask): Promise<boolean> {
    const stored = this._options.history.load(id);
    const delivered = stored && deliverTaskResult(stored.items, stored.messages, finished);
    if (!stored || !delivered) return false;
    await this._options.history.save({ ...stored, items: delivered.items, messages: delivered.messages, updatedAt: Date.now() });
    // Saving makes a conversation the current one; the open one stays current.
    await this._options.history.setCurrent(this._transcript.id);
    this._options.post({ type: 'conversations', conversations: this._options.history.list() });
    return true;
  }

  /** The model goes on from a result that arrived after its turn ended. */
  private async _continueTurn(entry: ChatModelEntry): Promise<void> {
    const abort = new AbortController();
    this._turn = abort;
    this._options.post({ type: 'busy', busy: true });
    try {
      await this._runTurn(entry, undefined, abort.signal);
    } finally {
      this._turn = undefined;
      this.prompter.denyAskedUnder(abort.signal, 'stopped before it was approved');
      await this._save();
      this._options.post({ type: 'busy', busy: false });
      void this._deliverLate();
    }
  }

  private async _deliverLate(): Promise<void> {
    while (!this._turn && this._lateResults.length) await this.deliverTaskResult(this._lateResults.shift()!);
  }

  /**
   * Retry (no `text`) or edit-and-resend: the last message and everything after it are dropped,
   * from the panel and from what the model is sent, and the message runs again.
   */
  async resend(text?: string): Promise<void> {
    await this._switched();
    if (this._turn) throw new ChatRequestError('A turn is still running: stop it first.');
    const items = this._transcript.items;
    let at = items.length - 1;
    while (at >= 0 && items[at]!.kind !== 'user') at--;
    const last = items[at];
    if (last?.kind !== 'user') throw new ChatRequestError('There is no message to send again.');
    let m = this._messages.length - 1;
    while (m >= 0 && this._messages[m]!.role !== 'user') m--;
    // A direct command (`/tools`) never reached the model: its turn has no message to drop.
    if (m >= 0 && (last.from !== undefined || !parseDirectCommand(last.text))) this._messages.splice(m);
    this._transcript.truncate(at);
    this._options.post({ type: 'init', state: this.state() });
    const reattach = this._lastSent?.itemId === last.id ? this._lastSent.attached : undefined;
    return this.send(text?.trim() || last.text, text?.trim() ? undefined : last.from, reattach);
  }

  /** Aborts the model stream and every call in flight; open cards are denied. */
  stop(): void {
    this._turn?.abort();
  }

  async newChat(): Promise<void> {
    if (this._turn) throw new ChatRequestError('Stop the running turn first.');
    return this._switch(async () => {
      await this._save();
      await this._startNew();
    });
  }

  /**
   * Runs a change of conversation (New Chat, opening or deleting one): a message sent meanwhile
   * waits for it and goes to the conversation on screen after it, never to the one being left.
   */
  private _switch(work: () => Promise<void>): Promise<void> {
    const done = work();
    const settled = done.then(
      () => undefined,
      () => undefined,
    );
    this._switching = settled;
    void settled.then(() => {
      if (this._switching === settled) this._switching = undefined;
    });
    return done;
  }

  /** Waits until no change of conversation is under way. */
  private async _switched(): Promise<void> {
    while (this._switching) await this._switching;
  }

  /** Replaces the open conversation with an empty one (the old one is saved or deleted already). */
  private async _startNew(): Promise<void> {
    if (this._saveTimer) clearTimeout(this._saveTimer);
    this._saveTimer = undefined;
    this._messages = [];
    this._lastSent = undefined;
    this._createdAt = Date.now();
    this._conversationModel = undefined;
    this._transcript = this._newTranscript(randomUUID(), []);
    this._budget.reestimate(this._messages);
    this._hooks.opened('clear');
    await this._options.history.setCurrent(this._transcript.id);
    this._options.post({ type: 'init', state: this.state() });
  }

  /** Saves now (the window may be closing), after a turn that is being stopped has ended (up to 2 s). */
  async flush(): Promise<void> {
    if (this._turn && this._turnOver) await Promise.race([this._turnOver, new Promise((r) => setTimeout(r, 2000).unref?.())]);
    return this._save();
  }

  dispose(): void {
    this.stop();
    this.apps?.dispose();
    this.asks.cancelAll();
    this._attachments.dispose();
    if (this._saveTimer) clearTimeout(this._saveTimer);
  }

  /** A turn of the agent loop; with no `message`, the model goes on from what the conversation holds (a task's result arrived). */
  private async _runTurn(entry: ChatModelEntry, message: { text: string; images: readonly ModelImage[] } | undefined, signal: AbortSignal): Promise<void> {
    const t = this._transcript;
    const settings = this._options.settings();
    const agent = new McpAgent({
      tools: () => this._options.enabledTools(),
      call: this._options.call,
      provider: entry.provider,
      gate: this._options.gate,
      audit: this._options.audit,
      maxSteps: settings.maxSteps,
      model: entry.model,
      conversationId: t.id,
      results: this._results,
      toolSearch: { ...settings.toolSearch, ...(entry.contextWindow ? { contextWindow: entry.contextWindow } : {}) },
    });
    const result = await agent.runTurn(this._messages, message?.text, {
      signal,
      ...(message?.images.length ? { images: message.images } : {}),
      onEvent: (e: AgentEvent) => {
        t.onAgentEvent(e);
        this._budget.onAgentEvent(e);
        if (e.type === 'request' || e.type === 'usage') this._postBudget();
      },
      onMessages: (added) => (this._turnMessages = added),
    });
    this._turnMessages = [];
    this._messages.push(...result.messages);
    if (result.usage.inputTokens || result.usage.outputTokens) {
      t.add({ kind: 'usage', id: t.nextId('usage'), inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens });
    }
    this._budget.afterTurn(this._messages);
    this._postBudget();
    const threshold = settings.autoCompactThreshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD;
    if (threshold > 0 && !signal.aborted && this._budget.fullness >= threshold) await this._makeRoom(entry, signal, false);
  }

  /**
   * Makes room in the model's context: older tool results give way to their handles first; then,
   * if still past the threshold (or when the person asked), the earlier turns are summarised
   * through the current model, keeping the last turns whole. The transcript marks each step.
   */
  async compact(): Promise<void> {
    if (this._turn) throw new ChatRequestError('Stop the running turn first.');
    if (!this._selected) await this.refreshModels();
    const entry = this._selected;
    if (!entry) throw new ChatRequestError('Compacting needs a model: none is available.');
    const abort = new AbortController();
    this._turn = abort;
    this._options.post({ type: 'busy', busy: true });
    try {
      await this._makeRoom(entry, abort.signal, true);
    } finally {
      this._turn = undefined;
      await this._save();
      this._options.post({ type: 'busy', busy: false });
    }
  }

  private async _makeRoom(entry: ChatModelEntry, signal: AbortSignal, asked: boolean): Promise<void> {
    const t = this._transcript;
    this._messages = await makeRoom({
      messages: this._messages,
      results: this._results,
      conversationId: t.id,
      provider: entry.provider,
      model: entry.model,
      signal,
      budget: this._budget,
      threshold: asked ? undefined : (this._options.settings().autoCompactThreshold ?? DEFAULT_AUTO_COMPACT_THRESHOLD),
      mark: (level, text) => {
        t.add({ kind: 'notice', id: t.nextId('n'), level, text });
        this._postBudget();
      },
    });
  }

  /** Opens a result this conversation keeps (the card's "Open in Editor"). */
  async openResult(handle: string): Promise<void> {
    const id = this._transcript.id;
    const info = this._results.list(id).find((r) => r.handle === handle);
    const text = await this._results.read(id, handle);
    if (text === undefined) throw new ChatRequestError(`The result "${handle}" is no longer kept.`);
    if (!this._options.openResult) throw new ChatRequestError('This host cannot open results.');
    const path = this._results.pathOf?.(id, handle);
    await this._options.openResult({ handle, toolName: info?.toolName ?? 'tool', text, ...(path ? { path } : {}) });
  }

  private async _forgetResults(conversationId: string): Promise<void> {
    try {
      await this._results.deleteConversation(conversationId);
    } catch (err) {
      this._options.log(`chat: removing the kept results of a conversation failed: ${errorMessage(err)}`);
    }
  }

  private _postBudget(): void {
    this._options.post({ type: 'budget', budget: this._budget.view() });
  }

  private async _openById(id: string): Promise<void> {
    if (this._turn) throw new ChatRequestError('Stop the running turn first.');
    const stored = this._options.history.load(id);
    if (!stored) throw new ChatRequestError('That conversation is no longer stored.');
    return this._switch(async () => {
      await this._save();
      this._open(stored);
      this._hooks.opened('resume');
      await this._options.history.setCurrent(id);
      this._options.post({ type: 'init', state: this.state() });
    });
  }

  private _open(stored: StoredConversation): void {
    this._lastSent = undefined;
    this._messages = [...stored.messages];
    this._createdAt = stored.createdAt;
    this._conversationModel = stored.model;
    const model = this._models.find((e) => e.choice.id === stored.model);
    if (model) {
      this._selected = model;
      this._options.post({ type: 'models', models: this._models.map((e) => e.choice), selectedModel: model.choice.id });
    }
    this._transcript = this._newTranscript(stored.id, stored.items);
    this._budget.reestimate(this._messages);
  }

  /** Every change is shown at once and saved soon after, so a reload mid-turn keeps it. */
  private _newTranscript(id: string, items: readonly ChatItem[]): ChatTranscript {
    return new ChatTranscript(
      id,
      items,
      (m) => {
        this._options.post(m);
        this._queueSave();
      },
      this._changes,
      this.apps,
    );
  }

  private _queueSave(): void {
    this._saveTimer ??= setTimeout(() => {
      this._saveTimer = undefined;
      void this._save();
    }, 300);
  }

  private async _save(): Promise<void> {
    if (this._saveTimer) clearTimeout(this._saveTimer);
    this._saveTimer = undefined;
    const items = this._transcript.items;
    const first = items.find((i): i is Extract<ChatItem, { kind: 'user' }> => i.kind === 'user');
    try {
      await this._options.history.save({
        id: this._transcript.id,
        title: titleFor(first?.text ?? ''),
        createdAt: this._createdAt,
        updatedAt: Date.now(),
        items,
        messages: [...this._messages, ...this._turnMessages],
        ...(this._conversationModel ?? this._selected ? { model: this._conversationModel ?? this._selected!.choice.id } : {}),
      });
      this._options.post({ type: 'conversations', conversations: this._options.history.list() });
    } catch (err) {
      this._options.log(`chat: saving the conversation failed: ${err}`);
    }
  }
}

function pathArgument(args: unknown): string {
  const p = (args as { path?: unknown } | null)?.path;
  return typeof p === 'string' ? p : '(no path)';
}
