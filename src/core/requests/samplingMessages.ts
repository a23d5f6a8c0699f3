import type { CreateMessageRequest, CreateMessageResult, CreateMessageResultWithTools } from '@modelcontextprotocol/client';
import type { ChatMessage, ModelToolCall, ModelToolSpec } from '../agent/types';
import type { SamplingAskMessage } from './types';

type CreateMessageParams = CreateMessageRequest['params'];
type SamplingBlock = { readonly type: string } & Record<string, unknown>;

/** A sampling request's messages as the provider-neutral conversation the agent's providers take. */
export function toChatMessages(params: CreateMessageParams): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of params.messages) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      const toolCalls: ModelToolCall[] = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: String(b.id), name: String(b.name), arguments: JSON.stringify(b.input ?? {}) }));
      out.push({ role: 'assistant', content: textOf(blocks.filter((b) => b.type !== 'tool_use')), ...(toolCalls.length ? { toolCalls } : {}) });
      continue;
    }
    for (const b of blocks.filter((x) => x.type === 'tool_result')) {
      const content = blocksOf(b.content as never);
      out.push({ role: 'tool', toolCallId: String(b.toolUseId), toolName: toolNameFor(out, String(b.toolUseId)), content: textOf(content), isError: b.isError === true });
    }
    const rest = blocks.filter((x) => x.type !== 'tool_result');
    if (rest.length) out.push({ role: 'user', content: textOf(rest) });
  }
  return out;
}

/** The tools a server offers the model for one answer, as the providers take them. */
export function toModelTools(params: CreateMessageParams): ModelToolSpec[] {
  const tools = (params as { tools?: ReadonlyArray<{ name: string; description?: string; inputSchema: Record<string, unknown> }> }).tools ?? [];
  return tools.map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema }));
}

/** The messages as a card shows them: text, with other content named. */
export function toAskMessages(params: CreateMessageParams): SamplingAskMessage[] {
  return params.messages.map((m) => ({ role: m.role, text: textOf(blocksOf(m.content)) }));
}

/** The model preferences in words. */
export function describeModelPreferences(params: CreateMessageParams): string | undefined {
  const prefs = params.modelPreferences;
  if (!prefs) return undefined;
  const parts: string[] = [];
  const hints = (prefs.hints ?? []).map((h) => h.name).filter((n): n is string => typeof n === 'string');
  if (hints.length) parts.push(`hints: ${hints.join(', ')}`);
  for (const key of ['costPriority', 'speedPriority', 'intelligencePriority'] as const) {
    const value = prefs[key];
    if (typeof value === 'number') parts.push(`${key.replace('Priority', '')} ${value}`);
  }
  return parts.length ? parts.join('; ') : undefined;
}

/** What the model said, as the server receives it. */
export function toSamplingResult(
  text: string,
  toolCalls: readonly ModelToolCall[],
  model: string,
  reason: 'stop' | 'tool_calls' | 'length' | 'other',
  withTools: boolean,
): CreateMessageResult | CreateMessageResultWithTools {
  const stopReason = reason === 'tool_calls' || toolCalls.length ? 'toolUse' : reason === 'length' ? 'maxTokens' : 'endTurn';
  if (!withTools) return { role: 'assistant', content: { type: 'text', text }, model, stopReason };
  const content: Array<Record<string, unknown>> = [];
  if (text || !toolCalls.length) content.push({ type: 'text', text });
  for (const call of toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: parseArguments(call.arguments) });
  return { role: 'assistant', content, model, stopReason } as CreateMessageResultWithTools;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function blocksOf(content: unknown): SamplingBlock[] {
  const list = Array.isArray(content) ? content : [content];
  return list.filter((b): b is SamplingBlock => typeof b === 'object' && b !== null && typeof (b as { type?: unknown }).type === 'string');
}

function textOf(blocks: readonly SamplingBlock[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'text':
          return String(b.text ?? '');
        case 'image':
        case 'audio':
          return `[${b.type}: ${String(b.mimeType ?? 'unknown type')}, ${Math.round((String(b.data ?? '').length * 3) / 4)} bytes]`;
        case 'tool_use':
          return `[asks for tool ${String(b.name)}]`;
        case 'tool_result':
          return textOf(blocksOf(b.content));
        default:
          return `[${b.type}]`;
      }
    })
    .filter((t) => t !== '')
    .join('\n');
}

function toolNameFor(messages: readonly ChatMessage[], id: string): string {
  for (const m of [...messages].reverse()) {
    if (m.role === 'assistant') {
      const call = m.toolCalls?.find((c) => c.id === id);
      if (call) return call.name;
    }
  }
  return 'tool';
}
