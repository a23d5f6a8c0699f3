import { estimateTokens } from '../tools/search/toolBudget';
import type { ChatMessage, ContextEstimate, ModelRequest } from './types';

/** Per-message overhead a provider adds (role markers, ids), in tokens. */
const MESSAGE_OVERHEAD = 4;
/** What an image costs, roughly (providers scale by size; about a megapixel's worth). */
const IMAGE_TOKENS = 1600;

/**
 * Tokens a request takes of the model's context, estimated at four characters a token: no
 * tokenizer is bundled (a model's own would be several megabytes), so this is what the chat
 * shows until the provider reports its count.
 */
export function estimateContext(request: Pick<ModelRequest, 'system' | 'messages' | 'tools'>): ContextEstimate {
  const system = estimateTokens(request.system);
  const tools = request.tools.length === 0 ? 0 : estimateTokens(JSON.stringify(request.tools));
  const messages = estimateMessages(request.messages);
  return { system, tools, messages, total: system + tools + messages };
}

/** Estimated tokens of `messages`. */
export function estimateMessages(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) {
    total += MESSAGE_OVERHEAD + estimateTokens(m.content);
    if (m.role === 'user') total += (m.images?.length ?? 0) * IMAGE_TOKENS;
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) total += estimateTokens(call.name) + estimateTokens(call.arguments) + MESSAGE_OVERHEAD;
  }
  return total;
}
