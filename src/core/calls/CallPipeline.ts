import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import type { Result } from '../base/result';
import { McpCallError } from '../mcp/McpCallError';
import type { McpCallOptions } from '../mcp/McpSession';
import type { McpTaskCallContext } from '../tasks/taskHost';
import { scanText } from '../permissions/scanPoisoning';
import type { HookDecisionHint, ICallDecider, PermissionDecider, PermissionDecision, PoisoningHit } from '../permissions/types';
import { formatToolResult } from '../tools/formatToolResult';
import type { ResolvedTool, ToolRegistry } from '../tools/ToolRegistry';
import { MCP_TOOL_NAME_PREFIX, sanitizeToolNamePart } from '../tools/McpToolNaming';
import type { HarnessTool } from '../tools/types';
import { hookContext, postToolUseStep, preToolUseStep } from './callHooks';
import { CallReport } from './CallReport';
import { outputCapFor, type OutputCapSettings } from './outputCap';
import { callTimeouts, CALLER_DECIDES, describeDenial, describeUnansweredAsk, type CallTimeoutDefaults } from './callPolicy';
import { auditEntry, CallSignal, changedText, failure, parseArguments } from './callSteps';
import type { HarnessCallResult, IToolCallHooks, ToolCallOptions, ToolCallOutcome, ToolCallRequest, ToolCallState } from './types';

/** What the pipeline needs of a server's connection. */
export interface ICallConnection {
  readonly definition: { readonly toolTimeoutMs?: number };
  /** Where the connection stands: only a running server answers calls at once. */
  readonly state: { readonly kind: string };
  /** Resolves once the server is not starting or reconnecting. */
  whenSettled(): Promise<void>;
  callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult>;
  describeUnavailable(): string;
}

export interface CallPipelineOptions {
  readonly registry: ToolRegistry;
  /** The connection of a configured server, by its configured name. */
  connection(server: string): ICallConnection | undefined;
  /** Every configured server's name. */
  servers(): readonly string[];
  /** Current defaults (settings can change between calls). */
  defaults(): CallTimeoutDefaults & OutputCapSettings;
  /** Clock for durations (ms). */
  now?(): number;
  /** Masks what a failure may quote of a server definition's secrets, for the audit log. */
  mask?(text: string): string;
  /** PreToolUse and PostToolUse hooks, run for every call. */
  readonly hooks?: IToolCallHooks;
}

/** A call that was allowed: what the rest of the pipeline needs of it. */
interface DecidedCall {
  readonly report: CallReport;
  readonly tool: HarnessTool;
  readonly input: Record<string, unknown>;
  readonly options: ToolCallOptions;
  readonly stop: CallSignal;
  readonly decider: PermissionDecider;
  readonly waitMs: number | undefined;
}

/**
 * The one way a tool call is made, whoever asks (the chat's model, `/call`, `mcp-harness call`, a
 * gateway client, a library host). The steps, in this order and only here:
 * look up once -> validate the arguments (a failure goes straight back, nothing is asked) ->
 * PreToolUse hooks (deny, allow, ask, rewrite the arguments) -> decide (the permission gate,
 * serve's exposure policy, or the caller itself) -> audit -> call exactly the tool that was
 * decided on, under one timeout policy -> format -> PostToolUse hooks (a note, or another
 * result) -> scan.
 * The decision is bound to the tool's identity (server, own name, pin): if that tool is not
 * offered exactly so when the call is about to go out, nothing is sent and the caller is told.
 */
export class CallPipeline {
  constructor(private readonly _o: CallPipelineOptions) {}

