// Over 300 lines: one card with every state a tool call has; the waiting card's parts (arguments,
// risk preview, keys) live in cardParts.ts so the card itself stays one readable render.
import { css, html, LitElement, nothing } from 'lit';
import type { ChatItem, ChatPermissionChoice, ChatToolAnnotations, ChatWarning } from '../../src/shared/chatProtocol';
import type { ChatClient } from '../ChatClient';
import { base } from '../theme';
import { chatRequest } from './ChatApp';
import { CARD_KEYS, cardPartStyles, clampedArguments, riskPreview } from './cardParts';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

const STATE_LABEL: Record<ToolItem['state'], string> = {
  waiting_for_approval: 'waiting for approval',
  running: 'running',
  done: 'done',
  error: 'error',
  denied: 'denied',
  cancelled: 'cancelled',
};

const ANNOTATION_LABEL: [keyof ChatToolAnnotations, string][] = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
];

/**
 * One tool call: its state, duration, collapsible arguments and result, and while it waits, the
 * permission card with the user's choices. Cards are answered independently, in any order. A
 * waiting card keeps its buttons below a few lines of arguments, and answers keys (CARD_KEYS)
 * while the focus is inside it. A call that may change things gets a warning card that leads
 * with Preview Change (writes) or Deny, never with an allow.
 */
export class ToolCard extends LitElement {
  static override properties = { item: { attribute: false }, client: { attribute: false }, _answered: { state: true }, _showAll: { state: true } };
  declare item: ToolItem;
  /** For the card's app (MCP Apps), which asks the host and waits for answers. */
  declare client: ChatClient | undefined;
  /** The choice sent for this card, until the host reports the card's new state. */
  declare _answered: ChatPermissionChoice | undefined;
  declare _showAll: boolean;

  constructor() {
    super();
    this._showAll = false;
  }

  static override styles = [
    base,
    cardPartStyles,
    css`
      :host {
        display: block;
      }
      .card {
        border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border, transparent));
        border-radius: 4px;
        background: var(--vscode-editorWidget-background, var(--vscode-sideBar-background));
        padding: 6px 8px;
      }
      .card.waiting_for_approval {
        border-color: var(--vscode-focusBorder);
      }
      .head {
        display: flex;
        gap: 6px;
        align-items: baseline;
        flex-wrap: wrap;
      }
      .name {
        font-weight: 600;
        word-break: break-all;
      }
      .state {
        margin-left: auto;
        font-size: 0.9em;
      }
      .state.done {
        color: var(--vscode-testing-iconPassed, var(--vscode-foreground));
      }
      .state.error,
      .state.denied {
        color: var(--vscode-errorForeground);
      }
      .state.waiting_for_approval {
        color: var(--vscode-editorWarning-foreground);
      }
      vscode-collapsible {
        margin-top: 4px;
      }
      .chips {
        display: flex;
        gap: 4px;
        flex-wrap: wrap;
        margin: 4px 0;
      }
      .description {
        white-space: pre-wrap;
        margin: 4px 0;
      }
      .warnings {
        border-left: 3px solid var(--vscode-editorWarning-foreground);
        padding: 2px 6px;
        margin: 4px 0;
      }
      .warnings code {
        white-space: pre-wrap;
        word-break: break-all;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
        margin-top: 6px;
      }
      .actions vscode-button,
      .deny vscode-button {
        max-width: 100%;
      }
      /* Long labels ("Allow all tools of <server> for this session") wrap in a narrow side bar. */
      .actions vscode-button::part(base) {
        white-space: normal;
        line-height: 18px;
        padding-top: 3px;
        padding-bottom: 3px;
      }
      .deny {
        display: flex;
        gap: 4px;
        margin-top: 4px;
        align-items: center;
      }
      .deny input {
        flex: 1;
        min-width: 0;
        font: inherit;
        color: var(--vscode-input-foreground);
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 2px;
        padding: 3px 6px;
      }
      .deny input::placeholder {
        color: var(--vscode-input-placeholderForeground);
      }
      .deny input:focus {
        outline: 1px solid var(--vscode-focusBorder);
        outline-offset: -1px;
      }
      .task {
        display: flex;
        flex-wrap: wrap;
        gap: 6px;
        align-items: center;
      }
      .progress {
        display: flex;
        gap: 6px;
        align-items: center;
        font-size: 0.9em;
      }
    `,
  ];

