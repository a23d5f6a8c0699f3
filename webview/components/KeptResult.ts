import { css, html, LitElement } from 'lit';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { base } from '../theme';
import { chatRequest } from './ChatApp';

type KeptResultView = NonNullable<Extract<ChatItem, { kind: 'tool' }>['result']>;

/** Under a tool card whose result was over the cap: its whole size, and "Open in Editor". */
export class KeptResult extends LitElement {
  static override properties = { result: { attribute: false } };
  declare result: KeptResultView;

  static override styles = [
    base,
    css`
      :host {
        display: flex;
        gap: 6px;
        align-items: center;
        flex-wrap: wrap;
        margin-top: 4px;
      }
    `,
  ];

  protected override render() {
    const r = this.result;
    return html`<span class="muted">Whole result: ${r.chars.toLocaleString('en-US')} characters, ${r.lines.toLocaleString('en-US')} lines (the model pages through it)</span>
      <vscode-button secondary aria-label="Open in Editor" @click=${() => chatRequest(this, { type: 'openResult', handle: r.handle })}>Open in Editor</vscode-button>`;
  }
}
