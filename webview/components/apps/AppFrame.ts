import { css, html, LitElement, nothing } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import type { ChatItem } from '../../../src/shared/chatProtocol';
import type { ChatClient } from '../../ChatClient';
import { base } from '../../theme';
import type { AppCallbacks, MountedApp } from '../../apps/appHostApi';
import { loadAppHost } from './loadAppHost';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/** The app's frame never shrinks below this or grows past {@link maxHeight} (CSS pixels). */
const MIN_HEIGHT = 48;
const MAX_HEIGHT = 640;
/** Height before the app says how tall it is. */
const START_HEIGHT = 160;
/** An app that has not finished its handshake by then is reported (and can be reopened). */
const START_TIMEOUT_MS = 20_000;

type Status = { readonly kind: 'loading' } | { readonly kind: 'running' } | { readonly kind: 'ready' } | { readonly kind: 'error'; readonly message: string };

/**
 * The app of a tool card (MCP Apps). It asks the extension for the app (read again from its
 * server each time), mounts it through the app host script, and shows, never a blank frame, what
 * happens: loading, the app, or why it cannot be shown with a Reopen action. Its height follows
 * the app's content within limits.
 */
export class AppFrame extends LitElement {
  static override properties = { item: { attribute: false }, client: { attribute: false }, _status: { state: true }, _notes: { state: true }, _height: { state: true } };
  declare item: ToolItem;
  declare client: ChatClient;
  declare _status: Status;
  declare _notes: readonly string[];
  declare _height: number;
  private _app: MountedApp | undefined;
  private _opened = false;
  private _timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this._status = { kind: 'loading' };
    this._notes = [];
    this._height = START_HEIGHT;
  }

  static override styles = [
    base,
    css`
      :host {
        display: block;
        margin-top: 6px;
      }
      .frame {
        position: relative;
        border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent));
        border-radius: 4px;
        overflow: hidden;
      }
      .frame iframe {
        display: block;
        width: 100%;
        height: 100%;
        border: 0;
        background: transparent;
      }
      .status {
        display: flex;
        gap: 6px;
        align-items: center;
        padding: 6px 0;
      }
      .error {
        white-space: pre-wrap;
      }
      .notes {
        font-size: 0.9em;
      }
    `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this._opened) void this._open();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._close();
    this._opened = false;
  }

  protected override render() {
    const status = this._status;
    const showFrame = status.kind === 'running' || status.kind === 'ready';
    return html`
      ${status.kind === 'loading' || status.kind === 'running'
        ? html`<div class="status muted" role="status"><vscode-progress-ring aria-label="Loading the app"></vscode-progress-ring>Loading the app…</div>`
        : nothing}
      ${status.kind === 'error'
        ? html`<div class="status" role="alert">
            <span class="error">⚠ ${status.message}</span>
            <vscode-button secondary @click=${() => void this._open()}>Reopen</vscode-button>
          </div>`
        : nothing}
      <div class="frame" data-status=${status.kind} style=${styleMap({ height: `${showFrame ? this._height : 0}px`, ...(showFrame ? {} : { border: '0' }) })}></div>
      ${this._notes.length ? html`<div class="notes muted">${this._notes.map((n) => html`<div>${n}</div>`)}</div>` : nothing}
    `;
  }

  /** Asks for the app and mounts it; a second call starts it again (Reopen). */
  private async _open(): Promise<void> {
    this._opened = true;
    this._close();
    this._status = { kind: 'loading' };
    const itemId = this.item.id;
    const answer = await this.client.request({ type: 'appOpen', itemId });
    if (!this.isConnected || this.item.id !== itemId) return;
    if (!answer.ok) return this._fail(answer.error);
    let mount;
    try {
      mount = await loadAppHost();
    } catch (err) {
      return this._fail(`The app host could not load: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.updateComplete;
    const container = this.renderRoot.querySelector<HTMLElement>('.frame');
    if (!container || !this.isConnected) return;
    const view = answer.value;
    this._notes = view.notes;
    this._height = START_HEIGHT;
    this._status = { kind: 'running' };
    const name = this.item.title ?? this.item.tool ?? this.item.toolName;
    this._timer = setTimeout(() => this._fail('The app did not start (it never finished its handshake).'), START_TIMEOUT_MS);
    this._app = mount({ container, view, title: `App: ${name}`, maxHeight: MAX_HEIGHT, callbacks: this._callbacks(itemId) });
  }

  /** What the app asks, as requests to the extension on behalf of the card `itemId` (the app cannot name another). */
  private _callbacks(itemId: string): AppCallbacks {
    const request = this.client.request.bind(this.client);
    return {
      callTool: async (toolName, args) => {
        const r = await request({ type: 'appCallTool', itemId, name: toolName, arguments: args });
        return r.ok ? r.value : { content: [{ type: 'text', text: r.error }], isError: true };
      },
      openLink: async (url) => {
        const r = await request({ type: 'appOpenLink', itemId, url });
        return r.ok && r.value.opened;
      },
      message: async (text) => {
        const r = await request({ type: 'appMessage', itemId, text });
        if (!r.ok) throw new Error(r.error);
      },
      context: async (text) => {
        const r = await request({ type: 'appContext', itemId, text });
        if (!r.ok) throw new Error(r.error);
      },
      log: (level, text) => void request({ type: 'appLog', itemId, level, text }),
      resize: (height) => (this._height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height)))),
      ready: () => {
        clearTimeout(this._timer);
        this._status = { kind: 'ready' };
      },
      failed: (message) => this._fail(`The app stopped: ${message}`),
    };
  }

  private _fail(message: string): void {
    this._close();
    this._status = { kind: 'error', message };
  }

  private _close(): void {
    clearTimeout(this._timer);
    this._app?.dispose();
    this._app = undefined;
  }
}
