import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type CreateMessageRequest, type CreateMessageResult, type CreateMessageResultWithTools, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import type { IModelProvider, ModelToolCall } from '../agent/types';
import { describeError } from '../base/errors';
import type { IMcpClientHandlers } from '../mcp/McpClientHandlers';
import { parseElicitationForm, validateElicitationValues } from './elicitationForm';
import { describeModelPreferences, toAskMessages, toChatMessages, toModelTools, toSamplingResult } from './samplingMessages';
import { ServerAskQueue, ServerAskRefused } from './ServerAskQueue';
import { DEFAULT_SAMPLING_MAX_TOKENS, type ElicitUrlAsk, type IServerAskPrompter, type SamplingAsk, type SamplingPolicy } from './types';

/** The JSON-RPC code the spec gives a sampling request the user (or a rule) refused. */
export const SAMPLING_REJECTED_CODE = -1;
/** A question nobody answers in this long is cancelled (default 10 minutes). */
export const DEFAULT_ASK_TIMEOUT_MS = 10 * 60_000;

/** The model sampling runs on: the chat's current one. */
export interface SamplingModel {
  readonly provider: IModelProvider;
  readonly model: string;
}

export interface ServerAsksOptions {
  /** Who asks the person now (a chat card, an input flow, a terminal); undefined: nobody can. */
  prompter(): IServerAskPrompter | undefined;
  /**
   * Opens a page in the browser, called only after the person accepted a URL request. `false`:
   * it was not opened (say, the person said no to the editor's own question), so nobody waits for it.
   */
  openUrl?(url: string): Promise<boolean | void>;
  /** The sampling rule and limit for `server`. */
  samplingPolicy?(server: string): SamplingPolicy;
  /** The model to sample with; undefined: none is available, sampling is refused with that reason. */
  samplingModel?(): SamplingModel | undefined;
  readonly queue?: ServerAskQueue;
  readonly askTimeoutMs?: number;
  /** Why nobody can be asked when `prompter()` gives none (default "nobody can be asked here"). */
  readonly unattendedReason?: string;
  /** Facts for the server's log (never what was typed into a form). */
  log?(server: string, message: string): void;
}

/**
 * Answers what servers ask of the host: forms and pages (elicitation) and model answers
 * (sampling), on both revisions (the SDK routes 2026-07-28 `input_required` rounds to the same
 * handlers). Every question is bounded per server by one queue; a malformed form is refused with
 * the reason and never shown; a form's values are checked before they are sent.
 */
export class ServerAsks {
  private readonly _queue: ServerAskQueue;
  /** Servers the person allowed to sample for the rest of this session. */
  private readonly _sessionAllowed = new Set<string>();

  constructor(private readonly _o: ServerAsksOptions) {
    this._queue = _o.queue ?? new ServerAskQueue();
  }

  /** The handlers to give a harness: elicitation (form and URL) and sampling (with tools). */
  handlers(): Pick<IMcpClientHandlers, 'elicit' | 'elicitUrl' | 'sample' | 'samplingTools'> {
    return {
      elicit: (server, params, signal) => this.elicit(server, params, signal),
      elicitUrl: this._o.openUrl !== undefined,
      // Without a model there is nothing to sample with: the capability is not declared.
      ...(this._o.samplingModel ? { sample: (server, params, signal) => this.sample(server, params, signal), samplingTools: true } : {}),
    } satisfies IMcpClientHandlers;
  }

  /** Forgets "Allow for this session" choices. */
  resetSession(): void {
    this._sessionAllowed.clear();
  }

