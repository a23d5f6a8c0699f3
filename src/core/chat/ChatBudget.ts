import { estimateMessages } from '../agent/contextEstimate';
import type { AgentEvent, ChatMessage } from '../agent/types';
import { DEFAULT_CONTEXT_WINDOW, estimateTokens } from '../tools/search/toolBudget';
import type { ChatContextBudget } from '../../shared/chatProtocol';

/**
 * How full the model's context is, as the chat header shows it. The provider's count of the last
 * request (input plus what it wrote) wins; before it reports one, or once the conversation changed
 * under it (compaction, another conversation opened), it is estimated at four characters a token:
 * the system prompt and tool schemas of the last request, plus the messages.
 */
export class ChatBudget {
  /** Estimated tokens of the last request's system prompt and tool schemas. */
  private _base: number;
  private _used = 0;
  private _estimated = true;

  constructor(
    private _contextWindow: number = DEFAULT_CONTEXT_WINDOW,
    defaultSystemPrompt = '',
  ) {
    this._base = estimateTokens(defaultSystemPrompt);
    this._used = this._base;
  }

  get usedTokens(): number {
    return this._used;
  }

  get contextWindow(): number {
    return this._contextWindow;
  }

  /** Share of the window in use, 0 to 1 (or more, past the limit). */
  get fullness(): number {
    return this._used / this._contextWindow;
  }

  setContextWindow(tokens: number | undefined): void {
    this._contextWindow = tokens && tokens > 0 ? Math.floor(tokens) : DEFAULT_CONTEXT_WINDOW;
  }

  /** Follows a turn: each request's estimate, then the provider's count when it gives one. */
  onAgentEvent(event: AgentEvent): void {
    if (event.type === 'request') {
      this._base = event.estimate.system + event.estimate.tools;
      this._used = event.estimate.total;
      this._estimated = true;
    } else if (event.type === 'usage' && event.inputTokens) {
      this._used = event.inputTokens + (event.outputTokens ?? 0);
      this._estimated = false;
    }
  }

  /** The conversation is now `messages` (opened, compacted, a turn ended without a count): estimate it. */
  reestimate(messages: readonly ChatMessage[]): void {
    this._used = this._base + estimateMessages(messages);
    this._estimated = true;
  }

  /** After a turn: the provider's count stands if it gave one for the last request, else the whole conversation is estimated. */
  afterTurn(messages: readonly ChatMessage[]): void {
    if (this._estimated) this.reestimate(messages);
  }

  view(): ChatContextBudget {
    return { usedTokens: Math.round(this._used), contextWindow: this._contextWindow, estimated: this._estimated };
  }
}
