// Over 300 lines: one card for every kind of question a server asks (a form of typed fields, a page
// to open, a request to use the model), sharing one style sheet, one send path and one focus rule;
// a file per kind would repeat those three.
import { css, html, LitElement, nothing } from 'lit';
import type { ChatAsk, ChatAskAction, ChatAskErrors, ChatAskField } from '../../src/shared/chatProtocol';
import type { ChatClient } from '../ChatClient';
import { base } from '../theme';

const INPUT_TYPE: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/**
 * A question a server asks: a form rendered from its schema ("Submit", "Decline", "Cancel"), a
 * page to open with its host shown first, or a request to use the model ("Allow once", "Allow for
 * this session", "Deny") that then shows the model's answer. Typed values live in the inputs
 * only; the host checks them and answers with one message per field when they do not fit.
 */
export class AskCard extends LitElement {
  static override properties = { ask: { attribute: false }, client: { attribute: false }, _errors: { state: true }, _sent: { state: true } };
  declare ask: ChatAsk;
  declare client: ChatClient;
  declare _errors: ChatAskErrors;
  declare _sent: boolean;

  constructor() {
    super();
    this._errors = {};
    this._sent = false;
  }

  static override styles = [
    base,
    css`
      :host {
        display: block;
      }
      .card {
        border: 1px solid var(--vscode-focusBorder);
        border-radius: 4px;
        background: var(--vscode-editorWidget-background, var(--vscode-sideBar-background));
        padding: 6px 8px;
      }
      .title {
        font-weight: 600;
      }
      .host {
        font-size: 1.2em;
        font-weight: 600;
        word-break: break-all;
      }
      .url {
        word-break: break-all;
      }
      .field {
        display: flex;
        flex-direction: column;
        gap: 2px;
        margin: 6px 0;
      }
      .field.inline {
        flex-direction: row;
        align-items: center;
        gap: 6px;
      }
      label {
        font-weight: 600;
      }
      input[type='text'],
      input[type='email'],
      input[type='url'],
      input[type='date'],
      input[type='datetime-local'],
      input[type='number'],
      select {
        font: inherit;
        color: var(--vscode-input-foreground);
        background: var(--vscode-input-background);
        border: 1px solid var(--vscode-input-border, var(--vscode-widget-border, transparent));
        border-radius: 2px;
        padding: 3px 6px;
        min-width: 0;
      }
      input:focus,
      select:focus {
        outline: 1px solid var(--vscode-focusBorder);
        outline-offset: -1px;
      }
      [aria-invalid='true'] {
        border-color: var(--vscode-inputValidation-errorBorder, var(--vscode-errorForeground));
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 4px;
        margin-top: 6px;
      }
      .meta {
        margin: 4px 0;
      }
      .message {
        margin: 4px 0;
      }
    `,
  ];

  protected override willUpdate(changed: Map<string, unknown>): void {
    const before = changed.get('ask') as ChatAsk | undefined;
    // A new question, or the same page card moving on to "finish there": its buttons answer again.
    if (changed.has('ask') && (before?.id !== this.ask.id || (before.kind === 'url' && this.ask.kind === 'url' && before.phase !== this.ask.phase))) {
      this._errors = {};
      this._sent = false;
    }
  }

  protected override render() {
    const ask = this.ask;
    switch (ask.kind) {
      case 'form':
        return this._form(ask);
      case 'url':
        return this._url(ask);
      case 'sampling':
        return this._sampling(ask);
    }
  }

  private _form(ask: Extract<ChatAsk, { kind: 'form' }>) {
    return html`<section class="card" role="form" aria-label="${ask.server} asks for information">
      <div class="title">${ask.server} asks for information</div>
      <div class="message">${ask.message}</div>
      <form @submit=${(e: Event) => (e.preventDefault(), this._submit())} @keydown=${this._onKeydown} novalidate>
        ${ask.fields.map((f) => this._field(f))}
        <div class="actions">
          <vscode-button ?disabled=${this._sent} @click=${() => this._submit()}>Submit</vscode-button>
          <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('decline')}>Decline</vscode-button>
          <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('cancel')}>Cancel</vscode-button>
        </div>
      </form>
    </section>`;
  }

