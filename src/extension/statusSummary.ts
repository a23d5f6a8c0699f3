import type { McpConnectionState } from '../core';

/** The codicon the status bar item leads with. */
export type StatusIcon = 'loading~spin' | 'shield' | 'account' | 'debug-disconnect' | 'plug';

/** What the status bar item says about a set of server states, without any `vscode` type. */
export interface StatusSummary {
  /** Servers meant to run: every one not disabled. */
  readonly active: number;
  readonly running: number;
  readonly failed: number;
  /** Down and waiting out a reconnect backoff: nothing is being tried at this moment. */
  readonly waitingToReconnect: number;
  readonly needSignIn: number;
  readonly awaitingApproval: number;
  readonly icon: StatusIcon;
  /** Warning colours: a server is in error, or down between reconnect attempts. */
  readonly warning: boolean;
}

/**
 * Spins only while something is being tried (a start, or a reconnect attempt under way): a remote
 * server that keeps failing waits up to 30 s between attempts, and a spinner through those waits
 * would say "working on it" for as long as the server stays down.
 */
export function summarizeStates(states: readonly McpConnectionState[], isAwaitingApproval: (state: McpConnectionState) => boolean): StatusSummary {
  const active = states.filter((s) => s.kind !== 'disabled');
  const count = (test: (s: McpConnectionState) => boolean) => active.filter(test).length;
  const attempting = count((s) => s.kind === 'starting' || (s.kind === 'reconnecting' && s.nextAttemptAt === undefined));
  const waitingToReconnect = count((s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
  const awaitingApproval = count(isAwaitingApproval);
  const needSignIn = count((s) => s.kind === 'auth_required');
  const failed = count((s) => s.kind === 'error');
  const icon: StatusIcon = attempting
    ? 'loading~spin'
    : awaitingApproval
      ? 'shield'
      : needSignIn
        ? 'account'
        : waitingToReconnect
          ? 'debug-disconnect'
          : 'plug';
  return {
    active: active.length,
    running: count((s) => s.kind === 'running'),
    failed,
    waitingToReconnect,
    needSignIn,
    awaitingApproval,
    icon,
    warning: failed > 0 || waitingToReconnect > 0,
  };
}

/** The screen reader's label: `MCP: 3 of 4 servers running, 27 tools, 1 in error, 1 needs sign-in`. */
export function statusAccessibleLabel(summary: StatusSummary, tools: number): string {
  const parts = [`MCP: ${summary.running} of ${summary.active} servers running`, `${tools} tools`];
  if (summary.failed) parts.push(`${summary.failed} in error`);
  if (summary.waitingToReconnect) parts.push(`${summary.waitingToReconnect} reconnecting`);
  if (summary.needSignIn) parts.push(`${summary.needSignIn} ${summary.needSignIn === 1 ? 'needs' : 'need'} sign-in`);
  return parts.join(', ');
}
