import type { ToolCallEvent } from '../calls/types';
import type { ModelToolSpec } from '../tools/types';
import type { StoredResultInfo } from './results/ToolResultStore';

/**
 * The agent's contracts: what a model provider speaks and what a turn reports. Editor-agnostic;
 * adapters (Anthropic, OpenAI-compatible, VS Code's Language Model API in the shell) translate a
 * wire format to these shapes and nothing above them knows one.
 */

export type { ModelToolSpec };

/** One tool call as the model asked for it. `arguments` is the raw JSON text, parsed by the loop. */
export interface ModelToolCall {
  /** The provider's id for the call, echoed back with its result. */
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** An image given to the model with a user's message (base64 `data`). */
export interface ModelImage {
  readonly mimeType: string;
  readonly data: string;
}

/** A conversation, provider-neutral. */
export type ChatMessage =
  /** `images` go only to a provider whose model takes their type (see {@link IModelProvider.imageTypes}). */
  | { readonly role: 'user'; readonly content: string; readonly images?: readonly ModelImage[] }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ModelToolCall[] }
  /** A tool's result (or error) answering the assistant's call with the same `toolCallId`. */
  | { readonly role: 'tool'; readonly toolCallId: string; readonly toolName: string; readonly content: string; readonly isError: boolean };

export interface ModelRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ModelToolSpec[];
  /** Provider-specific model id; the provider's configured default when absent. */
  readonly model?: string;
  readonly maxOutputTokens?: number;
}

/** What a provider's stream yields, in order; exactly one `end` closes a successful stream. */
export type ModelStreamEvent =
  | { readonly type: 'text'; readonly delta: string }
  /** A complete tool call (its argument fragments already joined). */
  | { readonly type: 'tool_call'; readonly call: ModelToolCall }
  | { readonly type: 'usage'; readonly inputTokens?: number; readonly outputTokens?: number }
  | { readonly type: 'end'; readonly reason: 'stop' | 'tool_calls' | 'length' | 'other' };

/** Estimated tokens of one model request, by part (about four characters a token). */
export interface ContextEstimate {
  readonly system: number;
  readonly tools: number;
  readonly messages: number;
  readonly total: number;
}

/** A model the user can pick. */
export interface ModelInfo {
  readonly id: string;
  readonly label: string;
  /** Tokens the model accepts per request, when known (tool search budgets against it). */
  readonly contextWindow?: number;
}

/**
 * One model API. `stream` never retries by itself unless documented; it throws `ModelProviderError`
 * for failures the user must see, and stops promptly when `signal` aborts.
 */
export interface IModelProvider {
  /** `vscode`, `anthropic`, `openai`, or a test's own. */
  readonly id: string;
  readonly label: string;
  models(signal?: AbortSignal): Promise<readonly ModelInfo[]>;
  /**
   * Every model the endpoint lists (its `/models`), for a picker; the configured one is `models()`.
   * Rejects when the list cannot be had (no key, no route, offline).
   */
  availableModels?(signal?: AbortSignal): Promise<readonly ModelInfo[]>;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent>;
  /** The image types `model` takes with a user's message; none when absent (images are then described in text). */
  imageTypes?(model: string): readonly string[];
}

export type ModelProviderErrorKind = 'auth' | 'rate_limit' | 'server' | 'connection' | 'bad_request' | 'aborted' | 'other';

/** A provider failure classified by status or code, never by message text. */
export class ModelProviderError extends Error {
  constructor(
    message: string,
    readonly kind: ModelProviderErrorKind,
    readonly details: { readonly host?: string; readonly status?: number; readonly retryAfterMs?: number } = {},
  ) {
    super(message);
    this.name = 'ModelProviderError';
  }
}

/**
 * A resource in a tool's result the person may open or attach: a `resource_link` (read from the
 * same server when used), or a binary resource embedded in the result (`embedded` holds it: it is
 * used as it came, since an embedded resource need not be readable from the server).
 */
export interface ResourceLinkInfo {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly embedded?: EmbeddedBlob;
}

/** A binary resource as a result embedded it (base64 `blob`). */
export interface EmbeddedBlob {
  readonly uri: string;
  readonly mimeType?: string;
  readonly blob: string;
}

/** State of one tool call card. */
export type { ToolCallState } from '../calls/types';

/** What a turn reports to its host (the chat panel, the CLI, a test), in order. */
export type AgentEvent =
  | { readonly type: 'text'; readonly delta: string }
  /**
   * A tool call's state, everything its card shows (see `ToolCallEvent`); `callId` is the
   * pipeline's own id, `modelCallId` the id the model gave (models may repeat one).
   */
  | ({
      readonly type: 'tool_call';
      readonly modelCallId: string;
      /** The result was over the output cap and is kept whole under this handle. */
      readonly stored?: StoredResultInfo;
      /** Who made the call when not the model or the user: an app (MCP Apps), by name. */
      readonly caller?: string;
      /** Resources the result links to (its `resource_link` blocks), on the server that made it. */
      readonly resourceLinks?: readonly ResourceLinkInfo[];
    } & ToolCallEvent)
  | { readonly type: 'usage'; readonly inputTokens?: number; readonly outputTokens?: number }
  /** A model request is about to go out: how large it is, estimated (the provider's usage, when it reports one, follows). */
  | { readonly type: 'request'; readonly estimate: ContextEstimate }
  | { readonly type: 'error'; readonly message: string; readonly kind: ModelProviderErrorKind | 'step_limit' }
  /** Something the user should read that is not the model's: a hook's message, a hook that stopped the turn. */
  | { readonly type: 'notice'; readonly level: 'info' | 'warning'; readonly message: string }
  | { readonly type: 'end'; readonly reason: 'done' | 'step_limit' | 'stopped' | 'error' };
