import * as vscode from 'vscode';
import {
  createApiProvider,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  hostOf,
  isLoopbackUrl,
  resolveApiKey,
} from '../../core/agent';
import { Disposable } from '../../core/base/lifecycle';
import type { ChatModelEntry } from '../../core/chat';
export type { ChatModelEntry } from '../../core/chat';
import { VscodeLmProvider, type ILanguageModels } from './VscodeLmProvider';

export type ApiProviderId = 'openai' | 'anthropic';
export type ChatProviderSetting = 'auto' | 'vscode' | ApiProviderId;

/** A model the picker offers, with the provider that serves it. */

/** Secret storage keys of the API keys (never settings, never logs, never the webview). */
export const API_KEY_SECRET: Record<ApiProviderId, string> = {
  openai: 'mcpHarness.chat.openai.apiKey',
  anthropic: 'mcpHarness.chat.anthropic.apiKey',
};

const SELECTED_KEY = 'mcpHarness.chat.selectedModel';

/**
 * The models the chat can use under `mcpHarness.chat.provider`: VS Code's language models, the
 * configured OpenAI-compatible or Anthropic API, and the user's remembered pick among them.
 */
export class ChatModels extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  /** The list may differ: settings, keys or VS Code's models changed. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _vscode: VscodeLmProvider;

  constructor(
    private readonly _secrets: vscode.SecretStorage,
    private readonly _memento: vscode.Memento,
    lm: ILanguageModels & { readonly onDidChangeChatModels?: vscode.Event<void> } = vscode.lm,
    private readonly _env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    super();
    this._vscode = new VscodeLmProvider(lm);
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpHarness.chat')) this._onDidChange.fire();
      }),
    );
    this._register(
      _secrets.onDidChange((e) => {
        if (Object.values(API_KEY_SECRET).includes(e.key)) this._onDidChange.fire();
      }),
    );
    if (lm.onDidChangeChatModels) this._register(lm.onDidChangeChatModels(() => this._onDidChange.fire()));
  }

  /** Every model on offer now, VS Code's first. */
  async list(): Promise<ChatModelEntry[]> {
    const settings = vscode.workspace.getConfiguration('mcpHarness.chat');
    const setting = settings.get<ChatProviderSetting>('provider', 'auto');
    const entries: ChatModelEntry[] = [];
    if (setting === 'auto' || setting === 'vscode') {
      for (const m of await this._vscode.models().catch(() => [])) {
        entries.push({ choice: { id: `vscode:${m.id}`, label: m.label }, provider: this._vscode, model: m.id, ...(m.contextWindow ? { contextWindow: m.contextWindow } : {}) });
      }
    }
    if (setting === 'vscode' || (setting === 'auto' && entries.length > 0)) return entries;
    for (const id of ['openai', 'anthropic'] as const) {
      if (setting !== 'auto' && setting !== id) continue;
      const entry = await this._apiEntry(id, settings, setting === 'auto');
      if (entry) entries.push(entry, ...(await listedModels(entry)));
    }
    return entries;
  }

  /** The remembered pick when it is on offer, else the first model. */
  pick(entries: readonly ChatModelEntry[]): ChatModelEntry | undefined {
    const remembered = this._memento.get<string>(SELECTED_KEY);
    return entries.find((e) => e.choice.id === remembered) ?? entries[0];
  }

  async remember(id: string): Promise<void> {
    await this._memento.update(SELECTED_KEY, id);
  }

  async setApiKey(id: ApiProviderId, key: string | undefined): Promise<void> {
    if (key) await this._secrets.store(API_KEY_SECRET[id], key);
    else await this._secrets.delete(API_KEY_SECRET[id]);
  }


  /**
   * An API provider from the settings. In `auto`, only when it can work: a key (stored or from the
   * environment) or a loopback base URL; chosen explicitly, always (a missing key then says so).
   */
  private async _apiEntry(id: ApiProviderId, settings: vscode.WorkspaceConfiguration, needKey: boolean): Promise<ChatModelEntry | undefined> {
    const baseUrl = settings.get<string>(`${id}.baseUrl`) || (id === 'openai' ? DEFAULT_OPENAI_BASE_URL : DEFAULT_ANTHROPIC_BASE_URL);
    const model = settings.get<string>(`${id}.model`) || (id === 'openai' ? DEFAULT_OPENAI_MODEL : DEFAULT_ANTHROPIC_MODEL);
    const storedKey = await this._secrets.get(API_KEY_SECRET[id]);
    if (needKey && !resolveApiKey({ stored: storedKey, envVar: id === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY', baseUrl, env: this._env })) return undefined;
    const host = hostOf(baseUrl);
    const label = `${model} · ${isLoopbackUrl(baseUrl) ? host : id === 'openai' ? `OpenAI-compatible (${host})` : `Anthropic (${host})`}`;
    const provider = createApiProvider({ kind: id, baseUrl, model, ...(storedKey ? { storedKey } : {}), env: this._env });
    return { choice: { id: `${id}:${model}`, label }, provider, model };
  }
}

/** How long the picker waits for an endpoint's model list before offering only the configured model. */
const MODEL_LIST_TIMEOUT_MS = 3000;

/** The endpoint's other models (its `/models` list), served by the same provider; none when it cannot list. */
async function listedModels(configured: ChatModelEntry): Promise<ChatModelEntry[]> {
  const provider = configured.provider;
  if (!provider.availableModels) return [];
  const [kind] = configured.choice.id.split(':', 1);
  const where = configured.choice.label.slice(configured.choice.label.indexOf(' · '));
  try {
    const models = await provider.availableModels(AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS));
    return models
      .filter((m) => m.id !== configured.model)
      .map((m) => ({ choice: { id: `${kind}:${m.id}`, label: `${m.label}${where}` }, provider, model: m.id }));
  } catch {
    return [];
  }
}
