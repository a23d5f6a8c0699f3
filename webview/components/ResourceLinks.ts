import { css, html, LitElement, nothing } from 'lit';
import type { ChatResourceLink } from '../../src/shared/chatProtocol';
import { chatQuery } from '../chatQuery';
import { base } from '../theme';

/**
 * The resources a tool's result links to (`resource_link`), on its card: each with **Open** (the
 * resource in an editor) and **Attach** (a chip for the next message). Failures show under the list.
 */
export class ResourceLinks extends LitElement {
  static override properties = { server: { attribute: false }, links: { attribute: false }, _status: { state: true } };
  declare server: string | undefined;
  declare links: readonly ChatResourceLink[] | undefined;
  declare _status: { text: string; error?: boolean } | undefined;

  static override styles = [
    base,
    css`
      :host {
        display: block;
        margin-top: 4px;
      }
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: flex;
        flex-direction: column;
        gap: 2px;
      }
      li {
        display: flex;
        align-items: center;
        gap: 6px;
        flex-wrap: wrap;
      }
      .name {
        font-weight: 600;
        word-break: break-all;
      }
    `,
  ];

  protected override render() {
    const links = this.links ?? [];
    if (!links.length || this.server === undefined) return nothing;
    return html`<ul aria-label="Resources the result links to">
        ${links.map(
          (l) => html`<li>
            <span class="name" title=${l.uri}>${l.title ?? l.name}</span>
            <span class="muted">${[l.mimeType, l.description].filter(Boolean).join(' · ')}</span>
            <vscode-button secondary aria-label="Open ${l.title ?? l.name}" title="Open ${l.uri} in an editor" @click=${() => this._run('openResource', l)}>Open</vscode-button>
            <vscode-button secondary aria-label="Attach ${l.title ?? l.name}" title="Attach ${l.uri} to the next message" @click=${() => this._run('attachResource', l)}>Attach</vscode-button>
          </li>`,
        )}
      </ul>
      ${this._status ? html`<div class=${this._status.error ? 'error' : 'muted'} role=${this._status.error ? 'alert' : 'status'}>${this._status.text}</div>` : nothing}`;
  }

  private async _run(type: 'openResource' | 'attachResource', link: ChatResourceLink): Promise<void> {
    const name = link.title ?? link.name;
    const answer = await chatQuery(this, { type, server: this.server!, uri: link.uri, name });
    this._status = answer.ok ? (type === 'attachResource' ? { text: `${name} is attached to the next message.` } : undefined) : { text: `${name}: ${answer.error}`, error: true };
  }
}
