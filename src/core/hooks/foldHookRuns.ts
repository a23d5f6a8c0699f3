import type { HookDefinition } from '../config/hookTypes';
import type { HarnessCallResult, HookNote, PostToolUseVerdict, PreToolUseVerdict } from '../calls/types';
import type { AuditHookEntry } from '../permissions/AuditLog';
import type { McpContentBlock } from '../tools/types';
import { restoreRedacted } from './hookInput';
import type { HookReading } from './readHookRun';

/** One hook's run: what it said (undefined when it was skipped), and its audit entry. */
export interface HookStep {
  readonly hook: HookDefinition;
  readonly reading: HookReading | undefined;
  readonly entry: AuditHookEntry;
}

/** What the UserPromptSubmit hooks said: context for the model, or that the prompt is refused. */
export interface ChatPromptVerdict {
  readonly blocked?: { readonly hook: string; readonly reason: string };
  readonly notes: readonly HookNote[];
  readonly messages: readonly string[];
  readonly runs: readonly AuditHookEntry[];
}

/** What the SessionStart hooks said: context for the model. */
export interface ChatSessionVerdict {
  readonly notes: readonly HookNote[];
  readonly messages: readonly string[];
  readonly runs: readonly AuditHookEntry[];
}

/** How a hook is named to the model, the card and the user: its command line, shortened. */
export function hookLabel(hook: HookDefinition): string {
  const line = hook.command.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Collects what every run adds whatever the event: its audit entry, a note, a message for the user. */
class Collected {
  readonly runs: AuditHookEntry[] = [];
  readonly notes: HookNote[] = [];
  readonly messages: string[] = [];

  /** The response of a run that went well; a failure's text (or undefined when it was skipped). */
  take(step: HookStep): Extract<HookReading, { ok: true }>['response'] | { failed: string } | undefined {
    this.runs.push(step.entry);
    const { reading, hook } = step;
    if (!reading) return undefined;
    const label = hookLabel(hook);
    if (!reading.ok) {
      const problem = `the ${hook.event} hook "${label}" ${reading.problem}`;
      if (hook.onError !== 'continue') return { failed: problem };
      this.messages.push(`${problem}; it is marked "onError": "continue", so this went on without it.`);
      return undefined;
    }
    const r = reading.response;
    if (r.systemMessage) this.messages.push(`${label}: ${r.systemMessage}`);
    if (r.context) this.notes.push({ hook: label, text: r.context });
    return r;
  }

  get base() {
    return { runs: this.runs, notes: this.notes, messages: this.messages };
  }
}

/**
 * PreToolUse, one hook after another: the first `deny` (or `continue: false`, or a failure of a
 * hook that guards) ends it; `ask` wins over `allow`; each `updatedInput` is what the next hook
 * and the call see, with the secrets the hook could not see put back.
 */
export async function foldPreToolUse(
  hooks: readonly HookDefinition[],
  args: Readonly<Record<string, unknown>>,
  run: (hook: HookDefinition, args: Readonly<Record<string, unknown>>) => Promise<HookStep>,
): Promise<PreToolUseVerdict> {
  const c = new Collected();
  let input = args;
  let inputBy: string | undefined;
  let decided: { decision: 'allow' | 'ask'; hook: string; reason?: string } | undefined;
  for (const hook of hooks) {
    const r = c.take(await run(hook, input));
    if (r === undefined) continue;
    const label = hookLabel(hook);
    if ('failed' in r) return { ...c.base, outcome: 'failed', hook: label, reason: r.failed };
    if (r.stop) return { ...c.base, outcome: 'deny', hook: label, reason: r.stop.reason ?? 'a hook stopped the turn', stop: { hook: label, ...(r.stop.reason !== undefined ? { reason: r.stop.reason } : {}) } };
    if (r.decision === 'deny') return { ...c.base, outcome: 'deny', hook: label, reason: r.reason ?? 'the hook denied it' };
    if (r.updatedInput) {
      input = restoreRedacted(r.updatedInput, input) as Record<string, unknown>;
      inputBy = label;
    }
    if (r.decision === 'ask' && decided?.decision !== 'ask') decided = { decision: 'ask', hook: label, ...(r.reason !== undefined ? { reason: r.reason } : {}) };
    else if (r.decision === 'allow' && decided === undefined) decided = { decision: 'allow', hook: label, ...(r.reason !== undefined ? { reason: r.reason } : {}) };
  }
  return {
    ...c.base,
    outcome: 'go',
    ...(decided ? { decision: decided.decision, hook: decided.hook, ...(decided.reason !== undefined ? { reason: decided.reason } : {}) } : {}),
    ...(inputBy !== undefined ? { updatedInput: input, inputBy } : {}),
  };
}

/**
 * PostToolUse, one hook after another: each sees the result as the one before left it
 * (`updatedMCPToolOutput` replaces it); a `block` reason and `additionalContext` are notes for the
 * model; a failure of a hook that guards withholds the result.
 */
export async function foldPostToolUse(hooks: readonly HookDefinition[], result: HarnessCallResult, run: (hook: HookDefinition, result: HarnessCallResult) => Promise<HookStep>): Promise<PostToolUseVerdict> {
  const c = new Collected();
  let current = result;
  let replacement: readonly McpContentBlock[] | undefined;
  let replacedBy: string | undefined;
  let stop: PostToolUseVerdict['stop'];
  for (const hook of hooks) {
    const r = c.take(await run(hook, current));
    if (r === undefined) continue;
    const label = hookLabel(hook);
    if ('failed' in r) return { ...c.base, outcome: 'failed', hook: label, reason: r.failed };
    if (r.decision === 'block') c.notes.push({ hook: label, text: r.reason ?? 'the hook flagged this result' });
    if (r.replacement) {
      replacement = r.replacement;
      replacedBy = label;
      const text = r.replacement.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
      current = { ...current, content: r.replacement, text, structuredContent: undefined };
    }
    if (r.stop && !stop) stop = { hook: label, ...(r.stop.reason !== undefined ? { reason: r.stop.reason } : {}) };
  }
  return { ...c.base, outcome: 'none', ...(replacement ? { replacement, replacedBy: replacedBy! } : {}), ...(stop ? { stop } : {}) };
}

/** UserPromptSubmit: `block` (or exit 2, `continue: false`, a failure of a hook that guards) refuses the prompt. */
export async function foldPrompt(hooks: readonly HookDefinition[], run: (hook: HookDefinition) => Promise<HookStep>): Promise<ChatPromptVerdict> {
  const c = new Collected();
  for (const hook of hooks) {
    const r = c.take(await run(hook));
    if (r === undefined) continue;
    const label = hookLabel(hook);
    if ('failed' in r) return { ...c.base, blocked: { hook: label, reason: r.failed } };
    if (r.stop || r.decision === 'block') return { ...c.base, blocked: { hook: label, reason: r.stop?.reason ?? r.reason ?? 'the hook refused the prompt' } };
  }
  return c.base;
}

/** SessionStart: context for the model; a failure is only reported (a session cannot be refused). */
export async function foldSession(hooks: readonly HookDefinition[], run: (hook: HookDefinition) => Promise<HookStep>): Promise<ChatSessionVerdict> {
  const c = new Collected();
  for (const hook of hooks) {
    const r = c.take(await run(hook));
    if (r !== undefined && 'failed' in r) c.messages.push(`${r.failed}.`);
  }
  return c.base;
}
