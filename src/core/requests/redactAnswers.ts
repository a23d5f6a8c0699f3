import type { JSONRPCMessage } from '@modelcontextprotocol/client';

/** What a traced message shows instead of the values a person typed into a form. */
export const WITHHELD = '[form values withheld]';

/**
 * The message as a trace may show it: the content of elicitation answers (a 2025-era response, or
 * the `inputResponses` a 2026-07-28 retry carries) replaced, since a form may hold secrets.
 * Anything else is returned as it is.
 */
export function redactFormAnswers(message: JSONRPCMessage): JSONRPCMessage {
  const m = message as { result?: unknown; params?: { inputResponses?: unknown } };
  if (isAnswer(m.result)) return { ...message, result: { ...m.result, content: WITHHELD } } as JSONRPCMessage;
  const responses = m.params?.inputResponses;
  if (typeof responses === 'object' && responses !== null && Object.values(responses).some(isAnswer)) {
    const redacted = Object.fromEntries(Object.entries(responses).map(([k, v]) => [k, isAnswer(v) ? { ...v, content: WITHHELD } : v]));
    return { ...message, params: { ...m.params, inputResponses: redacted } } as JSONRPCMessage;
  }
  return message;
}

function isAnswer(value: unknown): value is { action: string; content: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { action?: unknown; content?: unknown };
  return v.action === 'accept' && typeof v.content === 'object' && v.content !== null && !Array.isArray(v.content);
}
