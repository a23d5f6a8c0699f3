import { css, html, LitElement } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { onDidLoadLanguage, renderMarkdown } from '../markdown';
import { base, markdown } from '../theme';
import { chatRequest } from './ChatApp';

type TextItem = Exclude<ChatItem, { kind: 'tool' }>;

/** A user message, an assistant answer (Markdown), a turn's token usage, or a notice. */
export class ChatItemView extends LitElement {
  static override properties = { item: { attribute: false }, lastMessage: { attribute: false } };
  declare item: TextItem;
  /** This is the conversation's last message and no turn runs: it offers Edit and Retry. */
  declare lastMessage: boolean;

  static override styles = [
    base,
    markdown,
    css`
      :host {
        display: block;
      }
      .again {
        display: flex;
        gap: 10px;
        justify-content: flex-end;
      }
      .again button.link {
        font: inherit;
        font-size: 0.9em;
        color: var(--vscode-textLink-foreground);
        background: none;
        border: none;
        padding: 2px 0;
        cursor: pointer;
      }
      .user {
        align-self: flex-end;
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 4px;
        padding: 6px 8px;
        white-space: pre-wrap;
        word-break: break-word;
      }
      .role {
        font-weight: 600;
        font-size: 0.9em;
        margin-bottom: 2px;
      }
      .usage {
        font-size: 0.85em;
        text-align: right;
      }
      .notice {
        border-left: 3px solid var(--vscode-editorInfo-foreground, var(--vscode-focusBorder));
        padding: 4px 8px;
        background: var(--vscode-textBlockQuote-background);
      }
      .notice.warning {
        border-left-color: var(--vscode-editorWarning-foreground);
      }
      .notice.error {
        border-left-color: var(--vscode-errorForeground);
      }
      .notice vscode-button {
        margin-top: 4px;
      }
      .turn-error {
        margin-top: 4px;
      }
    `,
  ];

  private _unsubscribe: (() => void) | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    // A code block shown plain while its grammar loaded is rendered again, highlighted.
    this._unsubscribe = onDidLoadLanguage(() => {
      if ((this.item.kind === 'assistant' || this.item.kind === 'notice') && /^ {0,3}(```|~~~)/m.test(this.item.text)) this.requestUpdate();
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._unsubscribe?.();
  }

  private _edit(): void {
    if (this.item.kind !== 'user') return;
    this.dispatchEvent(new CustomEvent('edit-message', { detail: this.item.text, bubbles: true, composed: true }));
  }

  protected override render() {
    const item = this.item;
    switch (item.kind) {
      case 'user':
        return html`<div class="role muted">${item.from ? `App ${item.from}` : 'You'}</div><div class="user">${item.text}</div>
          ${item.context?.length ? html`<div class="muted attached">Attached: ${item.context.join(', ')}</div>` : ''}
          ${this.lastMessage
            ? html`<div class="again">
                <button type="button" class="link" title="Put this message in the message box to change and send it again" @click=${this._edit}>Edit</button>
                <button type="button" class="link" title="Send this message again, replacing its answer" @click=${() => chatRequest(this, { type: 'resend' })}>Retry</button>
              </div>`
            : ''}`;
      case 'assistant':
        return html`<div class="role muted">Assistant</div>
          <div class="md" @click=${this._onClick}>${unsafeHTML(renderMarkdown(item.text))}</div>
          ${item.stopped ? html`<div class="stopped muted" role="status">■ stopped: the answer is partial</div>` : ''}
          ${item.error ? html`<div class="turn-error error" role="alert">⚠ ${item.error}</div>` : ''}`;
      case 'usage':
        // A turn's usage sums its model requests, each of which sends the conversation again: it
        // is not how full the context is (the header's bar says that).
        return html`<div class="usage muted" title="Tokens the provider reported for this turn, summed over its model requests (each sends the whole conversation again); the bar at the top shows how full the context is">
          This turn: ${formatCount(item.inputTokens)} tokens in · ${formatCount(item.outputTokens)} out
        </div>`;
      case 'notice':
        return html`<div class="notice ${item.level}" role=${item.level === 'error' ? 'alert' : 'status'}>
          <div class="md" @click=${this._onClick}>${unsafeHTML(renderMarkdown(item.text))}</div>
          ${item.action
            ? html`<vscode-button @click=${() => item.action && chatRequest(this, { type: 'action', action: item.action.id })}>${item.action.label}</vscode-button>`
            : ''}
        </div>`;
    }
  }

  /** Copy buttons of code blocks (event delegation: the Markdown HTML has no handlers of its own). */
  private _onClick(e: Event): void {
    const button = (e.target as HTMLElement).closest('button.copy, button.insert');
    const code = button?.closest('.code-block')?.querySelector('code');
    if (!button || !code) return;
    if (button.classList.contains('insert')) {
      chatRequest(this, { type: 'insert', text: code.textContent ?? '' });
      return;
    }
    chatRequest(this, { type: 'copy', text: code.textContent ?? '' });
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy'), 1500);
  }
}

/** A token count as people read it (12,238), or "?" when the provider gave none. */
function formatCount(n: number | undefined): string {
  return n === undefined ? '?' : n.toLocaleString('en-US');
}