  private _field(f: ChatAskField) {
    const id = `f-${f.name}`;
    const error = this._errors[f.name];
    const describedBy = `${id}-desc ${id}-err`;
    const label = html`<label for=${id}>${f.label}${f.required ? html`<span aria-hidden="true"> *</span>` : nothing}</label>`;
    const help = html`${f.description ? html`<span class="muted" id="${id}-desc">${f.description}</span>` : nothing}
      ${error ? html`<span class="error" id="${id}-err" role="alert">${error}</span>` : nothing}`;
    switch (f.kind) {
      case 'boolean':
        return html`<div class="field inline">
            <input type="checkbox" id=${id} name=${f.name} .checked=${f.default === true} aria-describedby=${describedBy} aria-invalid=${String(Boolean(error))} />${label}
          </div>
          <div class="field">${help}</div>`;
      case 'enum':
        return html`<div class="field">
          ${label}
          <select id=${id} name=${f.name} aria-describedby=${describedBy} aria-invalid=${String(Boolean(error))} ?required=${f.required}>
            ${f.required && f.default === undefined ? html`<option value="">Choose…</option>` : f.required ? nothing : html`<option value="">(none)</option>`}
            ${(f.options ?? []).map((o) => html`<option value=${o.value} ?selected=${o.value === f.default}>${o.title}</option>`)}
          </select>
          ${help}
        </div>`;
      case 'multi': {
        const chosen = new Set(Array.isArray(f.default) ? (f.default as string[]) : []);
        return html`<fieldset class="field" id=${id} aria-describedby=${describedBy}>
          <legend>${f.label}${f.required ? ' *' : ''}</legend>
          ${(f.options ?? []).map(
            (o) => html`<label class="field inline"><input type="checkbox" name=${f.name} value=${o.value} .checked=${chosen.has(o.value)} />${o.title}</label>`,
          )}
          ${help}
        </fieldset>`;
      }
      case 'number':
        return html`<div class="field">
          ${label}
          <input
            type="number"
            id=${id}
            name=${f.name}
            step=${f.integer ? '1' : 'any'}
            min=${f.minimum ?? nothing}
            max=${f.maximum ?? nothing}
            .value=${f.default === undefined ? '' : String(f.default)}
            aria-describedby=${describedBy}
            aria-invalid=${String(Boolean(error))}
            ?required=${f.required}
          />
          ${f.minimum !== undefined || f.maximum !== undefined ? html`<span class="muted">${f.minimum ?? '…'} to ${f.maximum ?? '…'}</span>` : nothing} ${help}
        </div>`;
      default:
        return html`<div class="field">
          ${label}
          <input
            type=${INPUT_TYPE[f.format ?? ''] ?? 'text'}
            id=${id}
            name=${f.name}
            autocomplete="off"
            minlength=${f.minLength ?? nothing}
            maxlength=${f.maxLength ?? nothing}
            .value=${typeof f.default === 'string' ? f.default : ''}
            aria-describedby=${describedBy}
            aria-invalid=${String(Boolean(error))}
            ?required=${f.required}
          />
          ${help}
        </div>`;
    }
  }

