import { randomUUID } from 'node:crypto';
import { DIRECT_COMMANDS_HELP, DirectCommands, parseDirectCommand, type DirectCommandServer } from '../agent/DirectCommands';
import { McpAgent } from '../agent/McpAgent';
import { ModelToolCalls, type AgentCallTool } from '../agent/ModelToolCalls';
import type { ToolSearchBudget } from '../tools/search';
import type { AgentEvent, ChatMessage, IModelProvider } from '../agent/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import type { ChatActionId, ChatItem, ChatModelChoice, ChatViewState, HostMessage, WebviewRequestHandlers } from '../../shared/chatProtocol';
import { ChatHooks, type IChatHooks } from './ChatHooks';
import { ChatAskError, ChatAsks } from './ChatAsks';
import { ChatPrompter } from './ChatPrompter';
import { ChatTranscript } from './ChatTranscript';
import { titleFor, type ChatHistoryStore, type StoredConversation } from './ChatHistoryStore';

/** A model the chat can use: what the picker shows, and how to reach it. */
export interface ChatModelEntry {
  readonly choice: ChatModelChoice;
  readonly provider: IModelProvider;
  readonly model: string;
  readonly contextWindow?: number;
}

/** A request the panel made that cannot be done now; its message is shown in the panel. */
export class ChatRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatRequestError';
  }
}

