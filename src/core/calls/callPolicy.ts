import type { HookDecisionHint, PermissionDecider, PermissionDecision } from '../permissions/types';

/** Time a call may go without an answer or progress, unless the server or the call says otherwise. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
/** Longest a call may take in all, progress or not. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/** The harness's settings the timeout policy reads. */
export interface CallTimeoutDefaults {
  readonly toolTimeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
}

/**
 * The one timeout policy of every request the harness sends on someone's behalf (tool calls,
 * resource reads and prompts relayed by the gateway): the call's own timeout, else the server's
 * `toolTimeoutMs`, else the harness's; the total is capped at `maxTotalTimeoutMs` (never below the
 * timeout itself).
 */
export function callTimeouts(
  server: { readonly toolTimeoutMs?: number } | undefined,
  defaults: CallTimeoutDefaults,
  requested?: number,
): { timeoutMs: number; maxTotalTimeoutMs: number } {
  const timeoutMs = requested ?? server?.toolTimeoutMs ?? defaults.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  return { timeoutMs, maxTotalTimeoutMs: Math.max(timeoutMs, defaults.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS) };
}

/** Who decided when the caller made the call itself. */
export const CALLER_DECIDES: PermissionDecider = { by: 'caller' };

/** A denial as the model (or the client) reads it. */
export function describeDenial(decision: Extract<PermissionDecision, { outcome: 'deny' }>): string {
  if (decision.decider.by === 'rule') return `Not run: ${decision.reason ?? `denied by the rule "${decision.decider.rule}"`}.`;
  if (decision.decider.by === 'user') return decision.reason ? `The user denied this call. Reason: ${decision.reason}` : 'The user denied this call.';
  if (decision.decider.by === 'hook') return `Not run: ${decision.reason ?? `denied by the hook "${decision.decider.hook}"`}.`;
  return `Not run: ${decision.reason ?? 'denied'}.`;
}

/** Why a call a hook asked a person about was not made where nobody can be asked (the CLI without a terminal, a library, a gateway client). */
export function describeUnansweredAsk(hint: HookDecisionHint): string {
  return `the PreToolUse hook "${hint.hook}" asks for a person's confirmation${hint.reason ? ` (${hint.reason})` : ''}, and nobody can be asked here`;
}
