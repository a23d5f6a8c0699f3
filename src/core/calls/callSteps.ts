import type { Result } from '../base/result';
import { errorMessage } from '../base/errors';
import type { AuditClient } from '../permissions/AuditLog';
import type { PermissionDecider, PoisoningHit } from '../permissions/types';
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

/** What the audit log is told of a call: the tool as resolved, the arguments and who decided. */
export interface CallAuditEntry {
  tool: string;
  server?: string;
  originalName?: string;
  pin?: string;
  arguments: unknown;
  client?: AuditClient;
  method?: 'tools/call';
  waitedMs?: number;
  decider: PermissionDecider;
  reason?: string;
}

/**
 * The audit entry of a call to `name` (resolved to `tool`, when it was). Built by assignment, not
 * spread: on Node 20 an object spread followed by more properties takes a slow path (about 1 us a
 * property), and a chat or gateway call writes one or two of these.
 */
export function auditEntry(
  name: string,
  tool: HarnessTool | undefined,
  args: unknown,
  client: AuditClient | undefined,
  decided: { readonly decider: PermissionDecider; readonly reason?: string; readonly waitMs?: number },
): CallAuditEntry {
  // Each field is set in the order the audit log writes them; the required ones are set below.
  const entry = { tool: name } as CallAuditEntry;
  if (tool?.server !== undefined) entry.server = tool.server;
  if (tool) {
    entry.originalName = tool.originalName;
    entry.pin = tool.pin;
  }
  entry.arguments = args;
  // A gateway client's calls say which MCP method they came in as.
  if (client) {
    entry.client = client;
    entry.method = 'tools/call';
  }
  if (decided.waitMs !== undefined) entry.waitedMs = Math.round(decided.waitMs);
  entry.decider = decided.decider;
  if (decided.reason !== undefined) entry.reason = decided.reason;
  return entry;
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

/**
 * A call's stop signal: the caller's, else one that never aborts, made only when something asks
 * for a signal object (a decider that looks, a hook, a built-in). Most calls come without one and
 * need none: no controller is made for them, and the server request carries no listener.
 */
export class CallSignal {
  private _own: AbortSignal | undefined;

  constructor(readonly given: AbortSignal | undefined) {}

  get aborted(): boolean {
    return this.given?.aborted === true;
  }

  get signal(): AbortSignal {
    return this.given ?? (this._own ??= new AbortController().signal);
  }
}
