import type { Implementation, Prompt, Resource, ResourceTemplateType as ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import type { McpServerDefinition, McpTransportKind } from '../config/types';

/**
 * Where one server's connection stands. A tagged union so every consumer handles every case;
 * expected failures are states, not exceptions.
 */
export type McpConnectionState =
  | { readonly kind: 'stopped' }
  | { readonly kind: 'disabled' }
  /**
   * Listed but not started, e.g. an untrusted workspace, a definition awaiting approval, or one
   * outside the organisation's server policy (`policy`: no approval lets it start).
   */
  | { readonly kind: 'blocked'; readonly reason: string; readonly policy?: true }
  | { readonly kind: 'starting' }
  | { readonly kind: 'running' }
  /**
   * A running server dropped and is being reconnected. `maxAttempts` is absent when attempts never
   * run out (HTTP and SSE servers); `nextAttemptAt` (epoch ms) is set while waiting for the next
   * attempt and absent while one is under way.
   */
  | {
      readonly kind: 'reconnecting';
      readonly attempt: number;
      readonly maxAttempts?: number;
      readonly reason: string;
      readonly nextAttemptAt?: number;
    }
  /** An HTTP server wants the user to sign in (OAuth); `reason` starts with "sign-in required". */
  | { readonly kind: 'auth_required'; readonly reason: string }
  | { readonly kind: 'error'; readonly message: string };

export type McpConnectionStateKind = McpConnectionState['kind'];

/** An immutable picture of one server, published whenever any part of it changes. */
export interface McpServerSnapshot {
  readonly name: string;
  readonly definition: McpServerDefinition;
  readonly state: McpConnectionState;
  /** The transport in use; `http` becomes `sse` after a legacy fallback. */
  readonly transport: McpTransportKind | undefined;
  readonly serverInfo?: Implementation;
  readonly protocolVersion?: string;
  readonly instructions?: string;
  readonly capabilities?: ServerCapabilities;
  readonly tools: readonly Tool[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /** The most recent failure, kept after a successful reconnect so it can still be read. */
  readonly lastError?: string;
  /** The last stderr lines, captured at each state change (live lines arrive as log events). */
  readonly stderrTail: readonly string[];
  /** Epoch milliseconds of the current session's start, while running. */
  readonly startedAt?: number;
  /** How many times the server was restarted or reconnected since it was first started. */
  readonly restartCount: number;
  /** Process id of a stdio server while it runs. */
  readonly pid?: number;
}

/** One log line for a server: its stderr, stray stdout, its own log notifications, or ours. */
export interface McpLogEntry {
  readonly server: string;
  readonly level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  readonly source: 'stderr' | 'stdout' | 'server' | 'harness' | 'rpc';
  readonly message: string;
  readonly time: number;
}

/** Whether a state means the server's last known tools may still be offered. */
export function isServingState(state: McpConnectionState): boolean {
  return state.kind === 'running' || state.kind === 'reconnecting';
}

/** A one-line summary of a state for lists and status text; `now` (epoch ms) counts down to the next reconnect. */
export function describeState(state: McpConnectionState, now = Date.now()): string {
  switch (state.kind) {
    case 'stopped':
    case 'disabled':
    case 'starting':
    case 'running':
      return state.kind;
    case 'blocked':
      return `not started: ${state.reason}`;
    case 'reconnecting':
      return `${describeReconnect(state, now)}: ${state.reason}`;
    case 'auth_required':
      return state.reason;
    case 'error':
      return state.message;
  }
}

/**
 * `reconnecting, next try in 4 s (attempt 3)`, `reconnecting (attempt 2 of 3)`: where a reconnect
 * stands, without the reason.
 */
export function describeReconnect(state: Extract<McpConnectionState, { kind: 'reconnecting' }>, now = Date.now()): string {
  const attempt = state.maxAttempts === undefined ? `attempt ${state.attempt}` : `attempt ${state.attempt} of ${state.maxAttempts}`;
  if (state.nextAttemptAt === undefined) return `reconnecting, trying now (${attempt})`;
  const seconds = Math.max(0, Math.ceil((state.nextAttemptAt - now) / 1000));
  return `reconnecting, next try in ${seconds} s (${attempt})`;
}

/** The state of a server that is not running: disabled, broken definition, or plainly stopped. */
export function restingState(def: McpServerDefinition): McpConnectionState {
  return def.disabled ? { kind: 'disabled' } : def.problem ? { kind: 'error', message: def.problem } : { kind: 'stopped' };
}

/** The snapshot of a server that has not started yet. */
export function initialSnapshot(def: McpServerDefinition): McpServerSnapshot {
  return {
    name: def.name,
    definition: def,
    state: restingState(def),
    transport: def.type,
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    lastError: def.problem,
    stderrTail: [],
    restartCount: 0,
  };
}

/** Whether two snapshots show the same thing (so no change is published). */
export function snapshotsEqual(a: McpServerSnapshot, b: McpServerSnapshot): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as (keyof McpServerSnapshot)[]);
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (x === y) continue;
    if (key === 'state' || key === 'stderrTail' || key === 'serverInfo' || key === 'capabilities') {
      if (JSON.stringify(x) === JSON.stringify(y)) continue;
    }
    return false;
  }
  return true;
}

/** Why calls cannot reach a server now: its name, its state and the reason. */
export function describeUnavailable(def: McpServerDefinition, state: McpConnectionState, now: number): string {
  switch (state.kind) {
    case 'stopped':
      return `server "${def.name}" is not running (stopped): it was stopped or has not been started`;
    case 'disabled':
      return `server "${def.name}" is not running (disabled): it is disabled in ${def.origin.file}`;
    case 'error':
      return `server "${def.name}" is not running (error): ${state.message}`;
    case 'blocked':
      return `server "${def.name}" is not running (blocked): ${state.reason}`;
    default:
      return `server "${def.name}" is not running (${describeState(state, now)})`;
  }
}
