import type { ChatAsk, ChatAskAction, ChatAskErrors } from '../../shared/chatProtocol';
import { validateElicitationValues, type ElicitForm } from '../requests/elicitationForm';
import type { ElicitFormAnswer, ElicitFormAsk, ElicitUrlAsk, IServerAskPrompter, SamplingAsk, SamplingChoice, SamplingOutcome } from '../requests/types';

type Pending =
  | { readonly view: Extract<ChatAsk, { kind: 'form' }>; readonly form: ElicitForm; readonly resolve: (a: ElicitFormAnswer) => void }
  | { readonly view: Extract<ChatAsk, { kind: 'url' }>; readonly resolve: (a: 'accept' | 'decline' | 'cancel') => void }
  | { readonly view: Extract<ChatAsk, { kind: 'url' }>; readonly finish: (a: 'done' | 'cancel') => void }
  | { view: Extract<ChatAsk, { kind: 'sampling' }>; resolve?: (a: SamplingChoice) => void };

/** A card's answer that cannot be taken (the card is gone, or the action is not one of its own). */
export class ChatAskError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChatAskError';
  }
}

/**
 * Servers' questions as cards in the chat panel, beside the transcript and never in it: several
 * from several servers at once, answered in any order. A form's values are checked here (one
 * validator for every host); what was typed is passed on to the server and kept nowhere else. A
 * sampling card stays after its answer to show what the model said, until dismissed.
 */
export class ChatAsks implements IServerAskPrompter {
  private readonly _cards = new Map<string, Pending>();

  constructor(private readonly _post: (asks: ChatAsk[]) => void) {}

  /** The cards as the panel shows them. */
  views(): ChatAsk[] {
    return [...this._cards.values()].map((c) => c.view);
  }

  askForm(ask: ElicitFormAsk, signal: AbortSignal): Promise<ElicitFormAnswer> {
    const view: Extract<ChatAsk, { kind: 'form' }> = { kind: 'form', id: ask.id, server: ask.server, message: ask.form.message, fields: ask.form.fields.map((f) => ({ ...f })) };
    return this._wait<ElicitFormAnswer>(ask.id, signal, { action: 'cancel' }, (resolve) => ({ view, form: ask.form, resolve }));
  }

