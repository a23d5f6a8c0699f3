/** How a connection retries after a running server drops. Pure: the clock and the waiting are the caller's. */
export interface ReconnectPolicy {
  /** The waits before the first attempts; for a limited policy, also how many attempts there are. Empty: never reconnect. */
  readonly delaysMs: readonly number[];
  /** Whether attempts never run out (remote servers come and go; a crashing process does not heal). */
  readonly unlimited: boolean;
  /** Cap on the wait once the schedule is used up (unlimited policies double the last wait up to it). */
  readonly maxDelayMs: number;
  /** Uptime after which a drop is no longer part of a crash loop, and the attempts are there again. */
  readonly stableAfterMs: number;
}

/** The next attempt after `used` attempts: its 1-based number and the wait before it, or undefined when none is left. */
export function nextReconnect(policy: ReconnectPolicy, used: number): { readonly attempt: number; readonly waitMs: number } | undefined {
  const { delaysMs } = policy;
  if (delaysMs.length === 0 || (!policy.unlimited && used >= delaysMs.length)) return undefined;
  const attempt = used + 1;
  if (attempt <= delaysMs.length) return { attempt, waitMs: delaysMs[attempt - 1] };
  const last = delaysMs[delaysMs.length - 1];
  return { attempt, waitMs: Math.min(policy.maxDelayMs, last * 2 ** Math.min(attempt - delaysMs.length, 32)) };
}

/** The attempts already spent when a server drops after `upForMs` of uptime: none after a stable run. */
export function attemptsAfterDrop(policy: ReconnectPolicy, used: number, upForMs: number): number {
  return upForMs >= policy.stableAfterMs ? 0 : used;
}

/** How many attempts the user is told of: undefined when they never run out. */
export function maxReconnects(policy: ReconnectPolicy): number | undefined {
  return policy.unlimited && policy.delaysMs.length > 0 ? undefined : policy.delaysMs.length;
}

/** The error once the attempts ran out: the drop's reason, and how the last attempt failed. */
export function gaveUpMessage(policy: ReconnectPolicy, reason: string, lastFailure: string | undefined): string {
  const count = policy.delaysMs.length;
  if (count === 0) return reason;
  const tries = count === 1 ? '1 reconnect attempt' : `${count} reconnect attempts`;
  return lastFailure ? `${reason}; gave up after ${tries}, the last failed with: ${lastFailure}` : `${reason}; gave up after ${tries}`;
}