  private _url(ask: Extract<ChatAsk, { kind: 'url' }>) {
    const title = ask.required ? `${ask.server} needs you to open a page before the tool can run, on` : `${ask.server} asks you to open a page on`;
    const finishing = ask.phase === 'finish';
    return html`<section class="card" aria-label=${finishing ? `${ask.server} waits for you to finish on ${ask.host}` : title.replace(/, on$| on$/, '')}>
      <div class="title">${finishing ? 'Opened in your browser:' : title}</div>
      <div class="host">${ask.host}</div>
      <div class="message">${ask.message}</div>
      <div class="url muted">${ask.url}</div>
      ${finishing
        ? html`<div class="message muted" role="status">Finish there, then the call to ${ask.server} is made again.</div>
            <div class="actions">
              <vscode-button ?disabled=${this._sent} @click=${() => this._send('done')}>I've Finished</vscode-button>
              <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('cancel')}>Cancel</vscode-button>
            </div>`
        : html`<div class="actions">
            <vscode-button ?disabled=${this._sent} @click=${() => this._send('open')}>Open ${ask.host}</vscode-button>
            <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('decline')}>Decline</vscode-button>
            <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('cancel')}>Cancel</vscode-button>
          </div>`}
    </section>`;
  }

  private _sampling(ask: Extract<ChatAsk, { kind: 'sampling' }>) {
    return html`<section class="card" aria-label="${ask.server} wants to use the model" data-state=${ask.state}>
      <div class="title">${ask.server} wants to use the model</div>
      ${ask.systemPrompt ? html`<div class="meta"><span class="muted">System prompt:</span> ${ask.systemPrompt}</div>` : nothing}
      ${ask.messages.map((m) => html`<div class="meta"><span class="muted">${m.role}:</span><pre>${m.text}</pre></div>`)}
      <div class="meta muted">
        Max tokens: ${ask.maxTokens.allowed}${ask.maxTokens.allowed < ask.maxTokens.requested ? ` (asked for ${ask.maxTokens.requested}; limited by mcpHarness.sampling.maxTokens)` : ''}
        ${ask.modelPreferences ? html`<br />Model preferences: ${ask.modelPreferences}` : nothing}
        ${ask.tools.length ? html`<br />Tools offered: ${ask.tools.join(', ')}` : nothing}
      </div>
      ${ask.state === 'waiting'
        ? html`<div class="actions">
            <vscode-button ?disabled=${this._sent} @click=${() => this._send('once')}>Allow once</vscode-button>
            <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('session')}>Allow for this session</vscode-button>
            <vscode-button secondary ?disabled=${this._sent} @click=${() => this._send('deny')}>Deny</vscode-button>
          </div>`
        : ask.state === 'running'
          ? html`<div class="muted" role="status">The model is answering…</div>`
          : html`<div class="meta">
                <span class=${ask.state === 'error' ? 'error' : 'muted'}>${ask.state === 'error' ? 'The model failed:' : `Answer${ask.model ? ` (${ask.model})` : ''}:`}</span>
                <pre class="result">${ask.result ?? ''}</pre>
              </div>
              <div class="actions"><vscode-button secondary @click=${() => this._send('dismiss')}>Dismiss</vscode-button></div>`}
    </section>`;
  }

  /** Reads the form's inputs into values of each field's kind (nothing typed is kept here). */
  private _values(): Record<string, unknown> {
    if (this.ask.kind !== 'form') return {};
    const root = this.renderRoot;
    const values: Record<string, unknown> = {};
    for (const f of this.ask.fields) {
      if (f.kind === 'multi') {
        const picked = [...root.querySelectorAll<HTMLInputElement>(`input[name="${CSS.escape(f.name)}"]`)].filter((i) => i.checked).map((i) => i.value);
        if (picked.length) values[f.name] = picked;
        continue;
      }
      const el = root.querySelector<HTMLInputElement | HTMLSelectElement>(`#f-${CSS.escape(f.name)}`);
      if (!el) continue;
      if (f.kind === 'boolean') values[f.name] = (el as HTMLInputElement).checked;
      else if (el.value === '') continue;
      else if (f.kind === 'number') values[f.name] = Number(el.value);
      else if (f.format === 'date-time') values[f.name] = el.value.length === 16 ? `${el.value}:00` : el.value;
      else values[f.name] = el.value;
    }
    return values;
  }

  /** Enter in a text or number field submits, as in any form. */
  private readonly _onKeydown = (e: KeyboardEvent): void => {
    const target = e.composedPath()[0];
    if (e.key !== 'Enter' || !(target instanceof HTMLInputElement) || target.type === 'checkbox' || this._sent) return;
    e.preventDefault();
    void this._submit();
  };

  private async _submit(): Promise<void> {
    this._sent = true;
    const answer = await this.client.request({ type: 'answerAsk', id: this.ask.id, action: 'submit', values: this._values() });
    const errors = answer.ok ? (answer.value.errors as ChatAskErrors | undefined) : undefined;
    if (errors && Object.keys(errors).length) {
      this._errors = errors;
      this._sent = false;
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
    } else if (!answer.ok) this._sent = false;
  }

  private _send(action: ChatAskAction): void {
    this._sent = true;
    void this.client.request({ type: 'answerAsk', id: this.ask.id, action }).then((answer) => {
      if (!answer.ok) this._sent = false;
    });
  }
}
