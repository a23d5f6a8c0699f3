import { diffDefinitions, type ToolPin } from '../tools/toolPin';
import type { HarnessTool } from '../tools/types';
import { findMatchingPattern, type PatternSubject } from './toolPattern';
import type { HookDecisionHint, PermissionDecider } from './types';

/** Rules from settings: patterns bound to servers (`mcp__memory__*`; see `matchToolPattern`). */
export interface PermissionRules {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  /** Allow tools the server annotates read-only without asking (off by default: it is the server's own claim). */
  readonly autoAllowReadOnly?: boolean;
}

/** A remembered approval, bound to the tool's definition when it was given. */
export interface RememberedApproval {
  readonly hash: string;
  /** The approved definition (stable JSON), to show what changed. */
  readonly definition: string;
}

/** Everything remembered, looked up by approval key (see `approvalKey`) or by server name. */
export interface RememberedChoices {
  readonly session?: ReadonlyMap<string, RememberedApproval>;
  readonly workspace?: ReadonlyMap<string, RememberedApproval>;
  /** Servers the user allowed for this session, each with the tools pinned so far under that approval. */
  readonly serverSession?: ReadonlyMap<string, ReadonlyMap<string, RememberedApproval>>;
  /** What each tool looked like when a person last allowed it, even once: never allows, only shows what changed. */
  readonly lastAllowed?: ReadonlyMap<string, RememberedApproval>;
}

export interface PermissionInput {
  readonly tool: HarnessTool;
  readonly pin: ToolPin;
  /** The call's arguments; rules match names only, so they do not change the decision today. */
  readonly arguments?: unknown;
  readonly rules: PermissionRules;
  readonly remembered: RememberedChoices;
  /** What a PreToolUse hook said: `allow` skips the card, `ask` always shows it; deny rules win over both. */
  readonly hook?: HookDecisionHint;
}

export type PolicyResult =
  | { readonly outcome: 'allow'; readonly decider: PermissionDecider }
  | { readonly outcome: 'deny'; readonly decider: PermissionDecider; readonly reason: string }
  /** A person must decide. `changedSinceApproval` is set when a remembered approval no longer matches. */
  | { readonly outcome: 'ask'; readonly changedSinceApproval?: string };

/** Key of a remembered per-tool approval: the server and the tool's own name, not the exposed name. */
export function approvalKey(tool: Pick<HarnessTool, 'server' | 'originalName'>): string {
  return JSON.stringify([tool.server ?? null, tool.originalName]);
}

/**
 * Built-in tools that change things (not annotated read-only, or annotated destructive) ask every
 * time unless a rule allows them; remembered choices never apply to them.
 */
export function alwaysAsks(tool: HarnessTool): boolean {
  if (tool.server !== undefined) return false;
  return tool.annotations?.readOnlyHint !== true || tool.annotations.destructiveHint === true;
}

/**
 * The gate's decision for one call, a pure function. Order: a deny rule wins over everything; then
 * a hook's allow or ask; then an allow rule; then remembered choices whose pin still matches; then
 * the read-only setting; else ask.
 */
export function evaluatePermission(input: PermissionInput): PolicyResult {
  const { tool, pin, rules, remembered } = input;
  const subject = patternSubject(tool);
  const denied = findMatchingPattern(rules.deny, subject);
  if (denied !== undefined) {
    return { outcome: 'deny', decider: { by: 'rule', rule: denied }, reason: `denied by the rule "${denied}"` };
  }
  if (input.hook?.decision === 'allow') return { outcome: 'allow', decider: { by: 'hook', hook: input.hook.hook } };
  if (input.hook?.decision === 'ask') return { outcome: 'ask' };
  const allowed = findMatchingPattern(rules.allow, subject);
  if (allowed !== undefined) return { outcome: 'allow', decider: { by: 'rule', rule: allowed } };
  if (alwaysAsks(tool)) return { outcome: 'ask' };

  const key = approvalKey(tool);
  const serverPins = tool.server === undefined ? undefined : remembered.serverSession?.get(tool.server);
  const candidates: Array<['session' | 'workspace' | 'server_session', RememberedApproval | undefined]> = [
    ['session', remembered.session?.get(key)],
    ['workspace', remembered.workspace?.get(key)],
    ['server_session', serverPins?.get(key)],
  ];
  let changed: RememberedApproval | undefined;
  for (const [scope, approval] of candidates) {
    if (approval === undefined) continue;
    if (approval.hash === pin.hash) return { outcome: 'allow', decider: { by: 'remembered', scope } };
    changed ??= approval;
  }
  // A server approved for the session covers its tools not seen before; the gate pins each on first use.
  if (serverPins !== undefined && !serverPins.has(key)) return { outcome: 'allow', decider: { by: 'remembered', scope: 'server_session' } };
  if (rules.autoAllowReadOnly === true && tool.annotations?.readOnlyHint === true && tool.annotations.destructiveHint !== true) {
    return { outcome: 'allow', decider: { by: 'read_only_setting' } };
  }
  const last = remembered.lastAllowed?.get(key);
  changed ??= last !== undefined && last.hash !== pin.hash ? last : undefined;
  return changed === undefined ? { outcome: 'ask' } : { outcome: 'ask', changedSinceApproval: diffDefinitions(changed.definition, pin.definition) };
}

/** What rules match a tool by: its server and its own name, never the exposed name. */
export function patternSubject(tool: Pick<HarnessTool, 'server' | 'originalName'>): PatternSubject {
  return tool.server === undefined ? { name: tool.originalName } : { server: tool.server, name: tool.originalName };
}
