/**
 * The part of the chat's message map for questions servers ask (elicitation forms and pages,
 * sampling). Pending questions travel beside the transcript, never in it: what is typed into a
 * form is not kept in the history.
 */
import { any, array, bool, num, object, oneOf, optional, str, union, type Infer } from './shape';

/** One field of a form card, as the core read it from the server's schema. */
const askField = object({
  name: str,
  label: str,
  description: optional(str),
  required: bool,
  kind: oneOf(['string', 'number', 'boolean', 'enum', 'multi'] as const),
  format: optional(oneOf(['email', 'uri', 'date', 'date-time'] as const)),
  integer: optional(bool),
  minimum: optional(num),
  maximum: optional(num),
  minLength: optional(num),
  maxLength: optional(num),
  minItems: optional(num),
  maxItems: optional(num),
  options: optional(array(object({ value: str, title: str }))),
  default: optional(any),
});
export type ChatAskField = Infer<typeof askField>;

export const SAMPLING_CARD_STATES = ['waiting', 'running', 'done', 'error'] as const;

/** A question waiting on the panel (or, for sampling, its outcome until dismissed). */
export const chatAsk = union('kind', {
  form: object({ id: str, server: str, message: str, fields: array(askField) }),
  /**
   * A page to open. `required`: the server refused a tool call until the page is done (error
   * -32042); `phase` "finish" means the page was opened and the call is retried once the person
   * says they finished there.
   */
  url: object({ id: str, server: str, message: str, url: str, host: str, required: optional(bool), phase: optional(oneOf(['open', 'finish'] as const)) }),
  sampling: object({
    id: str,
    server: str,
    messages: array(object({ role: oneOf(['user', 'assistant'] as const), text: str })),
    systemPrompt: optional(str),
    maxTokens: object({ requested: num, allowed: num }),
    modelPreferences: optional(str),
    tools: array(str),
    state: oneOf(SAMPLING_CARD_STATES),
    /** The model's answer (done) or why there is none (error). */
    result: optional(str),
    model: optional(str),
  }),
});
export type ChatAsk = Infer<typeof chatAsk>;

/**
 * Answers a card offers: form (submit, decline, cancel), page (open, decline, cancel; then done or
 * cancel when a call waits for it), sampling (once, session, deny), and dismiss for a finished
 * sampling card.
 */
export const ASK_ACTIONS = ['submit', 'decline', 'cancel', 'open', 'done', 'once', 'session', 'deny', 'dismiss'] as const;
export type ChatAskAction = (typeof ASK_ACTIONS)[number];

export const answerAskParams = object({ id: str, action: oneOf(ASK_ACTIONS), values: optional(any) });
/** A submitted form that does not fit comes back with one message per field; nothing was sent. */
export const answerAskAnswer = object({ errors: optional(any) });
export type ChatAskErrors = Readonly<Record<string, string>>;
