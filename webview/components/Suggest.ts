import { html, LitElement, nothing } from 'lit';
import type { ChatSuggestion } from '../../src/shared/chatProtocol';
import { chatQuery } from '../chatQuery';
import { styles } from './suggestStyles';
import { suggestionDetail, suggestionLabel, triggerAt, type SuggestTrigger } from '../suggestText';
import type { PromptFormSpec } from './PromptForm';

/**
 * Autocomplete for the message box: `/` offers the chat's commands and every running server's
 * prompts (`/<server>.<prompt>`), `@` their resources and resource templates, each with its
 * description. The box stays focused and points at the highlighted option
 * (`aria-activedescendant`); Up/Down move, Enter or Tab take it, Escape closes the list. A prompt
 * with arguments and a template open a {@link PromptForm}; a prompt's messages land in the box to
 * be read and edited before sending; a resource becomes a chip.
 */
export class Suggest extends LitElement {
  static override properties = { _items: { state: true }, _active: { state: true }, _form: { state: true }, _status: { state: true }, _open: { state: true } };
  declare _items: readonly ChatSuggestion[];
  declare _active: number;
  declare _open: boolean;
  /** The prompt or template whose form shows, and what it came from. */
  declare _form: { spec: PromptFormSpec; pick: ChatSuggestion } | undefined;
  declare _status: { text: string; error?: boolean } | undefined;
  private _box: HTMLTextAreaElement | undefined;
  private _trigger: SuggestTrigger | undefined;
  private _asked = 0;
  /** Set while this element writes the box: its own text is not a trigger. */
  private _writing = false;

  constructor() {
    super();
    this._items = [];
    this._active = 0;
    this._open = false;
  }

  /** Renders beside the message box, in its shadow root. */
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    const root = this.getRootNode() as ShadowRoot | Document;
    const sheet = styles.styleSheet;
    if (sheet && !root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    root.addEventListener('keydown', this._onKeydown as EventListener, { capture: true });
    root.addEventListener('input', this._onInput, { capture: true });
    root.addEventListener('focusout', this._onFocusOut as EventListener, { capture: true });
    root.addEventListener('focusin', this._onInput, { capture: true });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    const root = this.getRootNode() as ShadowRoot | Document;
    root.removeEventListener('keydown', this._onKeydown as EventListener, { capture: true });
    root.removeEventListener('input', this._onInput, { capture: true });
    root.removeEventListener('focusout', this._onFocusOut as EventListener, { capture: true });
    root.removeEventListener('focusin', this._onInput, { capture: true });
  }

  /** The message box this list serves: the textarea beside it. */
  private _messageBox(): HTMLTextAreaElement | undefined {
    this._box ??= (this.getRootNode() as ParentNode).querySelector<HTMLTextAreaElement>('textarea') ?? undefined;
    if (this._box && !this._box.hasAttribute('aria-controls')) {
      this._box.setAttribute('aria-autocomplete', 'list');
      this._box.setAttribute('aria-controls', 'mcp-suggest-list');
    }
    return this._box;
  }

  protected override render() {
    const open = this._open && this._items.length > 0;
    return html`
      ${this._form
        ? html`<mcp-prompt-form .spec=${this._form.spec} .busy=${this._status !== undefined && !this._status.error} @form-submit=${this._onSubmit} @form-cancel=${this._closeForm}></mcp-prompt-form>`
        : nothing}
      ${this._status ? html`<div class="suggest-status ${this._status.error ? 'error' : 'muted'}" role=${this._status.error ? 'alert' : 'status'}>${this._status.text}</div>` : nothing}
      <div class="suggest-list" id="mcp-suggest-list" role="listbox" aria-label=${this._trigger?.trigger === '@' ? 'Resources' : 'Commands and prompts'} ?hidden=${!open}>
        ${open
          ? this._items.map(
              (s, i) =>
                html`<div role="option" id="mcp-suggest-${i}" aria-selected=${String(i === this._active)} title=${[suggestionLabel(s), suggestionDetail(s)].filter(Boolean).join('\n')} @mousedown=${(e: Event) => (e.preventDefault(), void this._choose(i))}>
                  <span class="label">${suggestionLabel(s)}</span>${suggestionDetail(s) ? html`<span class="detail">${suggestionDetail(s)}</span>` : nothing}
                </div>`,
            )
          : nothing}
      </div>
    `;
  }

  protected override updated(): void {
    const box = this._messageBox();
    if (!box) return;
    const open = this._open && this._items.length > 0;
    box.setAttribute('aria-expanded', String(open));
    if (open) box.setAttribute('aria-activedescendant', `mcp-suggest-${this._active}`);
    else box.removeAttribute('aria-activedescendant');
    if (open) this.querySelector(`#mcp-suggest-${this._active}`)?.scrollIntoView({ block: 'nearest' });
  }

  /** Typing in the box (or coming back to it) with a trigger before the caret opens the list. */
  private readonly _onInput = (e: Event): void => {
    const box = this._messageBox();
    if (e.composedPath()[0] !== box || !box || this._writing) return;
    if (e.type === 'input') this._status = undefined;
    this._trigger = triggerAt(box.value, box.selectionStart ?? box.value.length);
    if (!this._trigger) return this._close();
    void this._lookUp(this._trigger);
  };

