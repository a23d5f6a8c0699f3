/**
 * The permission gate's contracts. The policy is a pure function of (tool, its pin hash, rules,
 * remembered choices); only `ask` reaches a person, through an injected prompter.
 */

/** What the gate knows of a tool when deciding. */
export interface PermissionTool {
  /** Exposed name, e.g. `mcp__memory__create_entities` (what rules match). */
  readonly name: string;
  /** The MCP server, absent for built-in tools. */
  readonly server?: string;
  readonly originalName: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: {
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
}

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
  readonly callId: string;
  readonly tool: PermissionTool;
  readonly arguments: unknown;
  /** A readable diff of the definition when a remembered approval no longer applies because the tool changed. */
  readonly changedSinceApproval?: string;
  readonly warnings: readonly PoisoningHit[];
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
  | { readonly by: 'read_only_setting' };

export type PermissionDecision =
  | { readonly outcome: 'allow'; readonly decider: PermissionDecider }
  | { readonly outcome: 'deny'; readonly decider: PermissionDecider; readonly reason?: string };
