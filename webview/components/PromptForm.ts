import { css, html, LitElement, nothing } from 'lit';
import type { ChatCompletionRef } from '../../src/shared/chatProtocol';
import { chatQuery } from '../chatQuery';
import { base } from '../theme';

/** How long typing pauses before an argument's suggestions are asked of the server. */
export const COMPLETE_DEBOUNCE_MS = 150;

/** What the form asks for: a prompt's arguments or a resource template's variables. */
export interface PromptFormSpec {
  /** `/everything.args-prompt`, `@Dynamic Text Resource`. */
  readonly title: string;
  readonly description?: string;
  readonly server: string;
  /** Whose arguments these are, for `completion/complete`. */
  readonly ref: ChatCompletionRef;
  readonly fields: readonly { readonly name: string; readonly description?: string; readonly required: boolean }[];
  /** The main button: "Use Prompt", "Attach". */
  readonly submitLabel: string;
}

/**
 * A small form for a prompt's arguments or a template's variables. Each field is a combobox: the
 * server's suggestions (`completion/complete`, with the other fields' values as context) show
 * under it as it is typed into, debounced. Up/Down walk them, Enter or Tab takes one, Enter in a
 * field without one open submits, Escape closes the list and then the form. Fires `form-submit`
 * (detail: the values) or `form-cancel`.
 */
export class PromptForm extends LitElement {
  static override properties = { spec: { attribute: false }, _open: { state: true }, _options: { state: true }, _active: { state: true }, _errors: { state: true }, busy: { type: Boolean } };
  declare spec: PromptFormSpec;
  declare busy: boolean;
  /** The field whose suggestions show. */
  declare _open: string | undefined;
  declare _options: readonly string[];
  declare _active: number;
  declare _errors: Readonly<Record<string, string>>;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _asked = 0;

  constructor() {
    super();
    this.busy = false;
    this._options = [];
    this._active = -1;
    this._errors = {};
  }

  static override styles = [
    base,
    css`
      :host {
        display: block;
      }
      form {
        border: 1px solid var(--vscode-focusBorder);
        border-radius: 4px;
        background: var(--vscode-editorWidget-background, var(--vscode-sideBar-background));
        padding: 6px 8px;
        margin-bottom: 6px;
      }
      .title {
        font-weight: 600;
        word-break: break-all;
      }
      .field {
        display: flex;
        flex-direction: column;
        gap: 2px;
        margin: 6px 0;
        position: relative;
      }
      label {
        font-weight: 600;
      }
      input {
        font: inherit;
        color: var(--vscode-input-foreground);
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 2px;
        padding: 3px 6px;
      }
      input:focus {
        outline: 1px solid var(--vscode-focusBorder);
        outline-offset: -1px;
      }
      [aria-invalid='true'] {
        border-color: var(--vscode-inputValidation-errorBorder, var(--vscode-errorForeground));
      }
      ul[role='listbox'] {
        list-style: none;
        margin: 0;
        padding: 2px 0;
        max-height: 12em;
        overflow-y: auto;
        background: var(--vscode-editorSuggestWidget-background, var(--vscode-editorWidget-background));
        color: var(--vscode-editorSuggestWidget-foreground, var(--vscode-foreground));
        border: 1px solid var(--vscode-editorSuggestWidget-border, var(--vscode-widget-border, transparent));
      }
      li[role='option'] {
        padding: 1px 6px;
        cursor: pointer;
      }
      li[aria-selected='true'] {
        background: var(--vscode-editorSuggestWidget-selectedBackground, var(--vscode-list-activeSelectionBackground));
        color: var(--vscode-editorSuggestWidget-selectedForeground, var(--vscode-list-activeSelectionForeground));
        outline: 1px solid var(--vscode-list-focusOutline, transparent);
        outline-offset: -1px;
      }
      .actions {
        display: flex;
        gap: 4px;
        margin-top: 6px;
      }
    `,
  ];