/** How to get a model, shown when none is available. */
export const NO_MODEL_HELP = [
  '**No language model is available.** To get one, either:',
  '- install an extension that provides VS Code language models (GitHub Copilot Chat, or any other), or',
  '- run **MCP: Set API Key...** for OpenAI or Anthropic (or set `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`), and pick it with `mcpHarness.chat.provider`, or',
  '- run a local model and point `mcpHarness.chat.openai.baseUrl` at it (Ollama: `http://127.0.0.1:11434/v1`, LM Studio: `http://127.0.0.1:1234/v1`; no key needed).',
  '',
  DIRECT_COMMANDS_HELP,
].join('\n');

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
  settings(): { maxSteps: number; toolSearch: ToolSearchBudget };
  post(message: HostMessage): void;
  runAction(action: ChatActionId): Promise<void>;
  copy(text: string): Promise<void>;
  log(line: string): void;
  /** UserPromptSubmit and SessionStart hooks (the harness's `chatHooks`). */
  readonly hooks?: IChatHooks;
}

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
  private _createdAt = Date.now();
  private _turn: AbortController | undefined;
  private _models: readonly ChatModelEntry[] = [];
  private _selected: ChatModelEntry | undefined;
  private _saveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly _direct: DirectCommands;
  private readonly _hooks: ChatHooks;

  constructor(private readonly _options: ChatSessionOptions) {
    this._hooks = new ChatHooks(_options.hooks, _options.audit);
    this.asks = new ChatAsks((asks) => _options.post({ type: 'asks', asks }));
    const calls = new ModelToolCalls({ call: _options.call, decider: _options.gate, audit: _options.audit, tools: () => _options.enabledTools(), conversationId: () => this._transcript.id });
    this._direct = new DirectCommands({ tools: () => _options.enabledTools(), servers: () => _options.servers(), calls });
    this.requests = this._handlers();
    this._transcript = this._newTranscript(randomUUID(), []);
    const current = _options.history.currentId();
    const stored = current ? _options.history.load(current) : undefined;
    if (stored) this._open(stored);
    this._hooks.opened(stored ? 'resume' : 'startup');
  }

  get busy(): boolean {
    return this._turn !== undefined;
  }

  /** Refreshes the model list (settings, keys or VS Code's models changed). */
  async refreshModels(): Promise<void> {
    const { entries, selected } = await this._options.models();
    this._models = entries;
    this._selected = selected;
    this._options.post({ type: 'models', models: entries.map((e) => e.choice), ...(selected ? { selectedModel: selected.choice.id } : {}) });
  }

  state(): ChatViewState {
    return {
      conversationId: this._transcript.id,
      items: this._transcript.items,
      conversations: this._options.history.list(),
      models: this._models.map((e) => e.choice),
      ...(this._selected ? { selectedModel: this._selected.choice.id } : {}),
      busy: this.busy,
      asks: this.asks.views(),
    };
  }

  /** The model the chat uses now: what a server's sampling request runs on. */
  get currentModel(): ChatModelEntry | undefined {
    return this._selected;
  }

  private _handlers(): WebviewRequestHandlers {
    return {
      send: async ({ text }) => this.send(text),
      stop: async () => this.stop(),
      newChat: async () => this.newChat(),
      openConversation: async ({ id }) => this._openById(id),
      deleteConversation: async ({ id }) => {
        if (id === this._transcript.id) {
          if (this._turn) throw new ChatRequestError('Stop the running turn first.');
          await this._options.history.delete(id);
          return this._startNew();
        }
        await this._options.history.delete(id);
        this._options.post({ type: 'conversations', conversations: this._options.history.list() });
      },
      answerPermission: async ({ callId, choice, reason }) => {
        // The panel answers a card by its item id; the call behind it is the transcript's to know.
        const call = this._transcript.callOf(callId);
        if (call === undefined || !this.prompter.answer(call, { choice, ...(reason ? { reason } : {}) })) {
          throw new ChatRequestError('This card is no longer waiting for an answer.');
        }
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
        await this._options.selectModel(entry.choice.id);
      },
      action: async ({ action }) => this._options.runAction(action),
      copy: async ({ text }) => this._options.copy(text),
    };
  }

  /** Runs a message: a direct command, or a turn of the agent loop. Resolves when the turn is over. */
  async send(text: string): Promise<void> {
    if (this._turn) throw new ChatRequestError('A turn is still running: stop it first.');
    const abort = new AbortController();
    this._turn = abort;
    this._options.post({ type: 'busy', busy: true });
    const t = this._transcript;
    t.add({ kind: 'user', id: t.nextId('u'), text });
    try {
      const command = parseDirectCommand(text);
      if (command) {
        const reply = await this._direct.run(text, { signal: abort.signal, onEvent: (e) => t.onAgentEvent(e) });
        if (reply !== undefined && command.kind !== 'call') t.add({ kind: 'assistant', id: t.nextId('a'), text: reply });
      } else if (!this._selected) {
        await this.refreshModels();
      }
      if (!command && !this._selected) t.add({ kind: 'notice', id: t.nextId('n'), level: 'info', text: NO_MODEL_HELP });
      else if (!command && this._selected) {
        const notice = (level: 'info' | 'warning', message: string) => t.add({ kind: 'notice', id: t.nextId('n'), level, text: message });
        const modelText = await this._hooks.beforeTurn(t.id, text, abort.signal, notice);
        if (modelText !== undefined) await this._runTurn(this._selected, modelText, abort.signal);
      }
    } finally {
      this._turn = undefined;
      this.prompter.denyAll('stopped before it was approved');
      await this._save();
      this._options.post({ type: 'busy', busy: false });
    }
  }

  /** Aborts the model stream and every call in flight; open cards are denied. */
  stop(): void {
    this._turn?.abort();
  }

  async newChat(): Promise<void> {
    if (this._turn) throw new ChatRequestError('Stop the running turn first.');
    await this._save();
    return this._startNew();
  }

  /** Replaces the open conversation with an empty one (the old one is saved or deleted already). */
  private async _startNew(): Promise<void> {
    if (this._saveTimer) clearTimeout(this._saveTimer);
    this._saveTimer = undefined;
    this._messages = [];
    this._createdAt = Date.now();
    this._transcript = this._newTranscript(randomUUID(), []);
    this._hooks.opened('clear');
    await this._options.history.setCurrent(this._transcript.id);
    this._options.post({ type: 'init', state: this.state() });
  }

  /** Saves now (the window may be closing). */
  flush(): Promise<void> {
    return this._save();
  }

  dispose(): void {
    this.stop();
    this.asks.cancelAll();
    if (this._saveTimer) clearTimeout(this._saveTimer);
  }

  private async _runTurn(entry: ChatModelEntry, text: string, signal: AbortSignal): Promise<void> {
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
      toolSearch: { ...settings.toolSearch, ...(entry.contextWindow ? { contextWindow: entry.contextWindow } : {}) },
    });
    const result = await agent.runTurn(this._messages, text, {
      signal,
      onEvent: (e: AgentEvent) => t.onAgentEvent(e),
    });
    this._messages.push(...result.messages);
    if (result.usage.inputTokens || result.usage.outputTokens) {
      t.add({ kind: 'usage', id: t.nextId('usage'), inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens });
    }
  }

  private async _openById(id: string): Promise<void> {
    if (this._turn) throw new ChatRequestError('Stop the running turn first.');
    const stored = this._options.history.load(id);
    if (!stored) throw new ChatRequestError('That conversation is no longer stored.');
    await this._save();
    this._open(stored);
    this._hooks.opened('resume');
    await this._options.history.setCurrent(id);
    this._options.post({ type: 'init', state: this.state() });
  }

  private _open(stored: StoredConversation): void {
    this._messages = [...stored.messages];
    this._createdAt = stored.createdAt;
    this._transcript = this._newTranscript(stored.id, stored.items);
  }

  /** Every change is shown at once and saved soon after, so a reload mid-turn keeps it. */
  private _newTranscript(id: string, items: readonly ChatItem[]): ChatTranscript {
    return new ChatTranscript(id, items, (m) => {
      this._options.post(m);
      this._queueSave();
    });
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
        messages: this._messages,
      });
      this._options.post({ type: 'conversations', conversations: this._options.history.list() });
    } catch (err) {
      this._options.log(`chat: saving the conversation failed: ${err}`);
    }
  }
}
