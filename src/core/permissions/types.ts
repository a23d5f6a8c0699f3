/**
 * The permission gate's contracts. The policy is a pure function of (tool, its pin hash, rules,
 * remembered choices); only `ask` reaches a person, through an injected prompter. A tool is the
 * registry's `HarnessTool`: the gate decides about exactly what the call will go to.
 */
import type { HarnessTool } from '../tools/types';

/** A suspicious span found in a tool's description, schema or result. */
export interface PoisoningHit {
  readonly where: 'description' | 'schema' | 'result' | 'title';
  readonly kind: 'hidden_characters' | 'instructions';
  /** The offending text with hidden characters made visible (e.g. `<U+200B>`). */
  readonly excerpt: string;
}

/** A person's answer on a permission card. */
export type PermissionChoice = 'once' | 'session' | 'workspace' | 'server_session' | 'deny';

export interface PermissionAnswer {
  readonly choice: PermissionChoice;
  /** Given with `deny`: passed to the model. */
  readonly reason?: string;
}

/** What the card shows. */
export interface PermissionRequest {
  /** The pipeline's own id for this call (unique even when a model repeats its call ids). */
  readonly callId: string;
  readonly tool: HarnessTool;
  readonly arguments: unknown;
  /** A readable diff of the definition when a remembered approval no longer applies because the tool changed. */
  readonly changedSinceApproval?: string;
  readonly warnings: readonly PoisoningHit[];
  /** A PreToolUse hook asked for this card (`permissionDecision: "ask"`), and why. */
  readonly askedBy?: { readonly hook: string; readonly reason?: string };
}

/** Shows a card and waits for the answer; rejects or answers `deny` when `signal` aborts. */
export interface IPermissionPrompter {
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}

/** Where remembered workspace choices live (VS Code's workspace state, a file for the CLI, memory for tests). */
export interface IApprovalStore {
  get(): Promise<Readonly<Record<string, string>>>;
  set(entries: Readonly<Record<string, string>>): Promise<void>;
}

/** Who allowed or denied a call, for the audit log. */
export type PermissionDecider =
  | { readonly by: 'rule'; readonly rule: string }
  | { readonly by: 'remembered'; readonly scope: 'session' | 'workspace' | 'server_session' }
  | { readonly by: 'user'; readonly choice: PermissionChoice }
  | { readonly by: 'read_only_setting' }
  /** The call was made by whoever asked for it directly (the CLI's `call`, a library host). */
  | { readonly by: 'caller' }
  /** A hook decided (PreToolUse `allow` or `deny`), or failed and so kept the call from running. */
  | { readonly by: 'hook'; readonly hook: string };

export type PermissionDecision =
  | { readonly outcome: 'allow'; readonly decider: PermissionDecider }
  | { readonly outcome: 'deny'; readonly decider: PermissionDecider; readonly reason?: string };

/** One call to decide on: the tool as resolved at this moment, and the validated arguments. */
export interface DecisionRequest {
  /** The pipeline's own id for this call. */
  readonly callId: string;
  readonly tool: HarnessTool;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** What the PreToolUse hooks said, when they allowed the call or asked for a card. */
  readonly hook?: HookDecisionHint;
}

/**
 * A PreToolUse hook's word on a call that it did not deny: `allow` (no card, though a deny rule
 * still denies) or `ask` (a person decides, even when a rule or a remembered choice would allow).
 */
export interface HookDecisionHint {
  readonly decision: 'allow' | 'ask';
  /** The hook, as the card and the audit log name it. */
  readonly hook: string;
  readonly reason?: string;
}

export interface DecisionOptions {
  readonly signal: AbortSignal;
  /** Called just before a person is asked (the card appears), not when a rule or memory decides. */
  onAsk?(request: PermissionRequest): void;
}

/**
 * Decides whether a call may go out: the chat's permission gate, serve's exposure policy, or the
 * caller itself (the CLI). Never throws for a refusal: that is a `deny` decision.
 */
export interface ICallDecider {
  decide(call: DecisionRequest, options: DecisionOptions): Promise<PermissionDecision>;
}
