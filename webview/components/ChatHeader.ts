import { css, html, LitElement } from 'lit';
import type { ChatConversationSummary, ChatModelChoice } from '../../src/shared/chatProtocol';
import { base } from '../theme';
import { chatRequest } from './ChatApp';

/** Model picker, the list of earlier conversations, and New Chat. */
export class ChatHeader extends LitElement {
  static override properties = {
    models: { attribute: false },
    selectedModel: { attribute: false },
    conversations: { attribute: false },
    conversationId: { attribute: false },
    busy: { attribute: false },
    _historyOpen: { state: true },
    _query: { state: true },
  };
  /** What the History search box holds (matched against titles). */
  declare _query: string;
  declare models: readonly ChatModelChoice[];
  declare selectedModel: string | undefined;
  declare conversations: readonly ChatConversationSummary[];
  declare conversationId: string;
  declare busy: boolean;
  declare _historyOpen: boolean;

  constructor() {
    super();
    this.models = [];
    this.conversations = [];
    this.conversationId = '';
    this.busy = false;
    this._historyOpen = false;
    this._query = '';
  }

  static override styles = [
    base,
    css`
      :host {
        display: block;
        border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
        padding: 6px 12px;
        container-type: inline-size;
      }
      .bar {
        display: flex;
        flex-wrap: wrap;
        gap: 6px;
        align-items: center;
      }
      /* One row where there is room; in a narrow side bar the picker takes a row of its own, so model names are not cut to a word. */
      .bar vscode-single-select {
        flex: 1 1 0;
        min-width: 60px;
      }
      @container (max-width: 420px) {
        .bar vscode-single-select,
        .bar .no-model {
          flex-basis: 100%;
        }
        .bar .history {
          margin-left: auto;
        }
      }
      .bar vscode-button {
        flex: none;
        white-space: nowrap;
      }
      .no-model {
        flex: 1;
      }
      input.search {
        box-sizing: border-box;
        width: 100%;
        margin-top: 6px;
        font: inherit;
        color: var(--vscode-input-foreground);
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 2px;
        padding: 3px 6px;
      }
      ul {
        list-style: none;
        margin: 6px 0 0;
        padding: 0;
        max-height: 40vh;
        overflow-y: auto;
      }
      li {
        display: flex;
        align-items: center;
        gap: 4px;
      }
      li button.open {
        flex: 1;
        text-align: left;
        font: inherit;
        color: var(--vscode-foreground);
        background: none;
        border: none;
        padding: 3px 4px;
        cursor: pointer;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
      }
      li button.open:hover {
        background: var(--vscode-list-hoverBackground);
      }
      li[aria-current='true'] button.open {
        background: var(--vscode-list-activeSelectionBackground);
        color: var(--vscode-list-activeSelectionForeground);
      }
      li .when {
        font-size: 0.9em;
      }
      li button.delete {
        font: inherit;
        color: var(--vscode-descriptionForeground);
        background: none;
        border: none;
        cursor: pointer;
        padding: 0 4px;
      }
      li button.delete:hover {
        color: var(--vscode-errorForeground);
      }
    `,
  ];

  protected override render() {
    return html`
      <div class="bar">
        ${this.models.length
          ? html`<vscode-single-select aria-label="Model" title=${this.models.find((m) => m.id === this.selectedModel)?.label ?? ''} .value=${this.selectedModel ?? ''} @change=${this._onModel}>
              ${this.models.map((m) => html`<vscode-option value=${m.id} ?selected=${m.id === this.selectedModel}>${m.label}</vscode-option>`)}
            </vscode-single-select>`
          : html`<span class="no-model muted">No model</span>`}
        <vscode-button class="history" secondary aria-expanded=${String(this._historyOpen)} @click=${() => (this._historyOpen = !this._historyOpen)}>History</vscode-button>
        <vscode-button ?disabled=${this.busy} @click=${this._newChat}>New Chat</vscode-button>
      </div>
      ${this._historyOpen ? this._history() : ''}
    `;
  }

  private _history() {
    if (this.conversations.length === 0) return html`<p class="muted">No earlier conversations.</p>`;
    const needle = this._query.trim().toLowerCase();
    const shown = needle ? this.conversations.filter((c) => c.title.toLowerCase().includes(needle)) : this.conversations;
    return html`<input
        class="search"
        type="search"
        aria-label="Search conversations"
        placeholder="Search conversations"
        .value=${this._query}
        @input=${(e: Event) => (this._query = (e.target as HTMLInputElement).value)}
      />
      ${shown.length === 0 ? html`<p class="muted">No conversation title contains “${this._query.trim()}”.</p>` : ''}
      <ul aria-label="Earlier conversations">
      ${shown.map(
        (c) => html`<li aria-current=${String(c.id === this.conversationId)}>
          <button class="open" type="button" title=${c.title} ?disabled=${this.busy} @click=${() => this._open(c.id)}>${c.title}</button>
          <span class="when muted" title=${new Date(c.updatedAt).toLocaleString()}>${when(c.updatedAt)} · ${c.messageCount}</span>
          <button class="delete" type="button" aria-label="Delete ${c.title}" title="Delete" ?disabled=${this.busy} @click=${() => chatRequest(this, { type: 'deleteConversation', id: c.id })}>×</button>
        </li>`,
      )}
    </ul>`;
  }

  private _newChat(): void {
    this._historyOpen = false;
    chatRequest(this, { type: 'newChat' });
  }

  private _open(id: string): void {
    this._historyOpen = false;
    chatRequest(this, { type: 'openConversation', id });
  }

  private _onModel(e: Event): void {
    const value = (e.target as HTMLElement & { value: string }).value;
    if (value && value !== this.selectedModel) chatRequest(this, { type: 'selectModel', model: value });
  }
}

/** "14:05" today, "yesterday 14:05", else the date: what a list of recent conversations needs. */
function when(time: number, now = new Date()): string {
  const d = new Date(time);
  const clock = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const day = (x: Date) => new Date(x.getFullYear(), x.getMonth(), x.getDate()).getTime();
  const days = Math.round((day(now) - day(d)) / 86_400_000);
  if (days === 0) return clock;
  if (days === 1) return `yesterday ${clock}`;
  return d.toLocaleDateString(undefined, { year: d.getFullYear() === now.getFullYear() ? undefined : 'numeric', month: 'short', day: 'numeric' });
}
