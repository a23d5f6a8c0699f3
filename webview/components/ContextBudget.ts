import { css, html, LitElement, nothing } from 'lit';
import type { ChatContextBudget } from '../../src/shared/chatProtocol';
import { base } from '../theme';
import { chatRequest } from './ChatApp';

/** Under the header: how full the model's context is, and "Compact". */
export class ContextBudget extends LitElement {
  static override properties = { budget: { attribute: false }, busy: { attribute: false } };
  declare budget: ChatContextBudget | undefined;
  declare busy: boolean;

  static override styles = [
    base,
    css`
      :host {
        display: flex;
        gap: 6px;
        align-items: center;
        padding: 2px 12px 4px;
        border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent));
        font-size: 0.9em;
      }
      meter {
        flex: 1;
        min-width: 60px;
        height: 6px;
      }
    `,
  ];

  protected override render() {
    const b = this.budget;
    if (!b) return nothing;
    const share = b.usedTokens / b.contextWindow;
    const label = `Context: ${formatTokens(b.usedTokens)} of ${formatTokens(b.contextWindow)} tokens (${Math.round(share * 100)}%)${b.estimated ? ', estimated' : ''}`;
    return html`<meter aria-label="Context used" min="0" max=${b.contextWindow} low=${b.contextWindow * 0.6} high=${b.contextWindow * 0.8} optimum="0" .value=${b.usedTokens}></meter>
      <span class="muted" role="status" aria-label="Context budget" data-used=${b.usedTokens} data-window=${b.contextWindow} title=${b.estimated ? 'Estimated at about four characters a token; the provider did not report a count for this request.' : "The provider's count for the last request."}>${label}</span>
      <vscode-button secondary ?disabled=${this.busy} @click=${() => chatRequest(this, { type: 'compact' })}>Compact</vscode-button>`;
  }
}

function formatTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${Math.round(tokens / 100_000) / 10}M`;
  if (tokens >= 10_000) return `${Math.round(tokens / 1000)}k`;
  if (tokens >= 1000) return `${Math.round(tokens / 100) / 10}k`;
  return String(tokens);
}
