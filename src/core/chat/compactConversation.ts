import { estimateMessages } from '../agent/contextEstimate';
import { elidedText } from '../agent/results/readResult';
import type { IToolResultStore } from '../agent/results/ToolResultStore';
import type { ChatMessage, IModelProvider } from '../agent/types';
import { errorMessage } from '../base/errors';
import type { ChatBudget } from './ChatBudget';

/** Turns (a user message and what followed it) that compaction keeps whole. */
export const DEFAULT_KEEP_TURNS = 2;
/** Tool results shorter than this stay in place when older results make room. */
export const MIN_ELIDED_CHARS = 2_000;
/** How much of each earlier message the summary request quotes. */
const QUOTE_CHARS = 4_000;

export const SUMMARY_SYSTEM_PROMPT =
  'You summarise a conversation between a user and an assistant that uses tools, so that the assistant can continue it from the summary alone. Keep: what the user wants, decisions made, facts found (file names, values, errors, tool names and what they returned that matters), and what is left to do. Plain text, concise, no preamble.';

/** Where the last `keepTurns` turns start (0 when there are no more than that). */
export function keptFrom(messages: readonly ChatMessage[], keepTurns = DEFAULT_KEEP_TURNS): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user' && ++seen === keepTurns) return i;
  }
  return 0;
}

/**
 * Replaces older tool results (before the last `keepTurns` turns, at least {@link MIN_ELIDED_CHARS}
 * long) by their handles: each is kept whole in `store` first, so the model can read it again.
 * Returns the new messages and how many were replaced.
 */
export async function elideOldResults(
  messages: readonly ChatMessage[],
  store: IToolResultStore,
  conversationId: string,
  keepTurns = DEFAULT_KEEP_TURNS,
): Promise<{ messages: ChatMessage[]; elided: number }> {
  const until = keptFrom(messages, keepTurns);
  const out = [...messages];
  let elided = 0;
  for (let i = 0; i < until; i++) {
    const m = out[i]!;
    if (m.role !== 'tool' || m.content.length < MIN_ELIDED_CHARS) continue;
    const info = await store.put(conversationId, m.toolName, m.content);
    out[i] = { ...m, content: elidedText(info) };
    elided++;
  }
  return { messages: out, elided };
}

/** The earlier messages as text for the summary request, each quoted up to {@link QUOTE_CHARS}. */
export function transcriptForSummary(messages: readonly ChatMessage[]): string {
  const quote = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}\n…[${text.length - QUOTE_CHARS} more characters]` : text);
  return messages
    .map((m) => {
      if (m.role === 'user') return `USER:\n${quote(m.content)}`;
      if (m.role === 'tool') return `TOOL RESULT (${m.toolName}${m.isError ? ', error' : ''}):\n${quote(m.content)}`;
      const calls = (m.toolCalls ?? []).map((c) => `\n[called ${c.name} ${quote(c.arguments)}]`).join('');
      return `ASSISTANT:\n${quote(m.content)}${calls}`;
    })
    .join('\n\n');
}

export interface CompactResult {
  readonly messages: ChatMessage[];
  /** Messages the summary replaced. */
  readonly summarised: number;
  readonly beforeTokens: number;
  readonly afterTokens: number;
}

/**
 * Summarises every message before the last `keepTurns` turns through `provider` and puts the
 * summary in their place; the last turns stay whole. Undefined when there is nothing earlier.
 * Throws what the provider throws (the conversation is then left as it was).
 */
export async function compactConversation(
  messages: readonly ChatMessage[],
  provider: IModelProvider,
  options: { model?: string; keepTurns?: number; signal: AbortSignal },
): Promise<CompactResult | undefined> {
  const from = keptFrom(messages, options.keepTurns ?? DEFAULT_KEEP_TURNS);
  if (from === 0) return undefined;
  const earlier = messages.slice(0, from);
  let summary = '';
  const request = {
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [{ role: 'user' as const, content: `Summarise this conversation:\n\n${transcriptForSummary(earlier)}` }],
    tools: [],
    ...(options.model ? { model: options.model } : {}),
  };
  for await (const event of provider.stream(request, options.signal)) if (event.type === 'text') summary += event.delta;
  const compacted: ChatMessage[] = [
    { role: 'user', content: `<conversation_summary>\n${summary.trim() || '(the model gave an empty summary)'}\n</conversation_summary>\nThat is a summary of the earlier part of this conversation.` },
    { role: 'assistant', content: 'Understood. I will continue from that summary.' },
    ...messages.slice(from),
  ];
  return { messages: compacted, summarised: earlier.length, beforeTokens: estimateMessages(messages), afterTokens: estimateMessages(compacted) };
}

export interface MakeRoomOptions {
  readonly messages: readonly ChatMessage[];
  readonly results: IToolResultStore;
  readonly conversationId: string;
  readonly provider: IModelProvider;
  readonly model?: string;
  readonly signal: AbortSignal;
  /** Re-estimated after each step. */
  readonly budget: ChatBudget;
  /** Stop after eliding once the budget is under this share; undefined when the person asked (always summarise). */
  readonly threshold: number | undefined;
  /** Marks a step in the transcript. */
  mark(level: 'info' | 'warning', text: string): void;
}

/**
 * Makes room in the model's context: older tool results give way to their handles first; then,
 * if still past the threshold (or when the person asked), the earlier turns are summarised
 * through the current model, keeping the last turns whole. Returns the messages to keep; a
 * failed summary leaves them as they were after the first step, and says so.
 */
export async function makeRoom(o: MakeRoomOptions): Promise<ChatMessage[]> {
  const before = o.budget.usedTokens;
  const elided = await elideOldResults(o.messages, o.results, o.conversationId);
  let messages = elided.messages;
  if (elided.elided > 0) {
    o.budget.reestimate(messages);
    const one = elided.elided === 1;
    o.mark('info', `Context: ${elided.elided} older tool ${one ? 'result was' : 'results were'} replaced by ${one ? 'its handle' : 'their handles'} (about ${formatTokens(before)} → ${formatTokens(o.budget.usedTokens)} tokens).`);
    if (o.threshold !== undefined && o.budget.fullness < o.threshold) return messages;
  }
  const start = o.budget.usedTokens;
  let compacted: CompactResult | undefined;
  try {
    compacted = await compactConversation(messages, o.provider, { ...(o.model ? { model: o.model } : {}), signal: o.signal });
  } catch (err) {
    o.mark('warning', `Compacting failed, the earlier turns are kept as they were: ${errorMessage(err)}`);
    return messages;
  }
  if (!compacted) {
    if (o.threshold === undefined && elided.elided === 0) o.mark('info', 'Nothing to compact yet: the last turns are always kept whole.');
    return messages;
  }
  messages = compacted.messages;
  o.budget.reestimate(messages);
  o.mark('info', `**Compacted** here: ${compacted.summarised} earlier messages were summarised by the model; the last turns are kept whole (about ${formatTokens(start)} → ${formatTokens(o.budget.usedTokens)} tokens).`);
  return messages;
}

function formatTokens(tokens: number): string {
  return tokens >= 10_000 ? `${Math.round(tokens / 1000)}k` : tokens.toLocaleString('en-US');
}
