import type { ChatItem, ChatViewState, HostMessage, WebviewMessage, WebviewRequest, WebviewRequestAnswer, WebviewRequestType } from '../src/shared/chatProtocol';
import { parseAnswer, parseHostMessage } from '../src/shared/parseChatMessage';
import type { Result } from '../src/shared/result';

/** What `acquireVsCodeApi()` returns inside a VS Code webview. */
export interface IVsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Where host messages arrive (the page's `window`). */
export interface IMessageSource {
  addEventListener(type: 'message', listener: (event: { readonly data: unknown; readonly origin?: string }) => void): void;
}

const EMPTY: ChatViewState = { conversationId: '', items: [], conversations: [], models: [], busy: false };

/**
 * The panel's view of the host: the state it last sent, requests with sequence numbers, and the
 * answers to them. It keeps nothing the host could not send again on the next `init`.
 */
export class ChatClient {
  private _state: ChatViewState = EMPTY;
  private _index = new Map<string, number>();
  private _seq = 0;
  private readonly _pending = new Map<number, (r: { ok: boolean; error?: string; value?: unknown }) => void>();
  private readonly _listeners = new Set<(type: HostMessage['type']) => void>();
  private _initialized = false;
  /** Milliseconds from receiving the last `init` to it being rendered (set by the view). */
  lastRestoreMs: number | undefined;

  constructor(private readonly _api: IVsCodeApi, private readonly _log: (line: string) => void = (l) => console.warn(l)) {}

  get state(): ChatViewState {
    return this._state;
  }

  get initialized(): boolean {
    return this._initialized;
  }

  /**
   * Starts listening and tells the host the panel can receive. With `origin`, only messages from
   * that origin count (the host's): the frames of MCP Apps in the cards post from others.
   */
  start(target: IMessageSource, origin?: string): void {
    let warned = false;
    target.addEventListener('message', (e) => {
      if (origin === undefined || e.origin === origin) return this.receive(e.data);
      if (!warned) this._log(`chat: dropped a message from another frame (${e.origin}); such messages are ignored`);
      warned = true;
    });
    this._api.postMessage({ type: 'ready' } satisfies WebviewMessage);
  }

  /** Called after each applied message with its type (`init` starts a restore). */
  onDidChange(listener: (type: HostMessage['type']) => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** Sends a request; resolves with the host's answer, checked against the request's answer type. */
  request<K extends WebviewRequestType>(message: WebviewRequest & { readonly type: K }): Promise<Result<WebviewRequestAnswer<K>>> {
    const seq = ++this._seq;
    return new Promise((resolve) => {
      this._pending.set(seq, (response) => {
        if (!response.ok) return resolve({ ok: false, error: response.error ?? `${message.type} failed` });
        const answer = parseAnswer(message.type, response.value);
        if (!answer.ok) this._log(`chat: dropped the answer to ${message.type}: ${answer.error}`);
        resolve(answer);
      });
      this._api.postMessage({ ...message, seq });
    });
  }

  /** One message from the host; malformed or unknown ones are dropped with a log line. */
  receive(data: unknown): void {
    const parsed = parseHostMessage(data);
    if (!parsed.ok) {
      this._log(`chat: dropped a message from the extension: ${parsed.error}`);
      return;
    }
    this._apply(parsed.value);
  }

  private _apply(message: HostMessage): void {
    switch (message.type) {
      case 'init':
        this._initialized = true;
        this._state = message.state;
        this._reindex();
        break;
      case 'upsert': {
        const items = [...this._state.items];
        for (const item of message.items) {
          const at = this._index.get(item.id);
          if (at === undefined) {
            this._index.set(item.id, items.length);
            items.push(item);
          } else {
            items[at] = item;
          }
        }
        this._state = { ...this._state, items };
        break;
      }
      case 'append': {
        const at = this._index.get(message.id);
        const item = at === undefined ? undefined : this._state.items[at];
        if (at === undefined || item?.kind !== 'assistant') {
          this._log(`chat: dropped text for unknown message ${message.id}`);
          return;
        }
        const items = [...this._state.items];
        items[at] = { ...item, text: item.text + message.delta } satisfies ChatItem;
        this._state = { ...this._state, items };
        break;
      }
      case 'busy':
        this._state = { ...this._state, busy: message.busy };
        break;
      case 'models':
        this._state = { ...this._state, models: message.models, selectedModel: message.selectedModel };
        break;
      case 'conversations':
        this._state = { ...this._state, conversations: message.conversations };
        break;
      case 'focusInput':
        break;
      case 'attachments':
        this._state = { ...this._state, attachments: message.attachments };
        break;
      case 'budget': {
        const { budget: _old, ...rest } = this._state;
        this._state = { ...rest, ...(message.budget ? { budget: message.budget } : {}) };
        break;
      }
      case 'asks':
        this._state = { ...this._state, asks: message.asks };
        break;
      case 'response': {
        const resolve = this._pending.get(message.seq);
        this._pending.delete(message.seq);
        if (!resolve) this._log(`chat: answer to unknown request ${message.seq}`);
        resolve?.({ ok: message.ok, error: message.error, value: message.value });
        if (!message.ok && message.error) this._log(`chat: request ${message.seq} failed: ${message.error}`);
        return;
      }
    }
    for (const l of this._listeners) l(message.type);
  }

  private _reindex(): void {
    this._index = new Map(this._state.items.map((item, i) => [item.id, i]));
  }
}