  askUrl(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'accept' | 'decline' | 'cancel'> {
    const view = urlView(ask, 'open');
    return this._wait<'accept' | 'decline' | 'cancel'>(ask.id, signal, 'cancel', (resolve) => ({ view, resolve }));
  }

  /** The same card, now saying the page is open: "I've Finished" retries the call, "Cancel" ends it. */
  askUrlFinished(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'done' | 'cancel'> {
    const view = urlView(ask, 'finish');
    return this._wait<'done' | 'cancel'>(ask.id, signal, 'cancel', (finish) => ({ view, finish }));
  }

  askSampling(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingChoice> {
    const view = { ...samplingView(ask), state: 'waiting' as const };
    return this._wait<SamplingChoice>(ask.id, signal, 'deny', (resolve) => ({ view, resolve }));
  }

  showSamplingOutcome(ask: SamplingAsk, outcome: SamplingOutcome): void {
    // The asked card, answered; or, allowed by a rule or for the session, one that appears now with the answer.
    const base = samplingView(ask);
    const view = outcome.ok
      ? { ...base, state: 'done' as const, result: outcome.text + (outcome.toolCalls.length ? `\n\n(asks for tools: ${outcome.toolCalls.join(', ')})` : ''), model: outcome.model }
      : { ...base, state: 'error' as const, result: outcome.error };
    this._cards.set(ask.id, { view });
    this._changed();
  }

  /**
   * The person's answer to card `id`. A form that does not fit comes back with one message per
   * field and stays open.
   */
  answer(id: string, action: ChatAskAction, values: unknown): { errors?: ChatAskErrors } {
    const card = this._cards.get(id);
    if (!card) throw new ChatAskError('This question is no longer waiting for an answer.');
    switch (card.view.kind) {
      case 'form': {
        const form = card as Extract<Pending, { form: ElicitForm }>;
        if (action === 'submit') {
          const checked = validateElicitationValues(form.form, isRecord(values) ? values : {});
          if (!checked.ok) return { errors: checked.error };
          this._settle(id);
          form.resolve({ action: 'accept', values: checked.value });
        } else if (action === 'decline' || action === 'cancel') {
          this._settle(id);
          form.resolve({ action });
        } else throw new ChatAskError(`A form cannot be answered with "${action}".`);
        return {};
      }
      case 'url': {
        if ('finish' in card) {
          if (action !== 'done' && action !== 'cancel') throw new ChatAskError(`An opened page cannot be answered with "${action}".`);
          this._settle(id);
          card.finish(action);
          return {};
        }
        const page = card as Extract<Pending, { resolve: (a: 'accept' | 'decline' | 'cancel') => void }>;
        if (action !== 'open' && action !== 'decline' && action !== 'cancel') throw new ChatAskError(`A page request cannot be answered with "${action}".`);
        this._settle(id);
        page.resolve(action === 'open' ? 'accept' : action);
        return {};
      }
      case 'sampling': {
        const sampling = card as Extract<Pending, { view: { kind: 'sampling' } }>;
        if (action === 'dismiss' && sampling.view.state !== 'waiting' && sampling.view.state !== 'running') {
          this._settle(id);
          return {};
        }
        if ((action !== 'once' && action !== 'session' && action !== 'deny') || !sampling.resolve) throw new ChatAskError(`This sampling card cannot be answered with "${action}".`);
        const resolve = sampling.resolve;
        if (action === 'deny') this._settle(id);
        else {
          this._cards.set(id, { view: { ...sampling.view, state: 'running' } });
          this._changed();
        }
        resolve(action);
        return {};
      }
    }
  }

  /** Cancels every question (the window closes). */
  cancelAll(): void {
    for (const [id, card] of [...this._cards]) {
      this._cards.delete(id);
      if (card.view.kind === 'form') (card as Extract<Pending, { form: ElicitForm }>).resolve({ action: 'cancel' });
      else if ('finish' in card) card.finish('cancel');
      else if (card.view.kind === 'url') (card as Extract<Pending, { resolve: (a: 'accept' | 'decline' | 'cancel') => void }>).resolve('cancel');
      else (card as Extract<Pending, { view: { kind: 'sampling' } }>).resolve?.('deny');
    }
    this._changed();
  }

  private _wait<R>(id: string, signal: AbortSignal, onAbort: R, make: (resolve: (r: R) => void) => Pending): Promise<R> {
    return new Promise<R>((resolve) => {
      if (signal.aborted) return resolve(onAbort);
      const abort = () => {
        // The server gave up (or the host timed out): the card goes, unanswered.
        if (this._cards.get(id)?.view.kind !== 'sampling' || (this._cards.get(id)!.view as { state: string }).state === 'waiting') this._settle(id);
        resolve(onAbort);
      };
      signal.addEventListener('abort', abort, { once: true });
      this._cards.set(
        id,
        make((answer: R) => {
          signal.removeEventListener('abort', abort);
          resolve(answer);
        }),
      );
      this._changed();
    });
  }

  private _settle(id: string): void {
    if (this._cards.delete(id)) this._changed();
  }

  private _changed(): void {
    this._post(this.views());
  }
}

/** What a sampling request's card shows of it, but its state: the same whether the person is asked or not. */
function samplingView(ask: SamplingAsk): Omit<Extract<ChatAsk, { kind: 'sampling' }>, 'state'> {
  return {
    kind: 'sampling',
    id: ask.id,
    server: ask.server,
    messages: ask.messages,
    ...(ask.systemPrompt !== undefined ? { systemPrompt: ask.systemPrompt } : {}),
    maxTokens: ask.maxTokens,
    ...(ask.modelPreferences !== undefined ? { modelPreferences: ask.modelPreferences } : {}),
    tools: ask.tools,
  };
}

function urlView(ask: ElicitUrlAsk, phase: 'open' | 'finish'): Extract<ChatAsk, { kind: 'url' }> {
  return { kind: 'url', id: ask.id, server: ask.server, message: ask.message, url: ask.url, host: ask.host, ...(ask.required ? { required: true, phase } : {}) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
