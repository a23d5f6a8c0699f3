import type { McpCallFailureKind } from '../mcp/McpCallError';
import type { AuditClient, IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider, PermissionDecider, PermissionRequest, PoisoningHit } from '../permissions/types';
import type { HarnessTool, ToolCallResult } from '../tools/types';

/** States of a call, as its card shows them. */
export type ToolCallState = 'waiting_for_approval' | 'running' | 'done' | 'error' | 'denied' | 'cancelled';

/** Kinds of failure a call can end in besides the tool's own error. */
export type HarnessCallErrorKind =
  | McpCallFailureKind
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'tool_error'
  /** A rule, a person or the exposure policy refused it. */
  | 'denied'
  /** The tool's definition (or its server) changed between the decision and the call: nothing was sent. */
  | 'tool_changed';

export interface HarnessCallResult extends ToolCallResult {
  /** Set when `isError`: why. `tool_error` means the tool itself reported the failure. */
  readonly errorKind?: HarnessCallErrorKind;
}

/** Progress a server reported for a call. */
export interface CallProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * Everything a card shows about one call, from one channel: each step of the pipeline reports the
 * whole state so far. `callId` is the pipeline's own id, unique even when a model repeats ids.
 */
export interface ToolCallEvent {
  readonly callId: string;
  /** The name the call asked for (the exposed name, or what a model sent). */
  readonly toolName: string;
  /** The tool it resolved to, once it did. */
  readonly tool?: HarnessTool;
  readonly arguments: unknown;
  readonly state: ToolCallState;
  /** While waiting for approval: what the card asks about. */
  readonly permission?: PermissionRequest;
  /** Once decided: who allowed or denied it (a rule, a remembered choice, a person, the read-only setting). */
  readonly decider?: PermissionDecider;
  readonly progress?: CallProgress;
  /** Result text (done, error), or why it was denied or not made. */
  readonly output?: string;
  /** How long the call itself ran (from the request going out to its answer). */
  readonly runMs?: number;
  /** How long it waited for a person's answer. */
  readonly waitMs?: number;
  /** Poisoning-scan hits: the definition while waiting for approval, the result when done. */
  readonly warnings?: readonly PoisoningHit[];
}

/** How a call ended: the result and everything the card shows. */
export interface ToolCallOutcome extends HarnessCallResult {
  readonly callId: string;
  readonly state: Exclude<ToolCallState, 'waiting_for_approval' | 'running'>;
  readonly tool?: HarnessTool;
  readonly decider?: PermissionDecider;
  readonly runMs?: number;
  readonly waitMs?: number;
  readonly warnings: readonly PoisoningHit[];
}

/** What a caller asks the pipeline to call. */
export interface ToolCallRequest {
  /** The exposed name. */
  readonly name: string;
  /** The arguments as JSON text (from a model, or typed by a person); parsed by the pipeline. */
  readonly argumentsText?: string;
  /** The arguments as a value, when there is no text. */
  readonly arguments?: unknown;
}

/** Who is calling and under which policy. */
export interface ToolCallOptions {
  /** Decides whether the call may go out (default: the caller decided by making it). */
  readonly decider?: ICallDecider;
  readonly audit?: IAuditSink;
  /** The client a gateway call came from (for the audit log). */
  readonly client?: AuditClient;
  /** The tools this caller may reach (the enabled ones, what serve exposes); others do not exist for it. */
  available?(tool: HarnessTool): boolean;
  readonly signal?: AbortSignal;
  /** Time without an answer or progress before giving up (default: the server's `toolTimeoutMs`, else the harness's). */
  readonly timeoutMs?: number;
  /** An id of the caller's choosing; a fresh one by default. */
  readonly callId?: string;
  onEvent?(event: ToolCallEvent): void;
}
