import { css, html, nothing } from 'lit';
import type { ChatPermissionView } from '../../src/shared/chatProtocol';

/** Lines of arguments a waiting card shows before "Show all", so its buttons stay in view. */
export const ARGUMENT_LINES = 6;

/** Keys of a waiting card (shown in its tooltips and in the README). */
export const CARD_KEYS = {
  focus: { key: 'c', label: 'Alt+C' },
  once: { key: 'a', label: 'Alt+A' },
  workspace: { key: 'w', label: 'Alt+W' },
  deny: { key: 'd', label: 'Alt+D' },
  preview: { key: 'p', label: 'Alt+P' },
} as const;

/** The arguments of a waiting card: a few lines, the rest behind "Show all". */
export function clampedArguments(text: string, expanded: boolean, toggle: () => void) {
  const lines = text.split('\n').length;
  const long = lines > ARGUMENT_LINES || text.length > ARGUMENT_LINES * 80;
  return html`<div class="args">
    <div class="muted label">Arguments</div>
    <pre class=${long && !expanded ? 'clamped' : ''}>${text}</pre>
    ${long
      ? html`<button type="button" class="link" aria-expanded=${String(expanded)} @click=${toggle}>${expanded ? 'Show less' : `Show all (${lines} lines)`}</button>`
      : nothing}
  </div>`;
}

/** What a command would run, and where; what a write or edit would change. */
export function riskPreview(permission: ChatPermissionView) {
  const { command, change } = permission;
  return html`
    ${command
      ? html`<div class="command">
          <div class="muted label">Runs</div>
          <pre>${command.line}</pre>
          <div class="muted">in <code>${command.cwd}</code></div>
        </div>`
      : nothing}
    ${change
      ? html`<div class="change">
          <div class="muted label">Changes <code>${change.path}</code></div>
          ${change.diff !== undefined ? html`<pre class="diff">${diffLines(change.diff)}</pre>` : nothing}
          ${change.truncated ? html`<div class="muted">… the diff goes on: Preview Change shows all of it.</div>` : nothing}
          ${change.error ? html`<div class="warning">${change.error}</div>` : nothing}
        </div>`
      : nothing}
  `;
}

function diffLines(diff: string) {
  return diff.split('\n').map((line) => {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    return html`<span class=${kind}>${line}</span>\n`;
  });
}

export const cardPartStyles = css`
  .label {
    font-size: 0.9em;
    margin: 6px 0 2px;
  }
  pre.clamped {
    max-height: calc(${ARGUMENT_LINES} * 1.4em);
    overflow: hidden;
    mask-image: linear-gradient(to bottom, black 60%, transparent);
  }
  button.link {
    font: inherit;
    color: var(--vscode-textLink-foreground);
    background: none;
    border: none;
    padding: 2px 0;
    cursor: pointer;
  }
  button.link:hover {
    text-decoration: underline;
  }
  pre.diff {
    white-space: pre;
    max-height: 20em;
    overflow: auto;
  }
  pre.diff .add {
    color: var(--vscode-gitDecoration-addedResourceForeground, var(--vscode-terminal-ansiGreen));
  }
  pre.diff .del {
    color: var(--vscode-gitDecoration-deletedResourceForeground, var(--vscode-errorForeground));
  }
  pre.diff .hunk,
  pre.diff .file {
    color: var(--vscode-descriptionForeground);
  }
  /* Doubled class: wins over the waiting card's focus-coloured border whatever the order of sheets. */
  .card.changes.changes {
    border-color: var(--vscode-editorWarning-foreground);
    border-left-width: 4px;
    background: color-mix(in srgb, var(--vscode-editorWarning-foreground) 7%, var(--vscode-editorWidget-background, var(--vscode-sideBar-background)));
  }
  .risk {
    color: var(--vscode-editorWarning-foreground);
    font-weight: 600;
  }
`;
