import { css, html, LitElement, type PropertyValues } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { WebviewRequest } from '../../src/shared/chatProtocol';
import type { ChatClient } from '../ChatClient';
import type { ChatQueryDetail } from '../chatQuery';
import { base } from '../theme';
import { CARD_KEYS } from './cardParts';
import type { Composer } from './Composer';
import type { ToolCard } from './ToolCard';

/**
 * The chat panel: header (model picker, history, New Chat), the transcript and the message box.
 * It renders the client's state and turns the children's events into requests to the host.
 */
export class ChatApp extends LitElement {
  static override properties = { client: { attribute: false } };
  declare client: ChatClient;
  private _unsubscribe: (() => void) | undefined;
  private _stickToBottom = true;
  private _initAt: number | undefined;

  static override styles = [
    base,
    css`
      :host {
        display: flex;
        flex-direction: column;
        height: 100vh;
        box-sizing: border-box;
      }
      .transcript {
        flex: 1;
        overflow-y: auto;
        padding: 8px 12px;
        display: flex;
        flex-direction: column;
        gap: 8px;
      }
      .asks {
        display: flex;
        flex-direction: column;
        gap: 6px;
        padding: 6px 12px;
        max-height: 60vh;
        overflow-y: auto;
        border-top: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent));
      }
      .empty {
        margin: auto 0;
        text-align: center;
      }
    `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    this._unsubscribe = this.client.onDidChange((type) => {
      if (type === 'init') this._markInit();
      if (type === 'focusInput') void this.updateComplete.then(this._focusMessage);
      this.requestUpdate();
    });
    this.addEventListener('chat-request', this._onRequest as EventListener);
    this.addEventListener('chat-query', this._onQuery as EventListener);
    this.addEventListener('focus-message', this._focusMessage);
    this.addEventListener('edit-message', this._editMessage as EventListener);
    document.addEventListener('keydown', this._onKeydown);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._unsubscribe?.();
    this.removeEventListener('chat-request', this._onRequest as EventListener);
    this.removeEventListener('chat-query', this._onQuery as EventListener);
    this.removeEventListener('focus-message', this._focusMessage);
    this.removeEventListener('edit-message', this._editMessage as EventListener);
    document.removeEventListener('keydown', this._onKeydown);
  }

  /** Marks the start of a restore, so the view can report how long rendering the history took. */
  private _markInit(): void {
    this._initAt = performance.now();
    // From the creation of this page to its first state (in the page itself, or the host's answer
    // to `ready`); a later `init` (the state changed while the page loaded) is not a restore.
    this.dataset.pageToInitMs ??= String(Math.round(this._initAt));
    this._stickToBottom = true;
  }

  protected override render() {
    const { state } = this.client;
    const lastUser = [...state.items].reverse().find((i) => i.kind === 'user')?.id;
    return html`
      <mcp-chat-header
        .models=${state.models}
        .selectedModel=${state.selectedModel}
        .conversations=${state.conversations}
        .conversationId=${state.conversationId}
        .busy=${state.busy}
      ></mcp-chat-header>
      <mcp-context-budget .budget=${state.budget} .busy=${state.busy}></mcp-context-budget>
      <div class="transcript" role="log" aria-label="Conversation" aria-live="polite" @scroll=${this._onScroll}>
        ${state.items.length === 0 && this.client.initialized
          ? html`<mcp-empty-chat .suggestions=${state.suggestions}></mcp-empty-chat>`
          : ''}
        ${repeat(
          state.items,
          (item) => item.id,
          (item) =>
            item.kind === 'tool'
              ? html`<mcp-tool-card data-id=${item.id} .item=${item} .client=${this.client}></mcp-tool-card>`
              : html`<mcp-chat-item .item=${item} .lastMessage=${item.id === lastUser && !state.busy}></mcp-chat-item>`,
        )}
      </div>
      ${state.asks?.length
        ? html`<div class="asks" role="region" aria-label="Questions from servers">
            ${repeat(state.asks, (a) => a.id, (a) => html`<mcp-ask-card .ask=${a} .client=${this.client}></mcp-ask-card>`)}
          </div>`
        : ''}
      <mcp-composer .busy=${state.busy} .attachments=${state.attachments} .history=${state.items.filter((i) => i.kind === 'user').map((i) => i.text)}></mcp-composer>
    `;
  }

