import { randomUUID } from 'node:crypto';
import { Emitter, type Event } from '../base/event';
import { Disposable } from '../base/lifecycle';
import type { HookDefinition, HookEventName } from '../config/hookTypes';
import type { IToolCallHooks, PostToolUseVerdict, PreToolUseVerdict, ToolHookContext, HarnessCallResult } from '../calls/types';
import type { AuditClient, AuditHookEntry } from '../permissions/AuditLog';
import type { HarnessTool } from '../tools/types';
import { redactSecrets } from '../permissions/redactSecrets';
import { foldPostToolUse, foldPreToolUse, foldPrompt, foldSession, type ChatPromptVerdict, type ChatSessionVerdict, type HookStep } from './foldHookRuns';
import { toolEventInput, type HookCommonInput } from './hookInput';
import { hookToolName, matchesToolHook, matchesValue } from './hookMatcher';
import { readHookRun, type HookReading } from './readHookRun';
import { runHookCommand } from './runHookCommand';

export interface HookRunnerOptions {
  /** Why a hook may not run now (not approved yet, an untrusted workspace), or undefined when it may. */
  permit?(hook: HookDefinition): string | undefined;
  /** The environment hook commands get; `CLAUDE_PROJECT_DIR` is added (default: PATH and HOME only). */
  env?(): Readonly<Record<string, string>>;
  /** Where hooks that belong to no workspace folder run (default: the process's working folder). */
  projectDir?(): string;
  now?(): number;
}

/** A configured hook, and why it does not run now, if it does not. */
export interface HookSnapshot {
  readonly hook: HookDefinition;
  readonly blocked?: string;
}

/** One run as the hook log shows it. */
export interface HookRunRecord extends AuditHookEntry {
  /** When it ended (ms since the epoch). */
  readonly time: number;
  /** The last lines the command wrote to stderr. */
  readonly stderr?: string;
}

/**
 * Runs the configured hooks (Claude Code's format) for tool calls and chat events: which hooks
 * match, one after another in configuration order, each a command with the event as JSON on
 * stdin. Every run is reported on {@link onDidRun} and in each verdict's `runs` (for the audit
 * log). Hooks that are not permitted (a workspace's hooks before the user approved them) are
 * skipped and reported as such.
 */
export class HookRunner extends Disposable implements IToolCallHooks {
  private _hooks: readonly HookDefinition[] = [];
  private readonly _sessionId = randomUUID();
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** The hooks, or what may run, changed. */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private readonly _onDidRun = this._register(new Emitter<HookRunRecord>());
  readonly onDidRun: Event<HookRunRecord> = this._onDidRun.event;

  constructor(private readonly _o: HookRunnerOptions = {}) {
    super();
  }

  setHooks(hooks: readonly HookDefinition[]): void {
    if (JSON.stringify(hooks) === JSON.stringify(this._hooks)) return;
    this._hooks = hooks;
    this._onDidChange.fire();
  }

  /** Every configured hook, in the order they run, with why it is not running when it is not. */
  hooks(): HookSnapshot[] {
    return this._hooks.map((hook) => {
      const blocked = this._o.permit?.(hook);
      return blocked === undefined ? { hook } : { hook, blocked };
    });
  }

  /** Tells listeners that what may run changed (an approval, the workspace's trust). */
  refresh(): void {
    this._onDidChange.fire();
  }

  matches(event: 'PreToolUse' | 'PostToolUse', tool: HarnessTool): boolean {
    return this._hooks.length > 0 && this._tool(event, tool).length > 0;
  }

  async preToolUse(context: ToolHookContext): Promise<PreToolUseVerdict> {
    return foldPreToolUse(this._tool('PreToolUse', context.tool), context.arguments, (hook, args) => this._toolStep(hook, 'PreToolUse', { ...context, arguments: args }));
  }

  async postToolUse(context: ToolHookContext & { readonly result: HarnessCallResult }): Promise<PostToolUseVerdict> {
    return foldPostToolUse(this._tool('PostToolUse', context.tool), context.result, (hook, response) => this._toolStep(hook, 'PostToolUse', context, response));
  }

  /** UserPromptSubmit: may add context for the model, or refuse the prompt. */
  async userPromptSubmit(context: { readonly conversationId: string; readonly prompt: string; readonly signal?: AbortSignal }): Promise<ChatPromptVerdict> {
    const hooks = this._matching('UserPromptSubmit', () => true);
    return foldPrompt(hooks, (hook) =>
      this._step(hook, { ...this._common(hook, context.conversationId), hook_event_name: 'UserPromptSubmit', prompt: redactSecrets(context.prompt) }, { conversationId: context.conversationId }, context.signal),
    );
  }