  private async _lookUp(trigger: SuggestTrigger): Promise<void> {
    const mine = ++this._asked;
    const answer = await chatQuery(this, { type: 'suggest', trigger: trigger.trigger, query: trigger.query });
    if (mine !== this._asked) return;
    this._items = answer.ok ? answer.value.items : [];
    this._active = 0;
    this._open = true;
  }

  private _close(): void {
    this._asked++;
    this._open = false;
    this._items = [];
  }

  private readonly _onFocusOut = (e: FocusEvent): void => {
    if (e.composedPath()[0] === this._box) this._close();
  };

  private readonly _onKeydown = (e: KeyboardEvent): void => {
    if (e.composedPath()[0] !== this._messageBox() || !this._open || this._items.length === 0 || e.isComposing) return;
    const n = this._items.length;
    const handled = (): void => {
      e.preventDefault();
      e.stopPropagation();
    };
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      handled();
      this._active = e.key === 'ArrowDown' ? (this._active + 1) % n : (this._active - 1 + n) % n;
    } else if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      // A command typed out in full is sent by Enter, not chosen again.
      const pick = this._items[this._active];
      if (e.key === 'Enter' && pick?.kind === 'command' && pick.insert.trim() === this._box?.value.trim()) return this._close();
      handled();
      void this._choose(this._active);
    } else if (e.key === 'Escape') {
      handled();
      this._close();
    }
  };

  /** Takes entry `i`: a command's text, a prompt (at once or through its form), a resource, a template's form. */
  private async _choose(i: number): Promise<void> {
    const pick = this._items[i];
    const box = this._messageBox();
    const trigger = this._trigger;
    if (!pick || !box || !trigger) return;
    this._close();
    const rest = box.value.slice(trigger.end);
    const head = box.value.slice(0, trigger.start);
    switch (pick.kind) {
      case 'command':
        return this._setBox(head + pick.insert + rest.replace(/^\s+/, ''), (head + pick.insert).length);
      case 'prompt':
        this._setBox(head + rest, head.length);
        if (pick.arguments.length === 0) return this._usePrompt(pick, {});
        this._form = {
          pick,
          spec: {
            title: suggestionLabel(pick),
            ...(pick.description ? { description: pick.description } : {}),
            server: pick.server,
            ref: { type: 'ref/prompt', name: pick.name },
            fields: pick.arguments,
            submitLabel: 'Use Prompt',
          },
        };
        return;
      case 'resource':
        this._setBox(`${head}@${pick.title ?? pick.name} ${rest.replace(/^\s+/, '')}`, head.length + (pick.title ?? pick.name).length + 2);
        return this._attach(pick.server, { uri: pick.uri }, pick.title ?? pick.name);
      case 'template':
        this._setBox(head + rest, head.length);
        this._form = {
          pick,
          spec: {
            title: suggestionLabel(pick),
            description: pick.description ?? pick.uriTemplate,
            server: pick.server,
            ref: { type: 'ref/resource', uri: pick.uriTemplate },
            fields: pick.variables.map((name) => ({ name, required: true })),
            submitLabel: 'Attach',
          },
        };
        return;
    }
  }

  private readonly _onSubmit = (e: CustomEvent<Record<string, string>>): void => {
    const pick = this._form?.pick;
    if (pick?.kind === 'prompt') void this._usePrompt(pick, e.detail);
    else if (pick?.kind === 'template') void this._attach(pick.server, { template: { uriTemplate: pick.uriTemplate, variables: e.detail } }, pick.title ?? pick.name);
  };

  private readonly _closeForm = (): void => {
    this._form = undefined;
    this._status = undefined;
    this._messageBox()?.focus();
  };

  /** The prompt's messages replace the box's text (the person reads them, edits, and sends). */
  private async _usePrompt(pick: Extract<ChatSuggestion, { kind: 'prompt' }>, args: Record<string, string>): Promise<void> {
    this._status = { text: `Getting ${suggestionLabel(pick)}…` };
    const answer = await chatQuery(this, { type: 'usePrompt', server: pick.server, name: pick.name, arguments: args });
    if (!answer.ok) {
      this._status = { text: `${suggestionLabel(pick)}: ${answer.error}`, error: true };
      return;
    }
    this._form = undefined;
    this._status = undefined;
    const box = this._messageBox();
    const before = box?.value.trim() ? `${box.value.trimEnd()}\n\n` : '';
    this._setBox(before + answer.value.text, (before + answer.value.text).length);
  }

  private async _attach(server: string, target: { uri?: string; template?: { uriTemplate: string; variables: Record<string, string> } }, name: string): Promise<void> {
    this._status = { text: `Attaching ${name}…` };
    const answer = await chatQuery(this, { type: 'attachResource', server, ...target });
    if (!answer.ok) {
      this._status = { text: `${name}: ${answer.error}`, error: true };
      return;
    }
    this._form = undefined;
    this._status = undefined;
    this._messageBox()?.focus();
  }

  private _setBox(value: string, caret: number): void {
    const box = this._messageBox();
    if (!box) return;
    box.value = value;
    box.focus();
    box.setSelectionRange(caret, caret);
    // The box's own listeners (history recall) learn that its text is the person's now.
    this._writing = true;
    try {
      box.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    } finally {
      this._writing = false;
    }
  }
}
