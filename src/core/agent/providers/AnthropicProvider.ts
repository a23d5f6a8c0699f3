import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageCreateParamsStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { ModelProviderError, type ChatMessage, type IModelProvider, type ModelInfo, type ModelRequest, type ModelStreamEvent, type ModelToolSpec } from '../types';
import { LOOPBACK_PLACEHOLDER_KEY, abortedError, connectionError, hostOf, isLoopbackUrl, missingKeyError, withRetries, type HttpFailure, type RetryOptions } from './providerSupport';

/** Models a picker lists from one endpoint at most (a router may list hundreds). */
const MAX_LISTED_MODELS = 100;

export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

export interface AnthropicProviderOptions extends RetryOptions {
  readonly baseUrl?: string;
  /** The key the host holds; a loopback base URL works without one (see `resolveApiKey`). */
  readonly apiKey?: string;
  /** Model used when a request names none. */
  readonly model: string;
  readonly label?: string;
  readonly contextWindow?: number;
  /** `max_tokens` when a request gives none (the API requires one). */
  readonly maxOutputTokens?: number;
  readonly fetch?: typeof fetch;
}

/** The image types the Messages API takes as base64 image blocks. */
export const ANTHROPIC_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
type AnthropicImageType = (typeof ANTHROPIC_IMAGE_TYPES)[number];

/**
 * Anthropic's Messages API with streaming: text deltas, tool_use blocks whose input arrives as
 * `input_json_delta` fragments, usage from `message_start` and `message_delta`.
 */
export class AnthropicProvider implements IModelProvider {
  readonly id = 'anthropic';
  readonly label: string;
  readonly baseUrl: string;
  private readonly _host: string;
  private _client: Anthropic | undefined;

  constructor(private readonly _options: AnthropicProviderOptions) {
    this.baseUrl = (_options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, '');
    this._host = hostOf(this.baseUrl);
    this.label = _options.label ?? `${_options.model} (${this._host})`;
  }

  imageTypes(): readonly string[] {
    return ANTHROPIC_IMAGE_TYPES;
  }

  async models(): Promise<readonly ModelInfo[]> {
    return [{ id: this._options.model, label: this._options.model, ...(this._options.contextWindow ? { contextWindow: this._options.contextWindow } : {}) }];
  }

  async availableModels(signal?: AbortSignal): Promise<readonly ModelInfo[]> {
    const out: ModelInfo[] = [];
    for await (const m of this._getClient().models.list(undefined, { signal })) {
      out.push({ id: m.id, label: m.display_name || m.id });
      if (out.length >= MAX_LISTED_MODELS) break;
    }
    return out;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const client = this._getClient();
    const body: MessageCreateParamsStreaming = {
      model: request.model ?? this._options.model,
      max_tokens: request.maxOutputTokens ?? this._options.maxOutputTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
      messages: toAnthropicMessages(request.messages),
      stream: true,
      ...(request.system ? { system: request.system } : {}),
      ...(request.tools.length ? { tools: request.tools.map(toAnthropicTool) } : {}),
    };
    const stream = await withRetries(() => client.messages.create(body, { signal }), {
      ...this._options,
      host: this._host,
      signal,
      classify: (err) => this._classify(err, signal, false),
    });
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    let inputTokens: number | undefined;
    let outputTokens: number | undefined;
    let stopReason: string | null | undefined;
    let stopped = false;
    try {
      for await (const event of stream) {
        switch (event.type) {
          case 'message_start':
            inputTokens = event.message.usage?.input_tokens ?? inputTokens;
            outputTokens = event.message.usage?.output_tokens ?? outputTokens;
            break;
          case 'content_block_start':
            if (event.content_block.type === 'tool_use') blocks.set(event.index, { id: event.content_block.id, name: event.content_block.name, json: '' });
            break;
          case 'content_block_delta':
            if (event.delta.type === 'text_delta') yield { type: 'text', delta: event.delta.text };
            else if (event.delta.type === 'input_json_delta') {
              const block = blocks.get(event.index);
              if (block) block.json += event.delta.partial_json;
            }
            break;
          case 'content_block_stop': {
            const block = blocks.get(event.index);
            if (block) yield { type: 'tool_call', call: { id: block.id, name: block.name, arguments: block.json } };
            break;
          }
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            inputTokens = event.usage?.input_tokens ?? inputTokens;
            outputTokens = event.usage?.output_tokens ?? outputTokens;
            break;
          case 'message_stop':
            stopped = true;
            break;
        }
      }
    } catch (err) {
      throw this._classify(err, signal, true);
    }
    if (signal.aborted) throw abortedError(this._host);
    if (!stopped) throw connectionError(this._host, new Error('the stream ended before message_stop'), true);
    if (inputTokens !== undefined || outputTokens !== undefined) yield { type: 'usage', inputTokens, outputTokens };
    yield { type: 'end', reason: stopReason === 'tool_use' ? 'tool_calls' : stopReason === 'end_turn' || stopReason === 'stop_sequence' ? 'stop' : stopReason === 'max_tokens' ? 'length' : 'other' };
  }

