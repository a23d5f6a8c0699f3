import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { ModelProviderError, type ChatMessage, type IModelProvider, type ModelInfo, type ModelRequest, type ModelStreamEvent, type ModelToolSpec } from '../types';
import { LOOPBACK_PLACEHOLDER_KEY, abortedError, connectionError, hostOf, isLoopbackUrl, missingKeyError, withRetries, type HttpFailure, type RetryOptions } from './providerSupport';

/** Models a picker lists from one endpoint at most (a router may list hundreds). */
const MAX_LISTED_MODELS = 100;

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiCompatibleProviderOptions extends RetryOptions {
  /** e.g. `http://127.0.0.1:11434/v1` for Ollama (default OpenAI's). */
  readonly baseUrl?: string;
  /** The key the host holds; a loopback base URL works without one (see `resolveApiKey`). */
  readonly apiKey?: string;
  /** Model used when a request names none. */
  readonly model: string;
  readonly label?: string;
  readonly contextWindow?: number;
  /** Replaces `fetch` (a proxy-aware one, say). */
  readonly fetch?: typeof fetch;
  /**
   * Whether the models take images with a message (`image_url` parts). Default: only OpenAI's own
   * endpoint; a local server's model often does not, and would refuse the request.
   */
  readonly imageInput?: boolean;
}

/** The image types Chat Completions takes as `image_url` data URLs. */
export const OPENAI_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/**
 * Chat Completions with streaming, for OpenAI and every server that speaks its API (Ollama, LM
 * Studio, vLLM, OpenRouter). Tool calls arrive as deltas by index and are joined here.
 */
export class OpenAiCompatibleProvider implements IModelProvider {
  readonly id = 'openai';
  readonly label: string;
  readonly baseUrl: string;
  private readonly _host: string;
  private _client: OpenAI | undefined;

  constructor(private readonly _options: OpenAiCompatibleProviderOptions) {
    this.baseUrl = (_options.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
    this._host = hostOf(this.baseUrl);
    this.label = _options.label ?? `${_options.model} (${this._host})`;
  }

  imageTypes(): readonly string[] {
    return (this._options.imageInput ?? this._host === 'api.openai.com') ? OPENAI_IMAGE_TYPES : [];
  }

  async models(): Promise<readonly ModelInfo[]> {
    return [{ id: this._options.model, label: this._options.model, ...(this._options.contextWindow ? { contextWindow: this._options.contextWindow } : {}) }];
  }

  async availableModels(signal?: AbortSignal): Promise<readonly ModelInfo[]> {
    const out: ModelInfo[] = [];
    for await (const m of this._getClient().models.list({ signal })) {
      out.push({ id: m.id, label: m.id });
      if (out.length >= MAX_LISTED_MODELS) break;
    }
    return out;
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    const client = this._getClient();
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model ?? this._options.model,
      messages: toOpenAiMessages(request.system, request.messages),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.tools.length ? { tools: request.tools.map(toOpenAiTool) } : {}),
      ...(request.maxOutputTokens ? { max_completion_tokens: request.maxOutputTokens } : {}),
    };
    const stream = await withRetries(() => client.chat.completions.create(body, { signal }), {
      ...this._options,
      host: this._host,
      signal,
      classify: (err) => this._classify(err, signal, false),
    });
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: string | null | undefined;
    let usage: ChatCompletionChunk['usage'];
    try {
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        for (const choice of chunk.choices ?? []) {
          const delta = choice.delta;
          if (delta?.content) yield { type: 'text', delta: delta.content };
          for (const part of delta?.tool_calls ?? []) {
            const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' };
            if (part.id) call.id = part.id;
            // Most servers send the name once; some repeat it on every fragment, a few split it.
            const name = part.function?.name;
            if (name && name !== call.name) call.name += name;
            if (part.function?.arguments) call.arguments += part.function.arguments;
            calls.set(part.index, call);
          }
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      }
    } catch (err) {
      throw this._classify(err, signal, true);
    }
    if (signal.aborted) throw abortedError(this._host);
    if (!finish) throw connectionError(this._host, new Error('the stream ended without a finish reason'), true);
    const ordered = [...calls.entries()].sort(([a], [b]) => a - b);
    for (const [index, call] of ordered) {
      yield { type: 'tool_call', call: { id: call.id || `call_${index}`, name: call.name, arguments: call.arguments } };
    }
    if (usage) yield { type: 'usage', inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
    yield { type: 'end', reason: finishReason(finish, ordered.length > 0) };
  }

  private _getClient(): OpenAI {
    // Local servers (Ollama, LM Studio, vLLM on loopback) take any key.
    const apiKey = this._options.apiKey || (isLoopbackUrl(this.baseUrl) ? LOOPBACK_PLACEHOLDER_KEY : undefined);
    if (!apiKey) throw missingKeyError(this._host, 'OPENAI_API_KEY');
    this._client ??= new OpenAI({ apiKey, baseURL: this.baseUrl, maxRetries: 0, ...(this._options.fetch ? { fetch: this._options.fetch } : {}) });
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
    if (err instanceof APIError) return new ModelProviderError(`${this._host} reported an error: ${apiMessage(err)}`, 'server', { host: this._host });
    return connectionError(this._host, err, midStream);
  }
}

function apiMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : err.message;
}

function finishReason(reason: string, hasCalls: boolean): Extract<ModelStreamEvent, { type: 'end' }>['reason'] {
  if (reason === 'tool_calls' || reason === 'function_call' || hasCalls) return 'tool_calls';
  if (reason === 'stop') return 'stop';
  if (reason === 'length') return 'length';
  return 'other';
}

function toOpenAiTool(tool: ModelToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as Record<string, unknown> } };
}

/** The conversation in Chat Completions form, the system prompt first. */
export function toOpenAiMessages(system: string, messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    if (message.role === 'user') {
      const images = message.images ?? [];
      out.push({
        role: 'user',
        content: images.length
          ? [{ type: 'text', text: message.content }, ...images.map((i) => ({ type: 'image_url' as const, image_url: { url: `data:${i.mimeType};base64,${i.data}` } }))]
          : message.content,
      });
    }
    else if (message.role === 'tool') out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
    else if (message.toolCalls?.length) {
      out.push({
        role: 'assistant',
        content: message.content || null,
        tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: validJsonOr(c.arguments, '{}') } })),
      });
    } else out.push({ role: 'assistant', content: message.content });
  }
  return out;
}

/** Arguments the model produced are sent back as they were when they parse, else as `{}` (servers reject invalid JSON). */
function validJsonOr(text: string, fallback: string): string {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return fallback;
  }
}