  async elicit(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const prompter = this._o.prompter();
    if (params.mode === 'url') {
      const url = checkUrl(params.url);
      if (!prompter) return this._unattended(server, 'elicitation');
      const ask = { id: randomUUID(), server, message: params.message, url: url.href, host: url.host };
      const action = await this._ask(server, 'elicitation', signal, (s) => prompter.askUrl(ask, s), 'cancel');
      if (action === 'accept') {
        this._o.log?.(server, `opening ${url.host} in the browser, as the server asked and the user accepted`);
        if ((await this._o.openUrl?.(url.href)) === false) {
          this._o.log?.(server, `${url.host} was not opened: answered the server as cancelled`);
          return { action: 'cancel' };
        }
      }
      return { action };
    }
    const form = parseElicitationForm(params.message, (params as { requestedSchema?: unknown }).requestedSchema);
    if (!form.ok) {
      this._o.log?.(server, `refused an elicitation whose form cannot be shown: ${form.error}`);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the requested form cannot be shown: ${form.error}`);
    }
    if (!prompter) return this._unattended(server, 'elicitation');
    const ask = { id: randomUUID(), server, form: form.value };
    const answer = await this._ask(server, 'elicitation', signal, (s) => prompter.askForm(ask, s), { action: 'cancel' } as const);
    if (answer.action !== 'accept') return { action: answer.action };
    const checked = validateElicitationValues(form.value, answer.values);
    // The form checks as the person types; values that still do not fit are never sent.
    if (!checked.ok) return { action: 'cancel' };
    return { action: 'accept', content: checked.value as Record<string, string | number | boolean | string[]> };
  }

  /**
   * A tool call the server refused until the person visits `pages` (error -32042): each page's
   * card (open only after the person confirms), then the wait until they say they finished.
   * `ok: false` says why the call cannot go on (declined, cancelled, nobody to ask, a bad URL).
   */
  async visitRequiredPages(server: string, pages: readonly { readonly url: string; readonly message: string }[], signal: AbortSignal): Promise<{ ok: true } | { ok: false; reason: string }> {
    for (const page of pages) {
      const url = URL.canParse(page.url) ? new URL(page.url) : undefined;
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return { ok: false, reason: `the server asks for a page that is not an http or https address (${JSON.stringify(page.url.slice(0, 200))}); the tool did not run` };
      const needs = `the server needs the user to open a page on ${url.host} first ("${page.message}")`;
      const prompter = this._o.prompter();
      if (!prompter || !this._o.openUrl) return { ok: false, reason: `${needs}; nobody could be asked (${this._o.unattendedReason ?? 'no one to ask here'}), so the tool did not run` };
      const ask: ElicitUrlAsk = { id: randomUUID(), server, message: page.message, url: url.href, host: url.host, required: true };
      const action = await this._ask(server, 'elicitation', signal, (s) => prompter.askUrl(ask, s), 'cancel');
      if (action !== 'accept') return { ok: false, reason: `${needs}; the user ${action === 'decline' ? 'declined to open it' : 'cancelled'}, so the tool did not run` };
      this._o.log?.(server, `opening ${url.host} in the browser, as the server asked before a tool call and the user accepted`);
      if ((await this._o.openUrl(url.href)) === false) return { ok: false, reason: `${needs}; the page was not opened, so the tool did not run` };
      const finished = prompter.askUrlFinished ? await this._ask(server, 'elicitation', signal, (s) => prompter.askUrlFinished!(ask, s), 'cancel' as const) : 'done';
      if (finished !== 'done') return { ok: false, reason: `${needs}; the user opened it but did not finish there, so the tool did not run` };
    }
    return { ok: true };
  }

  async sample(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult | CreateMessageResultWithTools> {
    const policy = this._o.samplingPolicy?.(server) ?? { rule: 'ask', maxTokens: DEFAULT_SAMPLING_MAX_TOKENS };
    if (policy.rule === 'deny') throw new ProtocolError(SAMPLING_REJECTED_CODE, `sampling is denied for "${server}" by the host's settings`);
    const model = this._o.samplingModel?.();
    if (!model) throw new ProtocolError(ProtocolErrorCode.InternalError, 'the host has no language model available for sampling');
    const tools = toModelTools(params);
    const ask: SamplingAsk = {
      id: randomUUID(),
      server,
      messages: toAskMessages(params),
      ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
      maxTokens: { requested: params.maxTokens, allowed: Math.max(1, Math.min(params.maxTokens, policy.maxTokens)) },
      ...(describeModelPreferences(params) ? { modelPreferences: describeModelPreferences(params) } : {}),
      tools: tools.map((t) => t.name),
    };
    const needsAsk = policy.rule === 'ask' && !this._sessionAllowed.has(server);
    const prompter = this._o.prompter();
    if (needsAsk) {
      if (!prompter) throw new ProtocolError(SAMPLING_REJECTED_CODE, `sampling needs the user's approval: ${this._o.unattendedReason ?? 'nobody can be asked here'}`);
      const choice = await this._ask(server, 'sampling', signal, (s) => prompter.askSampling(ask, s), 'deny');
      if (choice === 'deny') throw new ProtocolError(SAMPLING_REJECTED_CODE, 'the user declined the sampling request');
      if (choice === 'session') this._sessionAllowed.add(server);
    }
    try {
      const { text, toolCalls, reason } = await runModel(model, params, tools, ask.maxTokens.allowed, signal);
      prompter?.showSamplingOutcome?.(ask, { ok: true, text, model: model.model, toolCalls: toolCalls.map((c) => c.name) });
      return toSamplingResult(text, toolCalls, model.model, reason, tools.length > 0);
    } catch (err) {
      if (signal.aborted) {
        prompter?.showSamplingOutcome?.(ask, { ok: false, error: 'the server cancelled the request' });
        throw err;
      }
      const message = describeError(err);
      prompter?.showSamplingOutcome?.(ask, { ok: false, error: message });
      throw new ProtocolError(ProtocolErrorCode.InternalError, `the model failed: ${message}`);
    }
  }

  /** Runs one question under the per-server bound and the host's timeout. */
  private async _ask<T>(server: string, kind: string, signal: AbortSignal, ask: (signal: AbortSignal) => Promise<T>, onAbort: T): Promise<T> {
    const timeout = AbortSignal.timeout(this._o.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS);
    const both = AbortSignal.any([signal, timeout]);
    try {
      return await this._queue.run(server, kind, async () => {
        const answer = await ask(both);
        return both.aborted ? onAbort : answer;
      });
    } catch (err) {
      if (err instanceof ServerAskRefused) {
        this._o.log?.(server, err.message);
        throw new ProtocolError(ProtocolErrorCode.InternalError, err.message);
      }
      throw err;
    }
  }

  private _unattended(server: string, kind: string): ElicitResult {
    this._o.log?.(server, `declined an ${kind} request: ${this._o.unattendedReason ?? 'nobody can be asked here'}`);
    return { action: 'decline' };
  }
}

/** Only web pages may be opened for a server. */
function checkUrl(raw: string): URL {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the URL to open must be an http or https address, not ${JSON.stringify(raw.slice(0, 200))}`);
  }
  return url;
}

async function runModel(
  model: SamplingModel,
  params: CreateMessageRequest['params'],
  tools: ReturnType<typeof toModelTools>,
  maxOutputTokens: number,
  signal: AbortSignal,
): Promise<{ text: string; toolCalls: ModelToolCall[]; reason: 'stop' | 'tool_calls' | 'length' | 'other' }> {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  // Stryker disable next-line StringLiteral: a stream without an end answers as a stop either way (only tool_calls and length change the answer)
  let reason: 'stop' | 'tool_calls' | 'length' | 'other' = 'other';
  const request = { system: params.systemPrompt ?? '', messages: toChatMessages(params), tools, model: model.model, maxOutputTokens };
  for await (const event of model.provider.stream(request, signal)) {
    if (event.type === 'text') text += event.delta;
    else if (event.type === 'tool_call') toolCalls.push(event.call);
    else if (event.type === 'end') reason = event.reason;
  }
  return { text, toolCalls, reason };
}