  override connectedCallback(): void {
    super.connectedCallback();
    void this.updateComplete.then(() => this._input(this.spec.fields[0]?.name)?.focus());
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this._timer);
  }

  protected override render() {
    const spec = this.spec;
    return html`<form aria-label=${spec.title} @submit=${(e: Event) => (e.preventDefault(), this._submit())} novalidate>
      <div class="title">${spec.title}</div>
      ${spec.description ? html`<div class="muted">${spec.description}</div>` : nothing}
      ${spec.fields.map((f) => this._field(f))}
      <div class="actions">
        <vscode-button ?disabled=${this.busy} @click=${() => this._submit()}>${spec.submitLabel}</vscode-button>
        <vscode-button secondary @click=${() => this._cancel()}>Cancel</vscode-button>
      </div>
    </form>`;
  }

  private _field(f: PromptFormSpec['fields'][number]) {
    const id = `pf-${f.name}`;
    const open = this._open === f.name && this._options.length > 0;
    const error = this._errors[f.name];
    return html`<div class="field">
      <label for=${id}>${f.name}${f.required ? html`<span aria-hidden="true"> *</span>` : nothing}</label>
      <input
        id=${id}
        name=${f.name}
        type="text"
        autocomplete="off"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded=${String(open)}
        aria-controls="${id}-list"
        aria-activedescendant=${open && this._active >= 0 ? `${id}-opt-${this._active}` : nothing}
        aria-describedby="${id}-desc ${id}-err"
        aria-invalid=${String(Boolean(error))}
        ?required=${f.required}
        @input=${() => this._typed(f.name)}
        @focus=${() => this._typed(f.name, 0)}
        @blur=${() => this._closeSoon(f.name)}
        @keydown=${(e: KeyboardEvent) => this._onKeydown(e, f.name)}
      />
      <ul role="listbox" id="${id}-list" aria-label="Suggestions for ${f.name}" ?hidden=${!open}>
        ${open
          ? this._options.map(
              (o, i) =>
                html`<li role="option" id="${id}-opt-${i}" aria-selected=${String(i === this._active)} @mousedown=${(e: Event) => (e.preventDefault(), this._take(f.name, o))}>${o}</li>`,
            )
          : nothing}
      </ul>
      ${f.description ? html`<span class="muted" id="${id}-desc">${f.description}</span>` : nothing}
      ${error ? html`<span class="error" id="${id}-err" role="alert">${error}</span>` : nothing}
    </div>`;
  }

  private _input(name: string | undefined): HTMLInputElement | null {
    return name === undefined ? null : this.renderRoot.querySelector<HTMLInputElement>(`#pf-${CSS.escape(name)}`);
  }

  /** The values typed so far, empty ones left out. */
  values(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of this.spec.fields) {
      const value = this._input(f.name)?.value ?? '';
      if (value !== '') out[f.name] = value;
    }
    return out;
  }

  /** Asks for suggestions once typing pauses; the latest answer wins. */
  private _typed(name: string, delay = COMPLETE_DEBOUNCE_MS): void {
    clearTimeout(this._timer);
    if (this._errors[name]) this._errors = { ...this._errors, [name]: '' };
    this._timer = setTimeout(() => void this._complete(name), delay);
  }

  private async _complete(name: string, activate = false): Promise<void> {
    const mine = ++this._asked;
    const { [name]: value = '', ...context } = this.values();
    const answer = await chatQuery(this, { type: 'complete', server: this.spec.server, ref: this.spec.ref, argument: { name, value }, context });
    if (mine !== this._asked || this._input(name) !== (this.renderRoot as ShadowRoot).activeElement) return;
    this._open = name;
    this._options = answer.ok ? answer.value.values : [];
    this._active = activate && this._options.length ? 0 : -1;
  }

  private _closeSoon(name: string): void {
    // A click on an option lands first (its mousedown keeps the focus).
    if (this._open === name) this._close();
  }

  private _close(): void {
    this._open = undefined;
    this._options = [];
    this._active = -1;
    this._asked++;
  }

  private _take(name: string, value: string): void {
    const input = this._input(name);
    if (input) input.value = value;
    this._close();
  }

  private _onKeydown(e: KeyboardEvent, name: string): void {
    const open = this._open === name && this._options.length > 0;
    if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && open) {
      e.preventDefault();
      const n = this._options.length;
      this._active = e.key === 'ArrowDown' ? (this._active + 1) % n : (this._active - 1 + n) % n;
      void this.updateComplete.then(() => this.renderRoot.querySelector(`#pf-${CSS.escape(name)}-opt-${this._active}`)?.scrollIntoView({ block: 'nearest' }));
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && !e.altKey) {
      // A closed list opens on Down, its first suggestion highlighted.
      e.preventDefault();
      clearTimeout(this._timer);
      void this._complete(name, true);
    } else if ((e.key === 'Enter' || e.key === 'Tab') && open && this._active >= 0) {
      if (e.key === 'Enter') e.preventDefault();
      this._take(name, this._options[this._active]!);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      this._submit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (open) this._close();
      else this._cancel();
    }
  }

  private _submit(): void {
    if (this.busy) return;
    const values = this.values();
    const errors: Record<string, string> = {};
    for (const f of this.spec.fields) if (f.required && !values[f.name]) errors[f.name] = `${f.name} is required`;
    this._errors = errors;
    if (Object.keys(errors).length) {
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    this._close();
    this.dispatchEvent(new CustomEvent('form-submit', { detail: values }));
  }

  private _cancel(): void {
    this._close();
    this.dispatchEvent(new CustomEvent('form-cancel'));
  }
}
