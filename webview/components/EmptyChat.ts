import { css, html, LitElement, nothing } from 'lit';
import { base } from '../theme';
import { chatRequest } from './ChatApp';

/** What an empty conversation shows: the direct commands, and the configured suggestions to click. */
export class EmptyChat extends LitElement {
  static override properties = { suggestions: { attribute: false } };
  declare suggestions: readonly string[] | undefined;

  static override styles = [
    base,
    css`
      :host {
        display: block;
        margin: auto 0;
        text-align: center;
      }
      .suggestions {
        display: flex;
        flex-direction: column;
        align-items: center;
        gap: 6px;
        margin: 8px 0;
      }
      .suggestions vscode-button::part(base) {
        white-space: normal;
      }
    `,
  ];

  protected override render() {
    const suggestions = this.suggestions ?? [];
    return html`
      ${suggestions.length
        ? html`<p class="muted">Try one of these:</p>
            <div class="suggestions" role="group" aria-label="Suggestions">
              ${suggestions.map((text) => html`<vscode-button secondary title="Send “${text}”" @click=${() => chatRequest(this, { type: 'send', text })}>${text}</vscode-button>`)}
            </div>`
        : nothing}
      <p class="muted">Ask something, or type <code>/tools</code>, <code>/mcp</code> or <code>/call TOOL {json}</code>.</p>
    `;
  }
}
