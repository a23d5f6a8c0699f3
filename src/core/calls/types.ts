import type { McpCallFailureKind } from '../mcp/McpCallError';
import type { AuditClient, AuditHookEntry, IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider, PermissionDecider, PermissionRequest, PoisoningHit } from '../permissions/types';
import type { HarnessTool, McpContentBlock, ToolCallResult } from '../tools/types';
import type { HarnessTask } from '../tasks/taskTypes';

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
  | 'tool_changed'
  /** A hook that guards the call timed out, crashed or printed malformed output: the call did not run, or its result was withheld. */
  | 'hook_failed';

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
  /** Once it ran (done, or the tool's own error): the result as the server sent it, for a card that renders it (MCP Apps). */
  readonly result?: Pick<HarnessCallResult, 'isError' | 'content' | 'structuredContent'>;

  /** The call came back as a task: its state (kept in the events after it, the last one included). */
  readonly task?: HarnessTask;
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
  /** What hooks added for the model (`additionalContext`, a PostToolUse block's reason), besides the result. */
  readonly hookNotes?: readonly HookNote[];
  /** For the user: hooks' `systemMessage`s, and hooks that failed without stopping the call. */
  readonly hookMessages?: readonly string[];
  /** A hook answered `continue: false`: the turn should end after this step. */
  readonly hookStop?: { readonly hook: string; readonly reason?: string };
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
  /** The conversation the call belongs to (hooks get it as `session_id`). */
  readonly conversationId?: string;
  /** The model's id of the call, kept with a task it becomes (its result answers that id). */
  readonly modelCallId?: string;
  /** Return as soon as the call became a task; the task keeps running and is followed in the background. */
  readonly detachTask?: boolean;
  onEvent?(event: ToolCallEvent): void;
}

/** Text a hook gave for the model, and which hook gave it. */
export interface HookNote {
  readonly hook: string;
  readonly text: string;
}

/** What a call's hooks are told. */
export interface ToolHookContext {
  readonly callId: string;
  readonly tool: HarnessTool;
  /** The validated arguments (hooks see them with secrets redacted). */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly signal: AbortSignal;
  readonly conversationId?: string;
  readonly client?: AuditClient;
}

/** What every verdict carries besides its outcome. */
interface HookVerdictBase {
  /** Each hook run, for the audit log. */
  readonly runs: readonly AuditHookEntry[];
  readonly notes: readonly HookNote[];
  readonly messages: readonly string[];
  readonly stop?: { readonly hook: string; readonly reason?: string };
}

/**
 * What the PreToolUse hooks said together. `deny`: the call does not run, and `reason` is what
 * the model reads; `failed`: a hook that guards it failed, so it does not run either; `go`: it
 * goes to the decider, with a hook's `allow` or `ask`; `updatedInput` replaces the arguments
 * (validated again).
 */
export type PreToolUseVerdict =
  | (HookVerdictBase & {
      readonly outcome: 'go';
      /** A hook allowed the call or asked for a card (`hook` is the one that did). */
      readonly decision?: 'allow' | 'ask';
      readonly hook?: string;
      readonly reason?: string;
      readonly updatedInput?: Readonly<Record<string, unknown>>;
      /** The last hook that rewrote the arguments. */
      readonly inputBy?: string;
    })
  | (HookVerdictBase & { readonly outcome: 'deny'; readonly hook: string; readonly reason: string })
  | (HookVerdictBase & { readonly outcome: 'failed'; readonly hook: string; readonly reason: string });

/** What the PostToolUse hooks said together: the result to give instead, or that it must be withheld. */
export type PostToolUseVerdict =
  | (HookVerdictBase & { readonly outcome: 'none'; readonly replacement?: readonly McpContentBlock[]; readonly replacedBy?: string })
  | (HookVerdictBase & { readonly outcome: 'failed'; readonly hook: string; readonly reason: string });

/** The hooks the pipeline runs around each call: before the decision, and after the call. */
export interface IToolCallHooks {
  /**
   * Whether any hook of `event` matches `tool` now (one that may not run counts: its skip is
   * reported). When this says no, the pipeline leaves that step out: nothing would run or be said.
   */
  matches?(event: 'PreToolUse' | 'PostToolUse', tool: HarnessTool): boolean;
  preToolUse(context: ToolHookContext): Promise<PreToolUseVerdict>;
  postToolUse(context: ToolHookContext & { readonly result: HarnessCallResult }): Promise<PostToolUseVerdict>;
}
