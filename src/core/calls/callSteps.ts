import type { Result } from '../base/result';
import { errorMessage } from '../base/errors';
import type { AuditClient } from '../permissions/AuditLog';
import type { PoisoningHit } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import type { HarnessCallErrorKind, HarnessCallResult, ToolCallEvent, ToolCallOutcome, ToolCallRequest } from './types';

// The small steps of the call pipeline that need none of its state.

export function parseArguments(request: ToolCallRequest): Result<Record<string, unknown>> {
  let value: unknown = request.arguments ?? {};
  if (request.argumentsText !== undefined) {
    if (request.argumentsText.trim() === '') return { ok: true, value: {} };
    try {
      value = JSON.parse(request.argumentsText);
    } catch (err) {
      return { ok: false, error: `not valid JSON (${errorMessage(err)})` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

export function auditBase(name: string, tool: HarnessTool | undefined, args: unknown, client: AuditClient | undefined) {
  return {
    tool: name,
    ...(tool?.server !== undefined ? { server: tool.server } : {}),
    ...(tool ? { originalName: tool.originalName, pin: tool.pin } : {}),
    arguments: args,
    // A gateway client's calls say which MCP method they came in as.
    ...(client ? { client, method: 'tools/call' as const } : {}),
  };
}

export function changedText(tool: HarnessTool): string {
  const what = tool.server === undefined ? `The built-in tool "${tool.originalName}"` : `The tool "${tool.originalName}" of server "${tool.server}"`;
  return `Not run: ${what} changed since it was approved (its definition is different now, or it is no longer offered), so the call was not made. Call it again if it is still needed: it needs a new decision.`;
}

export function failure(kind: HarnessCallErrorKind, text: string): HarnessCallResult {
  return { isError: true, text, content: [{ type: 'text', text }], errorKind: kind };
}

export function dedupeWarnings(list: readonly PoisoningHit[]): PoisoningHit[] {
  const seen = new Set<string>();
  return list.filter((w) => {
    const key = `${w.where}\u0000${w.kind}\u0000${w.excerpt}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The outcome fields a card shows. */
export function pick(extra: Partial<ToolCallOutcome>): Partial<ToolCallEvent> {
  const out: { -readonly [K in keyof ToolCallEvent]?: ToolCallEvent[K] } = {};
  if (extra.decider) out.decider = extra.decider;
  if (extra.runMs !== undefined) out.runMs = extra.runMs;
  if (extra.waitMs !== undefined) out.waitMs = extra.waitMs;
  return out;
}