  /** SessionStart (`source`: `startup`, `resume` or `clear`): may add context for the model. */
  async sessionStart(context: { readonly conversationId: string; readonly source: 'startup' | 'resume' | 'clear'; readonly signal?: AbortSignal }): Promise<ChatSessionVerdict> {
    const hooks = this._matching('SessionStart', (m) => matchesValue(m, context.source));
    return foldSession(hooks, (hook) =>
      this._step(hook, { ...this._common(hook, context.conversationId), hook_event_name: 'SessionStart', source: context.source }, { conversationId: context.conversationId }, context.signal),
    );
  }

  private _tool(event: 'PreToolUse' | 'PostToolUse', tool: HarnessTool): HookDefinition[] {
    const subject = tool.server === undefined ? { name: tool.originalName } : { server: tool.server, name: tool.originalName };
    return this._matching(event, (m) => matchesToolHook(m, subject));
  }

  private _toolStep(hook: HookDefinition, event: 'PreToolUse' | 'PostToolUse', context: ToolHookContext, response?: HarnessCallResult): Promise<HookStep> {
    const { tool } = context;
    const input = toolEventInput(event, this._common(hook, context.conversationId), context, response);
    const meta = {
      tool: hookToolName(tool.server === undefined ? { name: tool.originalName } : { server: tool.server, name: tool.originalName }),
      ...(tool.server !== undefined ? { server: tool.server } : {}),
      callId: context.callId,
      ...(context.conversationId !== undefined ? { conversationId: context.conversationId } : {}),
      ...(context.client ? { client: context.client } : {}),
    };
    return this._step(hook, input, meta, context.signal);
  }

  /** Hooks of `event` whose matcher matches, each command once (as Claude Code runs them). */
  private _matching(event: HookEventName, matches: (matcher: string) => boolean): HookDefinition[] {
    const seen = new Set<string>();
    return this._hooks.filter((hook) => {
      if (hook.event !== event || !matches(hook.matcher) || seen.has(hook.command)) return false;
      seen.add(hook.command);
      return true;
    });
  }

  private _common(hook: HookDefinition, conversationId: string | undefined): HookCommonInput {
    return { session_id: conversationId ?? this._sessionId, transcript_path: '', cwd: this._cwd(hook), permission_mode: 'default' };
  }

  private _cwd(hook: HookDefinition): string {
    return hook.origin.workspaceFolder ?? this._o.projectDir?.() ?? process.cwd();
  }

  /** Runs one hook (unless it may not run now), reads what it said and reports the run. */
  private async _step(
    hook: HookDefinition,
    input: Record<string, unknown>,
    meta: { tool?: string; server?: string; callId?: string; conversationId?: string; client?: AuditClient },
    signal: AbortSignal | undefined,
  ): Promise<HookStep> {
    const base = { hookEvent: hook.event, hook: hook.command, hookId: hook.id, source: hook.origin.source, ...meta };
    const blocked = this._o.permit?.(hook);
    if (blocked !== undefined) {
      const entry: AuditHookEntry = { ...base, durationMs: 0, outcome: 'skipped', detail: blocked };
      this._onDidRun.fire({ ...entry, time: this._clock() });
      return { hook, reading: undefined, entry };
    }
    const cwd = this._cwd(hook);
    const env = { ...(this._o.env?.() ?? defaultEnv()), CLAUDE_PROJECT_DIR: cwd, MCP_HARNESS_PROJECT_DIR: cwd };
    const run = await runHookCommand(hook.command, { cwd, env, input: JSON.stringify(input), timeoutMs: hook.timeoutSec * 1000, ...(signal ? { signal } : {}) });
    const reading = readHookRun(hook.event, run, hook.timeoutSec);
    const stderr = run.stderr.trim().split('\n').slice(-5).join('\n').slice(0, 2000);
    const entry: AuditHookEntry = { ...base, ...describeReading(reading, hook), durationMs: Math.round(run.durationMs), exitCode: run.exitCode };
    this._onDidRun.fire({ ...entry, time: this._clock(), ...(stderr ? { stderr: redactSecrets(stderr) as string } : {}) });
    return { hook, reading, entry };
  }

  private _clock(): number {
    return this._o.now?.() ?? Date.now();
  }
}

/** The audit fields of a run: its outcome, what it changed, and why. */
function describeReading(reading: HookReading, hook: HookDefinition): Pick<AuditHookEntry, 'outcome' | 'detail' | 'changed' | 'continued'> {
  if (!reading.ok) return { outcome: 'error', detail: reading.problem, ...(hook.onError === 'continue' ? { continued: true } : {}) };
  const r = reading.response;
  const changed = [...(r.updatedInput ? ['input' as const] : []), ...(r.replacement ? ['output' as const] : []), ...(r.context ? ['context' as const] : [])];
  const outcome = r.stop ? 'stop' : (r.decision ?? 'ok');
  const detail = r.stop?.reason ?? r.reason ?? r.systemMessage;
  return { outcome, ...(detail !== undefined ? { detail } : {}), ...(changed.length ? { changed } : {}) };
}

function defaultEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}