  /** Runs one call. Never rejects for expected failures: they come back as `isError` outcomes. */
  async callTool(request: ToolCallRequest, options: ToolCallOptions = {}): Promise<ToolCallOutcome> {
    const report = new CallReport(options.callId ?? randomUUID(), request.name, request.arguments, options);
    const parsed = parseArguments(request);
    if (!parsed.ok) return report.end('error', failure('invalid_arguments', `The arguments for "${request.name}" are ${parsed.error}. Send the arguments as one JSON object.`));
    let input = parsed.value;
    report.args = input;
    // Nearly every call names a tool offered now: found at once, without waiting on a promise.
    const resolved = this._offered(request.name, options) ?? (await this._lookUp(request.name, options));
    if (!resolved.ok) {
      options.audit?.denied(auditEntry(request.name, undefined, input, options.client, { decider: CALLER_DECIDES, reason: 'not offered' }));
      return report.end('error', resolved.error);
    }
    const tool = (report.tool = resolved.value.tool);
    const invalid = this._o.registry.validateArguments(tool, input);
    if (invalid) return report.end('error', failure('invalid_arguments', invalid));
    const stop = new CallSignal(options.signal);
    if (stop.aborted) return report.end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'));

    let hint: HookDecisionHint | undefined;
    const preHooks = this._hooksFor('PreToolUse', tool);
    if (preHooks) {
      const pre = await preToolUseStep(preHooks, hookContext(report.callId, tool, input, stop.signal, options), this._o.registry, report.hooked, options);
      if (stop.aborted) return report.end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'));
      if ('end' in pre) return report.end(pre.end.state, pre.end.result, pre.end.decider ? { decider: pre.end.decider } : {});
      report.args = input = pre.input;
      hint = pre.hint;
    }
    const decider = options.decider ?? CALLER;
    // The caller's own decision needs no wait and no question: it is made in place.
    const decided = decider === CALLER ? { decision: callerDecision(hint), waitMs: undefined } : await this._decide(report, tool, input, decider, stop, hint);
    const decision = decided.decision;
    const waitMs = decided.waitMs;
    if (decision.outcome === 'deny') {
      options.audit?.denied(auditEntry(tool.name, tool, input, options.client, { ...decision, waitMs }));
      if (stop.aborted) return report.end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it was approved.'), { decider: decision.decider, waitMs });
      return report.end('denied', failure('denied', describeDenial(decision)), { decider: decision.decider, waitMs });
    }
    if (stop.aborted) return report.end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'), { decider: decision.decider, waitMs });

    return this._run({ report, tool, input, options, stop, decider: decision.decider, waitMs });
  }

  /** The decided call: exactly the tool decided on (or nothing), audited, then its result through the PostToolUse hooks and the scan. */
  private async _run(c: DecidedCall): Promise<ToolCallOutcome> {
    const { report, tool, input, options, stop, decider, waitMs } = c;
    // Exactly what was decided on, or nothing: the name is never looked up again.
    const target = this._o.registry.resolveIdentity(tool);
    if (!target || (options.available && !options.available(target.tool))) {
      options.audit?.denied(auditEntry(tool.name, tool, input, options.client, { decider, waitMs, reason: 'the tool changed since it was approved' }));
      return report.end('error', failure('tool_changed', changedText(tool)), { decider, waitMs });
    }
    report.emit({ state: 'running', decider, ...(waitMs !== undefined ? { waitMs } : {}) });
    // Audit entries are made only for an audit log (an argument after `?.` is not evaluated without one).
    const auditId = options.audit?.start(auditEntry(tool.name, tool, input, options.client, { decider, waitMs }));
    const started = this._now();
    let result = await this._invoke(target, input, options, stop, report.progress, taskContext(c));
    const runMs = this._now() - started;
    const cancelled = stop.aborted;
    const outcome = cancelled ? 'cancelled' : result.isError ? 'error' : 'ok';
    if (auditId !== undefined) options.audit?.end(auditId, { outcome, outputChars: result.text.length, ...(result.isError ? { error: (this._o.mask?.(result.text) ?? result.text).slice(0, 500) } : {}) });
    if (cancelled) return report.end('cancelled', { ...result, isError: true, errorKind: 'cancelled', text: 'Cancelled: the call was stopped while it ran.' }, { decider, waitMs, runMs });
    const postHooks = !result.isError || result.errorKind === 'tool_error' ? this._hooksFor('PostToolUse', tool) : undefined;
    if (postHooks) {
      result = await postToolUseStep(postHooks, { ...hookContext(report.callId, tool, input, stop.signal, options), result }, report.hooked, outputCapFor(tool, this._o.defaults()));
      if (stop.aborted) return report.end('cancelled', failure('cancelled', 'Cancelled: the call was stopped while its hooks ran.'), { decider, waitMs, runMs });
    }
    const warnings: PoisoningHit[] = scanText(result.text, 'result');
    return report.end(result.isError ? 'error' : 'done', result, { decider, waitMs, runMs, warnings });
  }