  protected override async updated(changed: PropertyValues): Promise<void> {
    super.updated(changed);
    const transcript = this.renderRoot.querySelector('.transcript');
    // Children render after this; scroll once they have (the last one is enough to wait for).
    const last = transcript?.lastElementChild as LitElement | null | undefined;
    void (last?.updateComplete ?? Promise.resolve()).then(() => {
      if (transcript && this._stickToBottom) transcript.scrollTop = transcript.scrollHeight;
    });
    if (this._initAt !== undefined && this.client.initialized) {
      const started = this._initAt;
      this._initAt = undefined;
      // Children render in their own update cycle; wait for all of them before taking the time.
      const children = [...this.renderRoot.querySelectorAll<LitElement>('mcp-chat-item, mcp-tool-card')];
      await Promise.all(children.map((c) => c.updateComplete));
      if (transcript && this._stickToBottom) transcript.scrollTop = transcript.scrollHeight;
      this.client.lastRestoreMs = Math.round((performance.now() - started) * 10) / 10;
      // From the creation of this page (the panel opening) to the history first on screen.
      if (this.dataset.pageToRestoredMs === undefined) {
        this.dataset.restoreMs = String(this.client.lastRestoreMs);
        this.dataset.pageToRestoredMs = String(Math.round(performance.now()));
      }
      this.dataset.restoredItems = String(children.length);
    }
  }

  private _onScroll(e: Event): void {
    const el = e.target as HTMLElement;
    this._stickToBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
  }

  private readonly _onRequest = (e: CustomEvent<WebviewRequest>): void => {
    e.stopPropagation();
    if (e.detail.type === 'send') this._stickToBottom = true;
    void this.client.request(e.detail);
  };

  /** A child's request whose answer it needs (see `chatQuery`). */
  private readonly _onQuery = (e: CustomEvent<ChatQueryDetail>): void => {
    e.stopPropagation();
    e.preventDefault();
    void this.client.request(e.detail.request).then(e.detail.reply);
  };

  private readonly _editMessage = (e: CustomEvent<string>): void => {
    this.renderRoot.querySelector<Composer>('mcp-composer')?.edit(e.detail);
  };

  /** The composer renders after the app (right after a restore, not yet): focus once it has. */
  private readonly _focusMessage = (): void => {
    const composer = this.renderRoot.querySelector<Composer>('mcp-composer');
    void composer?.updateComplete.then(() => composer.focus());
  };

  private readonly _onKeydown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && this.client.state.busy) {
      e.preventDefault();
      void this.client.request({ type: 'stop' });
    } else if (e.altKey && !e.ctrlKey && !e.metaKey && e.key.toLowerCase() === CARD_KEYS.focus.key) {
      // The oldest card still waiting: answering in order is what a queue of questions asks for.
      const waiting = this.client.state.items.find((i) => i.kind === 'tool' && i.state === 'waiting_for_approval');
      const card = waiting && this.renderRoot.querySelector<ToolCard>(`mcp-tool-card[data-id="${CSS.escape(waiting.id)}"]`);
      if (!card) return;
      e.preventDefault();
      card.scrollIntoView({ block: 'nearest' });
      card.focusActions();
    }
  };
}

/** Children ask the app to send a request with this event. */
export function chatRequest(target: EventTarget, detail: WebviewRequest): void {
  target.dispatchEvent(new CustomEvent('chat-request', { detail, bubbles: true, composed: true }));
}