  protected override willUpdate(): void {
    if (this.item.state !== 'waiting_for_approval') this._answered = undefined;
  }

  protected override render() {
    const item = this.item;
    const waiting = item.state === 'waiting_for_approval' && item.permission;
    const changes = Boolean(item.permission?.changes);
    return html`<section class="card ${item.state} ${waiting && changes ? 'changes' : ''}" aria-label="Tool call ${item.toolName}" @keydown=${this._onKeydown}>
      <div class="head">
        <span class="name">${item.title ?? item.tool ?? item.toolName}</span>
        <span class="muted">${item.server ? `${item.server} · ` : ''}${item.toolName}</span>
        <span class="state ${item.state}" data-state=${item.state}>
          ${STATE_LABEL[item.state]}${item.durationMs !== undefined ? ` · ran ${formatDuration(item.durationMs)}` : ''}${item.waitMs !== undefined ? ` · waited ${formatDuration(item.waitMs)}` : ''}
        </span>
      </div>
      ${item.caller ? html`<div class="muted caller">Called by ${item.caller}</div>` : nothing}
      ${item.decidedBy && !waiting ? html`<div class="muted decided">${item.decidedBy}</div>` : nothing}
      ${item.task ? this._task(item.task) : nothing}
      ${item.state === 'running' ? this._progress() : nothing}
      ${waiting ? this._permission() : nothing}
      ${!waiting && item.warnings?.length ? this._warnings(item.warnings) : nothing}
      ${waiting ? nothing : html`<vscode-collapsible title="Arguments"><pre>${formatJson(item.arguments)}</pre></vscode-collapsible>`}
      ${item.output !== undefined
        ? html`<vscode-collapsible title=${item.state === 'denied' ? 'Reason' : 'Result'} ?open=${item.state === 'error' || item.state === 'denied'}>
            <pre>${item.output || '(empty)'}</pre>
          </vscode-collapsible>`
        : nothing}
      ${item.result ? html`<mcp-kept-result .result=${item.result}></mcp-kept-result>` : nothing}
      ${item.app?.error ? html`<div class="warning" role="note">⚠ ${item.app.error}</div>` : nothing}
      ${item.app && !item.app.error && this.client && (item.state === 'done' || (item.state === 'error' && item.app.result)) ? html`<mcp-app-frame .item=${item} .client=${this.client}></mcp-app-frame>` : nothing}
      ${item.resourceLinks?.length ? html`<mcp-resource-links .server=${item.server} .links=${item.resourceLinks}></mcp-resource-links>` : nothing}
    </section>`;
  }

  /** The call runs as a task on its server: how it stands (the server's message while it runs), or how it ended. */
  private _task(task: NonNullable<ToolItem['task']>) {
    const ended = task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
    const status = task.status === 'input_required' ? 'waiting for input' : task.status;
    const message = !ended && task.statusMessage && task.statusMessage !== task.status ? ` · ${task.statusMessage}` : '';
    const cancel = ended ? nothing : html`<vscode-button secondary class="cancel-task" @click=${() => chatRequest(this, { type: 'cancelTask', itemId: this.item.id })}>Cancel Task</vscode-button>`;
    return html`<div class="muted task" title=${`task ${task.taskId} on ${task.server}`}><span>${ended ? 'Ran as a task' : 'Runs as a task'}: ${status}${message}</span>${cancel}</div>`;
  }

  private _progress() {
    const p = this.item.progress;
    return html`<div class="progress muted" role="status">
      <vscode-progress-ring aria-label="Running"></vscode-progress-ring>
      ${p ? `${p.progress}${p.total !== undefined ? ` / ${p.total}` : ''}${p.message ? ` · ${p.message}` : ''}` : 'running…'}
    </div>`;
  }