  /** The tool `name` stands for now, when this caller may reach it. */
  private _offered(name: string, options: ToolCallOptions): Result<ResolvedTool, HarnessCallResult> | undefined {
    const resolved = this._o.registry.resolve(name);
    return resolved && (!options.available || options.available(resolved.tool)) ? { ok: true, value: resolved } : undefined;
  }

  /**
   * The tool `name` stands for, when it is not offered now (see {@link _offered}). A name of a server that is not
   * running waits for a start under way (within the call's timeout) and is looked up once more;
   * then it is answered as unavailable, naming the server, its state and why.
   */
  private async _lookUp(name: string, options: ToolCallOptions): Promise<Result<ResolvedTool, HarnessCallResult>> {
    const server = this._o.registry.resolve(name) ? undefined : this._serverOfMissingName(name);
    // Stryker disable next-line ConditionalExpression: no server is named undefined, so either way there is no connection
    const connection = server !== undefined ? this._o.connection(server) : undefined;
    // Stryker disable next-line ConditionalExpression,StringLiteral: waiting for a running server returns at once and the look-up repeats the same answer
    if (connection && connection.state.kind !== 'running') {
      await settledWithin(connection, callTimeouts(connection.definition, this._o.defaults(), options.timeoutMs).timeoutMs, options.signal);
      const offered = this._offered(name, options);
      if (offered) return offered;
      // Stryker disable next-line ConditionalExpression,StringLiteral: a server that came up without the tool only reaches this line when the name is not its own any more
      if (connection.state.kind !== 'running') return { ok: false, error: failure('unavailable', connection.describeUnavailable()) };
    }
    return { ok: false, error: failure('unknown_tool', `unknown tool "${name}": it is not offered now (it may have been disabled or renamed, or its server stopped). Use one of the tools offered now.`) };
  }

  /**
   * The configured server a call to an unlisted name was meant for: the one the name was given
   * to when it last ran, else one that is not running whose `mcp__<server>__` prefix the name
   * carries (the longest). Never splits the name apart.
   */
  private _serverOfMissingName(name: string): string | undefined {
    const owner = this._o.registry.serverOfName(name);
    if (owner !== undefined) return owner;
    return this._o
      .servers()
      .filter((s) => name.startsWith(`${MCP_TOOL_NAME_PREFIX}${sanitizeToolNamePart(s)}__`) && this._o.connection(s)?.state.kind !== 'running')
      .sort((a, b) => b.length - a.length)[0];
  }

  private async _decide(
    report: CallReport,
    tool: HarnessTool,
    args: Record<string, unknown>,
    decider: ICallDecider,
    stop: CallSignal,
    hook: HookDecisionHint | undefined,
  ): Promise<{ decision: PermissionDecision; waitMs?: number }> {
    let askedAt: number | undefined;
    let decision: PermissionDecision;
    try {
      decision = await decider.decide(
        { callId: report.callId, tool, arguments: args, ...(hook ? { hook } : {}) },
        {
          // Made only if the decider looks at it: the caller's own decision never does.
          get signal() {
            return stop.signal;
          },
          onAsk: (permission) => {
            askedAt = this._now();
            report.emit({ state: 'waiting_for_approval', permission, ...(permission.warnings.length ? { warnings: permission.warnings } : {}) });
          },
        },
      );
    } catch (err) {
      // A decider that fails must not let the call through.
      decision = { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: `the permission check failed: ${errorMessage(err)}` };
    }
    return { decision, ...(askedAt !== undefined ? { waitMs: this._now() - askedAt } : {}) };
  }

