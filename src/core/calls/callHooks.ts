import type { IAuditSink } from '../permissions/AuditLog';
import type { HookDecisionHint, PermissionDecider } from '../permissions/types';
import { DEFAULT_MAX_OUTPUT_CHARS, formatToolResult } from '../tools/formatToolResult';
import type { ToolRegistry } from '../tools/ToolRegistry';
import type { HarnessTool } from '../tools/types';
import { auditEntry, failure } from './callSteps';
import type { HarnessCallResult, HookNote, IToolCallHooks, PostToolUseVerdict, PreToolUseVerdict, ToolCallOptions, ToolCallOutcome, ToolHookContext } from './types';

/** What the hooks of one call added up to, for its outcome: notes for the model, messages for the user, a stop. */
export class CallHookRecord {
  private readonly _notes: HookNote[] = [];
  private readonly _messages: string[] = [];
  private _stop: { hook: string; reason?: string } | undefined;

  constructor(private readonly _audit: IAuditSink | undefined) {}

  /** Takes a verdict's runs (into the audit log), notes, messages and stop. */
  add(verdict: PreToolUseVerdict | PostToolUseVerdict): void {
    for (const run of verdict.runs) this._audit?.hook?.(run);
    this._notes.push(...verdict.notes);
    this._messages.push(...verdict.messages);
    this._stop ??= verdict.stop;
  }

  /** The outcome's hook fields (none when no hook said anything). */
  fields(): Pick<ToolCallOutcome, 'hookNotes' | 'hookMessages' | 'hookStop'> {
    return {
      ...(this._notes.length ? { hookNotes: [...this._notes] } : {}),
      ...(this._messages.length ? { hookMessages: [...this._messages] } : {}),
      ...(this._stop ? { hookStop: this._stop } : {}),
    };
  }
}

/** The PreToolUse step's result: end the call with this, or go on with these arguments and this hint. */
export type PreToolUseStep =
  | { readonly end: { readonly state: 'denied' | 'error'; readonly result: HarnessCallResult; readonly decider?: PermissionDecider } }
  | { readonly input: Record<string, unknown>; readonly hint?: HookDecisionHint };

/**
 * Runs the PreToolUse hooks of a validated call. A deny (or a failure of a hook that guards) ends
 * the call with the reason the model reads; rewritten arguments are validated again and then are
 * what the decision and the call get; an allow or an ask goes to the decider as a hint.
 */
export async function preToolUseStep(
  hooks: IToolCallHooks,
  context: ToolHookContext,
  registry: ToolRegistry,
  record: CallHookRecord,
  options: ToolCallOptions,
): Promise<PreToolUseStep> {
  const { tool } = context;
  const verdict = await hooks.preToolUse(context);
  record.add(verdict);
  if (verdict.outcome === 'go') return goOn(verdict, tool, registry, context.arguments as Record<string, unknown>);
  const decider: PermissionDecider = { by: 'hook', hook: verdict.hook };
  options.audit?.denied(auditEntry(tool.name, tool, context.arguments, options.client, { decider, reason: verdict.reason }));
  if (verdict.outcome === 'deny') return { end: { state: 'denied', decider, result: failure('denied', `Not run: blocked by the PreToolUse hook "${verdict.hook}": ${verdict.reason}`) } };
  const text = `Not run: ${verdict.reason}. Calls this hook guards do not run while it fails (unless it is marked "onError": "continue").`;
  return { end: { state: 'error', decider, result: failure('hook_failed', text) } };
}

/** A verdict that lets the call go on: its arguments (rewritten ones validated again) and the hint for the decider. */
function goOn(verdict: Extract<PreToolUseVerdict, { outcome: 'go' }>, tool: HarnessTool, registry: ToolRegistry, args: Record<string, unknown>): PreToolUseStep {
  let input = args;
  if (verdict.updatedInput) {
    const invalid = registry.validateArguments(tool, verdict.updatedInput);
    if (invalid) return { end: { state: 'error', result: failure('invalid_arguments', `The PreToolUse hook "${verdict.inputBy}" rewrote the arguments into ones that are not valid: ${invalid}`) } };
    input = { ...verdict.updatedInput };
  }
  const hint: HookDecisionHint | undefined =
    verdict.decision && verdict.hook !== undefined ? { decision: verdict.decision, hook: verdict.hook, ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}) } : undefined;
  return hint ? { input, hint } : { input };
}

/**
 * Runs the PostToolUse hooks of a call that returned (its result, or the tool's own error): the
 * result a hook gives instead replaces it (formatted and capped like a server's); a failure of a
 * hook that guards withholds the result.
 */
export async function postToolUseStep(
  hooks: IToolCallHooks,
  context: ToolHookContext & { readonly result: HarnessCallResult },
  record: CallHookRecord,
  maxOutputChars: number | undefined,
): Promise<HarnessCallResult> {
  const verdict = await hooks.postToolUse(context);
  record.add(verdict);
  if (verdict.outcome !== 'none') {
    return failure('hook_failed', `The result was withheld: ${verdict.reason}. The tool did run; its result is not shown while this hook fails (unless it is marked "onError": "continue").`);
  }
  if (!verdict.replacement) return context.result;
  const { result } = context;
  const replaced = formatToolResult({ content: [...verdict.replacement], ...(result.isError ? { isError: true } : {}) } as Parameters<typeof formatToolResult>[0], {
    maxOutputChars: maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
  });
  return result.errorKind ? { ...replaced, errorKind: result.errorKind } : replaced;
}

/** What a call's hooks are told about it. */
export function hookContext(callId: string, tool: HarnessTool, args: Record<string, unknown>, signal: AbortSignal, options: ToolCallOptions): ToolHookContext {
  return {
    callId,
    tool,
    arguments: args,
    signal,
    ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}),
    ...(options.client ? { client: options.client } : {}),
  };
}