  private _permission() {
    const item = this.item;
    const permission = item.permission!;
    const annotations = ANNOTATION_LABEL.filter(([key]) => permission.annotations?.[key]);
    const pending = this._answered !== undefined;
    const canPreview = Boolean(permission.change && !permission.change.error);
    // A call that changes things never leads with an allow: Preview Change for a write, else Deny.
    const allowPrimary = !permission.changes;
    const denyPrimary = Boolean(permission.changes) && !canPreview;
    const k = CARD_KEYS;
    return html`
      ${annotations.length || permission.changes
        ? html`<div class="chips">
            ${permission.changes ? html`<span class="risk" role="note">⚠ Changes things</span>` : nothing}
            ${annotations.map(([, label]) => html`<vscode-badge>${label}</vscode-badge>`)}
          </div>`
        : nothing}
      ${permission.description ? html`<div class="description">${permission.description}</div>` : nothing}
      ${permission.warnings.length ? this._warnings(permission.warnings) : nothing}
      ${permission.changedSinceApproval
        ? html`<div class="warning">Changed since you approved it:</div><pre class="diff">${permission.changedSinceApproval}</pre>`
        : nothing}
      ${permission.askedBy ? html`<div class="warning asked-by">${permission.askedBy}</div>` : nothing}
      ${riskPreview(permission)}
      ${clampedArguments(formatJson(item.arguments), this._showAll, () => (this._showAll = !this._showAll))}
      <div class="actions" role="group" aria-label="Allow ${item.toolName}?">
        ${canPreview
          ? html`<vscode-button title="Open the change in the diff editor (${k.preview.label})" ?disabled=${pending} @click=${this._preview}>Preview Change</vscode-button>`
          : nothing}
        <vscode-button ?secondary=${!allowPrimary} title="Allow once (${k.once.label})" ?disabled=${pending} @click=${() => this._answer('once')}>Allow once</vscode-button>
        <vscode-button secondary ?disabled=${pending} @click=${() => this._answer('session')}>Allow for this session</vscode-button>
        <vscode-button secondary title="Always allow in this workspace (${k.workspace.label})" ?disabled=${pending} @click=${() => this._answer('workspace')}>Always allow in this workspace</vscode-button>
        ${item.server
          ? html`<vscode-button secondary ?disabled=${pending} @click=${() => this._answer('server_session')}>Allow all tools of ${item.server} for this session</vscode-button>`
          : nothing}
      </div>
      <div class="deny">
        <input
          type="text"
          aria-label="Reason for denying (optional)"
          placeholder="Reason for denying (optional, Enter denies)"
          title="Enter denies with this reason; Escape returns to the message box"
          ?disabled=${pending}
          @keydown=${this._onReasonKeydown}
        />
        <vscode-button ?secondary=${!denyPrimary} title="Deny (${k.deny.label})" ?disabled=${pending} @click=${() => this._answer('deny')}>Deny</vscode-button>
      </div>
    `;
  }

  /** Moves the focus to this card's first button (Alt+C from anywhere in the panel). */
  focusActions(): void {
    this.renderRoot.querySelector<HTMLElement>('.actions vscode-button')?.focus();
  }

  private readonly _onKeydown = (e: KeyboardEvent): void => {
    if (this.item.state !== 'waiting_for_approval' || !this.item.permission || !e.altKey || e.ctrlKey || e.metaKey || this._answered) return;
    const key = e.key.toLowerCase();
    const k = CARD_KEYS;
    const act =
      key === k.once.key ? () => this._answer('once')
      : key === k.workspace.key ? () => this._answer('workspace')
      : key === k.deny.key ? () => this._answer('deny')
      : key === k.preview.key && this.item.permission.change && !this.item.permission.change.error ? () => this._preview()
      : undefined;
    if (!act) return;
    e.preventDefault();
    e.stopPropagation();
    act();
  };

  private readonly _onReasonKeydown = (e: KeyboardEvent): void => {
    if (e.key === 'Enter' && !e.isComposing) {
      e.preventDefault();
      e.stopPropagation();
      this._answer('deny');
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      this.dispatchEvent(new CustomEvent('focus-message', { bubbles: true, composed: true }));
    }
  };

  private _preview(): void {
    chatRequest(this, { type: 'previewChange', callId: this.item.id });
  }

  private _warnings(warnings: readonly ChatWarning[]) {
    return html`<div class="warnings" role="note">
      <div class="warning">⚠ Suspicious content in this tool (${warnings.length}):</div>
      ${warnings.map((w) => html`<div>${w.where}, ${w.kind === 'hidden_characters' ? 'hidden characters' : 'instructions to the model'}: <code>${w.excerpt}</code></div>`)}
    </div>`;
  }

  private _answer(choice: ChatPermissionChoice): void {
    const field = this.renderRoot.querySelector<HTMLInputElement>('.deny input');
    const reason = choice === 'deny' ? field?.value.trim() || undefined : undefined;
    this._answered = choice;
    chatRequest(this, { type: 'answerPermission', callId: this.item.id, choice, ...(reason ? { reason } : {}) });
  }
}

function formatJson(value: unknown): string {
  if (value === undefined) return '{}';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
