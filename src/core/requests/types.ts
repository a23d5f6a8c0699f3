import type { ElicitForm } from './elicitationForm';

/**
 * What the person is asked when a server asks something of the host (elicitation, sampling), and
 * what they can answer. A host shows these (a chat card, an input flow, a terminal prompt); the
 * core decides what may be asked, bounds it, and sends the answer.
 */

/** A form a server asked to be filled in; `id` is unique while it is pending. */
export interface ElicitFormAsk {
  readonly id: string;
  readonly server: string;
  readonly form: ElicitForm;
}

/** The person's answer to a form: its values (checked again before they are sent), or no. */
export type ElicitFormAnswer =
  | { readonly action: 'accept'; readonly values: Readonly<Record<string, unknown>> }
  | { readonly action: 'decline' }
  | { readonly action: 'cancel' };

/** A server asks the person to open a web page (a sign-in, a payment) outside the host. */
export interface ElicitUrlAsk {
  readonly id: string;
  readonly server: string;
  readonly message: string;
  readonly url: string;
  /** The page's host, shown prominently: what the person is about to trust. */
  readonly host: string;
  /** A tool call waits for this page (error -32042): once it is open, the call is retried when the person says they finished. */
  readonly required?: boolean;
}

/** A server wants the host's model to answer a conversation. */
export interface SamplingAsk {
  readonly id: string;
  readonly server: string;
  readonly messages: readonly SamplingAskMessage[];
  readonly systemPrompt?: string;
  /** What the server asked for, and what it gets after the server's limit. */
  readonly maxTokens: { readonly requested: number; readonly allowed: number };
  /** The server's model preferences, readable ("hints: claude-3, priorities: speed 0.8"). */
  readonly modelPreferences?: string;
  /** Names of the tools the server offers the model for this answer. */
  readonly tools: readonly string[];
}

export interface SamplingAskMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

export type SamplingChoice = 'once' | 'session' | 'deny';

/** What the model answered a server, as its card shows it. */
export type SamplingOutcome =
  | { readonly ok: true; readonly text: string; readonly model: string; readonly toolCalls: readonly string[] }
  | { readonly ok: false; readonly error: string };

/**
 * Puts a server's questions to the person. Every method resolves when the person answered or
 * `signal` aborted (the server cancelled, the host timed out); an aborted question is removed
 * from view. Implementations never log or keep what was typed into a form.
 */
export interface IServerAskPrompter {
  askForm(ask: ElicitFormAsk, signal: AbortSignal): Promise<ElicitFormAnswer>;
  /** "accept" means: open the page. The host opens it only after this answer. */
  askUrl(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'accept' | 'decline' | 'cancel'>;
  /**
   * A required page was opened: resolves "done" when the person says they finished there (the
   * call is then retried), "cancel" when they give up. Without it the call is retried at once.
   */
  askUrlFinished?(ask: ElicitUrlAsk, signal: AbortSignal): Promise<'done' | 'cancel'>;
  askSampling(ask: SamplingAsk, signal: AbortSignal): Promise<SamplingChoice>;
  /** The model's answer (or why there is none) for a sampling request that was allowed. */
  showSamplingOutcome?(ask: SamplingAsk, outcome: SamplingOutcome): void;
}

/** Per-server sampling rule: ask (default), allow without asking, or deny without asking. */
export type SamplingRule = 'ask' | 'allow' | 'deny';

export interface SamplingPolicy {
  readonly rule: SamplingRule;
  /** Most output tokens one request of this server may use. */
  readonly maxTokens: number;
}

export const DEFAULT_SAMPLING_MAX_TOKENS = 1024;
