import { css, html, LitElement } from 'lit';
import { base } from '../theme';
import { recallPrompt } from '../promptHistory';
import type { ChatAttachmentChip } from '../../src/shared/chatProtocol';
import { chatRequest } from './ChatApp';

/**
 * The message box: Enter sends (never anything else: it does not answer a card), Shift+Enter adds
 * a line; Up and Down in an empty box (or one showing a recalled prompt) walk the earlier prompts.
 */
export class Composer extends LitElement {
  static override properties = { busy: { attribute: false }, history: { attribute: false }, attachments: { attribute: false }, _editing: { state: true } };
  /** Chips of what goes with the next message. */
  declare attachments: readonly ChatAttachmentChip[] | undefined;
  /** The box holds the last message for Edit: Send replaces that turn. */
  declare _editing: boolean;
  declare busy: boolean;
  /** This conversation's prompts, oldest first. */
  declare history: readonly string[];
  /** Index into `history` of the recalled prompt shown, or undefined when the box holds the user's own text. */
  private _recalled: number | undefined;

  constructor() {
    super();
    this.busy = false;
    this.history = [];
    this._editing = false;
  }

  /** Edit: the last message in the box, to change and send in its place (Escape cancels). */
  edit(text: string): void {
    const box = this.renderRoot.querySelector('textarea');
    if (!box) return;
    box.value = text;
    this._editing = true;
    this._recalled = undefined;
    box.focus();
    box.setSelectionRange(text.length, text.length);
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
      .context {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
        align-items: center;
        margin-bottom: 6px;
      }
      .chip {
        display: inline-flex;
        align-items: center;
        gap: 2px;
        max-width: 100%;
        overflow: hidden;
        text-overflow: ellipsis;
        white-space: nowrap;
        font-size: 0.9em;
        padding: 1px 2px 1px 6px;
        border-radius: 10px;
        background: var(--vscode-badge-background);
        color: var(--vscode-badge-foreground);
        /* High-contrast themes draw badges as outlines. */
        border: 1px solid var(--vscode-contrastBorder, transparent);
      }
      .chip button {
        font: inherit;
        color: inherit;
        background: none;
        border: none;
        cursor: pointer;
        padding: 0 4px;
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
    const chips = this.attachments ?? [];
    return html`
      <div class="context" role="group" aria-label="Context for the next message">
        <vscode-button secondary title="Attach the active file, the selection, a file, problems or a server's resource" @click=${() => chatRequest(this, { type: 'addContext' })}>Add Context...</vscode-button>
        ${chips.map(
          (c) =>
            html`<span class="chip" title=${c.detail ? `${c.label} (${c.detail})${c.updated ? ': changed on the server since attached' : ''}` : c.label}>${c.label}${c.updated ? html`<span class="updated"> (updated)</span>` : ''}<button type="button" aria-label="Remove ${c.label}" title="Remove" @click=${() => chatRequest(this, { type: 'removeContext', id: c.id })}>×</button></span>`,
        )}
      </div>
      <mcp-suggest></mcp-suggest>
      <textarea
        aria-label="Message"
        placeholder="Message (/ prompts, @ resources, Shift+Enter new line)"
        rows="2"
        @keydown=${this._onKeydown}
        @input=${() => (this._recalled = undefined)}
      ></textarea>
      ${this._editing ? html`<div class="editing muted" role="status">Editing your last message: Send replaces it and its answer; Escape cancels.</div>` : ''}
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
    } else if (e.key === 'Escape' && this._editing) {
      e.preventDefault();
      e.stopPropagation();
      this._editing = false;
      (e.target as HTMLTextAreaElement).value = '';
    } else if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      this._recall(e);
    }
  }

  /** Up: the prompt before the one shown (or the last one); Down: the next one, then an empty box. */
  private _recall(e: KeyboardEvent): void {
    const box = e.target as HTMLTextAreaElement;
    const next = recallPrompt(this.history, this._recalled, box.value, e.key === 'ArrowUp' ? 'up' : 'down');
    if (!next) return;
    e.preventDefault();
    this._recalled = next.index;
    box.value = next.value;
    box.setSelectionRange(box.value.length, box.value.length);
  }

  private _send(): void {
    const box = this.renderRoot.querySelector('textarea');
    const text = box?.value.trim();
    if (!box || !text || this.busy) return;
    box.value = '';
    this._recalled = undefined;
    const editing = this._editing;
    this._editing = false;
    chatRequest(this, editing ? { type: 'resend', text } : { type: 'send', text });
  }

  private _stop(): void {
    chatRequest(this, { type: 'stop' });
  }
}
