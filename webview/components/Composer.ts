import { css, html, LitElement } from 'lit';
import { base } from '../theme';
import { chatRequest } from './ChatApp';

/** The message box: Enter sends, Shift+Enter adds a line; Send and Stop. */
export class Composer extends LitElement {
  static override properties = { busy: { attribute: false } };
  declare busy: boolean;

  constructor() {
    super();
    this.busy = false;
  }

  static override styles = [
    base,
    css`
      :host {
        display: block;
        padding: 8px 12px;
        border-top: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
      }
      textarea {
        box-sizing: border-box;
        width: 100%;
        min-height: 3.2em;
        max-height: 40vh;
        resize: vertical;
        font: inherit;
        color: var(--vscode-input-foreground);
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 2px;
        padding: 4px 6px;
      }
      textarea::placeholder {
        color: var(--vscode-input-placeholderForeground);
      }
      textarea:focus {
        outline: 1px solid var(--vscode-focusBorder);
        outline-offset: -1px;
      }
      .buttons {
        display: flex;
        gap: 6px;
        justify-content: flex-end;
        margin-top: 6px;
      }
    `,
  ];

  protected override render() {
    return html`
      <textarea
        aria-label="Message"
        placeholder="Message (Enter to send, Shift+Enter for a new line)"
        rows="2"
        @keydown=${this._onKeydown}
      ></textarea>
      <div class="buttons">
        <vscode-button secondary ?disabled=${!this.busy} @click=${this._stop}>Stop</vscode-button>
        <vscode-button ?disabled=${this.busy} @click=${this._send}>Send</vscode-button>
      </div>
    `;
  }

  override focus(): void {
    this.renderRoot.querySelector('textarea')?.focus();
  }

  private _onKeydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this._send();
    }
  }

  private _send(): void {
    const box = this.renderRoot.querySelector('textarea');
    const text = box?.value.trim();
    if (!box || !text || this.busy) return;
    box.value = '';
    chatRequest(this, { type: 'send', text });
  }

  private _stop(): void {
    chatRequest(this, { type: 'stop' });
  }
}