  private async _invoke(
    target: ResolvedTool,
    args: Record<string, unknown>,
    options: ToolCallOptions,
    stop: CallSignal,
    onProgress: (progress: { progress: number; total?: number; message?: string }) => void,
    task: McpTaskCallContext,
  ): Promise<HarnessCallResult> {
    const defaults = this._o.defaults();
    if (target.kind === 'builtin') {
      try {
        const result = await target.builtin.invoke(args, { signal: stop.signal });
        return result.isError ? { ...result, errorKind: 'tool_error' } : result;
      } catch (err) {
        return failure('tool_error', `${target.tool.name} failed: ${errorMessage(err)}`);
      }
    }
    const server = target.tool.server!;
    const connection = this._o.connection(server);
    if (!connection) return failure('unavailable', `server "${server}" is no longer configured`);
    try {
      const { timeoutMs, maxTotalTimeoutMs } = callTimeouts(connection.definition, defaults, options.timeoutMs);
      const raw = await connection.callTool(target.tool.originalName, args, { signal: stop.given, onProgress, timeoutMs, maxTotalTimeoutMs, task });
      const result = formatToolResult(raw, { maxOutputChars: outputCapFor(target.tool, defaults) });
      return result.isError ? { ...result, errorKind: 'tool_error' } : result;
    } catch (err) {
      // An unavailable server is already named in its message.
      if (err instanceof McpCallError) return failure(err.kind, err.kind === 'unavailable' ? err.message : `${server}: ${err.message}`);
      return failure('connection_closed', `${server}: the call failed: ${errorMessage(err)}`);
    }
  }

  /** The hooks, when any of `event` matches `tool` now (most calls have none: the step is left out, with its waits). */
  private _hooksFor(event: 'PreToolUse' | 'PostToolUse', tool: HarnessTool): IToolCallHooks | undefined {
    const hooks = this._o.hooks;
    return hooks && hooks.matches?.(event, tool) !== false ? hooks : undefined;
  }

  private _now(): number {
    return this._o.now?.() ?? performance.now();
  }
}

/** What a call that becomes a task keeps (where it came from: its result may arrive after a restart), and its card's task line. */
function taskContext(c: DecidedCall): McpTaskCallContext {
  const { options } = c;
  const origin = { callId: c.report.callId, ...(options.conversationId !== undefined ? { conversationId: options.conversationId } : {}), ...(options.modelCallId !== undefined ? { modelCallId: options.modelCallId } : {}) };
  return { origin, ...(options.detachTask ? { detach: true } : {}), onTask: (task) => c.report.emit({ state: 'running', task }) };
}

/** Waits until `connection` is settled, `ms` pass or `signal` aborts, whichever comes first. */
async function settledWithin(connection: ICallConnection, ms: number, signal: AbortSignal | undefined): Promise<void> {
  const bound = new AbortController();
  const stop = () => bound.abort();
  // Stryker disable next-line ObjectLiteral,BooleanLiteral: aborting twice changes nothing
  signal?.addEventListener('abort', stop, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      connection.whenSettled(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: resolving twice changes nothing
        bound.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
    // Stryker disable next-line BlockStatement,StringLiteral: what is left behind (a timer, a listener) only costs memory until it fires
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * The default decider: whoever made the call decided (the CLI's `call`, a library host). A hook
 * that asks for a person is answered no: this caller has no one to ask.
 */
const CALLER: ICallDecider = { decide: async (call) => callerDecision(call.hook) };

function callerDecision(hook: HookDecisionHint | undefined): PermissionDecision {
  return hook?.decision === 'ask' ? { outcome: 'deny', decider: { by: 'hook', hook: hook.hook }, reason: describeUnansweredAsk(hook) } : { outcome: 'allow', decider: CALLER_DECIDES };
}

export type { ToolCallState };