  private _getClient(): Anthropic {
    // Local servers (Ollama, LM Studio, vLLM on loopback) take any key.
    const apiKey = this._options.apiKey || (isLoopbackUrl(this.baseUrl) ? LOOPBACK_PLACEHOLDER_KEY : undefined);
    if (!apiKey) throw missingKeyError(this._host, 'ANTHROPIC_API_KEY');
    this._client ??= new Anthropic({ apiKey, baseURL: this.baseUrl, maxRetries: 0, ...(this._options.fetch ? { fetch: this._options.fetch } : {}) });
    return this._client;
  }

  private _classify(err: unknown, signal: AbortSignal, midStream: boolean): HttpFailure | ModelProviderError {
    if (err instanceof ModelProviderError) return err;
    if (signal.aborted || err instanceof APIUserAbortError) return abortedError(this._host);
    if (err instanceof APIConnectionError) return connectionError(this._host, err, midStream);
    if (err instanceof APIError && typeof err.status === 'number') {
      const failure: HttpFailure = { status: err.status, headers: err.headers, message: apiMessage(err) };
      return midStream ? new ModelProviderError(`${this._host} failed mid-answer (HTTP ${err.status}): ${failure.message}`, 'server', { host: this._host, status: err.status }) : failure;
    }
    // An `error` event inside the stream (e.g. overloaded_error) has no HTTP status.
    if (err instanceof APIError) return new ModelProviderError(`${this._host} reported an error mid-answer: ${apiMessage(err)}`, 'server', { host: this._host });
    return connectionError(this._host, err, midStream);
  }
}

function apiMessage(err: APIError): string {
  const body = err.error as { error?: { message?: unknown }; message?: unknown } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' ? message : err.message;
}

function toAnthropicTool(tool: ModelToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.inputSchema as Tool['input_schema'] };
}

function parseInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The conversation in Messages form: tool results become `tool_result` blocks of a user message,
 * and consecutive user content merges into one message (the API wants roles to alternate).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  const add = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === 'user') {
      const images: ContentBlockParam[] = (message.images ?? [])
        .filter((i) => (ANTHROPIC_IMAGE_TYPES as readonly string[]).includes(i.mimeType))
        .map((i) => ({ type: 'image', source: { type: 'base64', media_type: i.mimeType as AnthropicImageType, data: i.data } }));
      add('user', [...(message.content ? [{ type: 'text' as const, text: message.content }] : []), ...images]);
    }
    else if (message.role === 'tool') add('user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content, ...(message.isError ? { is_error: true } : {}) }]);
    else {
      const blocks: ContentBlockParam[] = message.content ? [{ type: 'text', text: message.content }] : [];
      for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) });
      add('assistant', blocks);
    }
  }
  return out;
}
