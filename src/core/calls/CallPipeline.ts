import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors';
import type { Result } from '../base/result';
import { McpCallError } from '../mcp/McpCallError';
import type { McpCallOptions } from '../mcp/McpSession';
import { scanText } from '../permissions/scanPoisoning';
import type { HookDecisionHint, ICallDecider, PermissionDecider, PermissionDecision, PoisoningHit } from '../permissions/types';
import { formatToolResult } from '../tools/formatToolResult';
import type { ResolvedTool, ToolRegistry } from '../tools/ToolRegistry';
import { MCP_TOOL_NAME_PREFIX, sanitizeToolNamePart } from '../tools/McpToolNaming';
import type { HarnessTool } from '../tools/types';
import { CallHookRecord, hookContext, postToolUseStep, preToolUseStep } from './callHooks';
import { outputCapFor, type OutputCapSettings } from './outputCap';
import { callTimeouts, CALLER_DECIDES, describeDenial, describeUnansweredAsk, type CallTimeoutDefaults } from './callPolicy';
import { auditBase, changedText, dedupeWarnings, failure, parseArguments, pick } from './callSteps';
import type { HarnessCallResult, IToolCallHooks, ToolCallEvent, ToolCallOptions, ToolCallOutcome, ToolCallRequest, ToolCallState } from './types';

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

type Emit = (patch: Partial<ToolCallEvent> & Pick<ToolCallEvent, 'state'>) => void;
type End = (state: ToolCallOutcome['state'], result: HarnessCallResult, extra?: Partial<ToolCallOutcome>) => ToolCallOutcome;

/** A call that was allowed: what the rest of the pipeline needs of it. */
interface DecidedCall {
  readonly callId: string;
  readonly tool: HarnessTool;
  readonly input: Record<string, unknown>;
  readonly options: ToolCallOptions;
  readonly signal: AbortSignal;
  readonly decider: PermissionDecider;
  readonly waitMs: number | undefined;
  readonly audit: ReturnType<typeof auditBase> & { readonly waitedMs?: number };
  readonly emit: Emit;
  readonly end: End;
  readonly hooked: CallHookRecord;
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
    const callId = options.callId ?? randomUUID();
    let args: unknown = request.arguments;
    let tool: HarnessTool | undefined;
    // Stryker disable next-line all: only a seed; every emit sets each of these fields again
    let last: ToolCallEvent = { callId, toolName: request.name, arguments: args ?? {}, state: 'running' };
    const hooked = new CallHookRecord(options.audit);
    const emit: Emit = (patch) => {
      // A question belongs to its waiting state only, progress to its running state.
      const { permission: _asked, progress: _progress, ...rest } = last;
      // Warnings add up: the definition's, then the result's.
      const warnings = dedupeWarnings([...(last.warnings ?? []), ...(patch.warnings ?? [])]);
      last = { ...rest, ...(tool ? { tool } : {}), arguments: args ?? {}, ...patch, ...(warnings.length ? { warnings } : {}) };
      try {
        // Stryker disable next-line OptionalChaining: without a listener the call throws, and the catch below swallows it
        options.onEvent?.(last);
      } catch {
        // A host's listener must not break the call.
      }
    };
    const end: End = (state, result, extra = {}) => {
      emit({ state, output: result.text, ...pick(extra), ...(extra.warnings?.length ? { warnings: extra.warnings } : {}) });
      return { ...result, callId, state, ...(tool ? { tool } : {}), ...extra, ...hooked.fields(), warnings: last.warnings ?? [] };
    };

    const parsed = parseArguments(request);
    if (!parsed.ok) return end('error', failure('invalid_arguments', `The arguments for "${request.name}" are ${parsed.error}. Send the arguments as one JSON object.`));
    args = parsed.value;
    const resolved = await this._lookUp(request.name, options);
    if (!resolved.ok) {
      options.audit?.denied({ ...auditBase(request.name, undefined, args, options.client), decider: CALLER_DECIDES, reason: 'not offered' });
      return end('error', resolved.error);
    }
    tool = resolved.value.tool;
    let input = args as Record<string, unknown>;
    const invalid = this._o.registry.validateArguments(tool, input);
    if (invalid) return end('error', failure('invalid_arguments', invalid));
    const signal = options.signal ?? new AbortController().signal;
    if (signal.aborted) return end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'));

    let hint: HookDecisionHint | undefined;
    if (this._o.hooks) {
      const pre = await preToolUseStep(this._o.hooks, hookContext(callId, tool, input, signal, options), this._o.registry, hooked, options);
      if (signal.aborted) return end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'));
      if ('end' in pre) return end(pre.end.state, pre.end.result, pre.end.decider ? { decider: pre.end.decider } : {});
      args = input = pre.input;
      hint = pre.hint;
    }
    const decided = await this._decide(callId, tool, input, options.decider ?? CALLER, signal, emit, hint);
    const decision = decided.decision;
    const waitMs = decided.waitMs;
    const audit = { ...auditBase(tool.name, tool, input, options.client), ...(waitMs !== undefined ? { waitedMs: Math.round(waitMs) } : {}) };
    if (decision.outcome === 'deny') {
      options.audit?.denied({ ...audit, decider: decision.decider, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
      if (signal.aborted) return end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it was approved.'), { decider: decision.decider, waitMs });
      return end('denied', failure('denied', describeDenial(decision)), { decider: decision.decider, waitMs });
    }
    if (signal.aborted) return end('cancelled', failure('cancelled', 'Cancelled: the call was stopped before it ran.'), { decider: decision.decider, waitMs });

    return this._run({ callId, tool, input, options, signal, decider: decision.decider, waitMs, audit, emit, end, hooked });
  }

  /** The decided call: exactly the tool decided on (or nothing), audited, then its result through the PostToolUse hooks and the scan. */
  private async _run(c: DecidedCall): Promise<ToolCallOutcome> {
    const { tool, input, options, signal, decider, waitMs, audit, emit, end } = c;
    // Exactly what was decided on, or nothing: the name is never looked up again.
    const target = this._o.registry.resolveIdentity(tool);
    if (!target || (options.available && !options.available(target.tool))) {
      options.audit?.denied({ ...audit, decider, reason: 'the tool changed since it was approved' });
      return end('error', failure('tool_changed', changedText(tool)), { decider, waitMs });
    }
    emit({ state: 'running', decider, ...(waitMs !== undefined ? { waitMs } : {}) });
    const auditId = options.audit?.start({ ...audit, decider });
    const started = this._now();
    let result = await this._invoke(target, input, options, signal, (progress) => emit({ state: 'running', progress }));
    const runMs = this._now() - started;
    const cancelled = signal.aborted;
    const outcome = cancelled ? 'cancelled' : result.isError ? 'error' : 'ok';
    if (auditId !== undefined) options.audit?.end(auditId, { outcome, outputChars: result.text.length, ...(result.isError ? { error: (this._o.mask?.(result.text) ?? result.text).slice(0, 500) } : {}) });
    if (cancelled) return end('cancelled', { ...result, isError: true, errorKind: 'cancelled', text: 'Cancelled: the call was stopped while it ran.' }, { decider, waitMs, runMs });
    if (this._o.hooks && (!result.isError || result.errorKind === 'tool_error')) {
      result = await postToolUseStep(this._o.hooks, { ...hookContext(c.callId, tool, input, signal, options), result }, c.hooked, outputCapFor(tool, this._o.defaults()));
      if (signal.aborted) return end('cancelled', failure('cancelled', 'Cancelled: the call was stopped while its hooks ran.'), { decider, waitMs, runMs });
    }
    const warnings: PoisoningHit[] = scanText(result.text, 'result');
    return end(result.isError ? 'error' : 'done', result, { decider, waitMs, runMs, warnings });
  }

  /**
   * The tool `name` stands for now, if this caller may reach it. A name of a server that is not
   * running waits for a start under way (within the call's timeout) and is looked up once more;
   * then it is answered as unavailable, naming the server, its state and why.
   */
  private async _lookUp(name: string, options: ToolCallOptions): Promise<Result<ResolvedTool, HarnessCallResult>> {
    const reachable = (resolved: ResolvedTool | undefined) => resolved !== undefined && (!options.available || options.available(resolved.tool));
    let resolved = this._o.registry.resolve(name);
    if (reachable(resolved)) return { ok: true, value: resolved! };
    const server = resolved ? undefined : this._serverOfMissingName(name);
    // Stryker disable next-line ConditionalExpression: no server is named undefined, so either way there is no connection
    const connection = server !== undefined ? this._o.connection(server) : undefined;
    // Stryker disable next-line ConditionalExpression,StringLiteral: waiting for a running server returns at once and the look-up repeats the same answer
    if (connection && connection.state.kind !== 'running') {
      await settledWithin(connection, callTimeouts(connection.definition, this._o.defaults(), options.timeoutMs).timeoutMs, options.signal);
      resolved = this._o.registry.resolve(name);
      if (reachable(resolved)) return { ok: true, value: resolved! };
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
    callId: string,
    tool: HarnessTool,
    args: Record<string, unknown>,
    decider: ICallDecider,
    signal: AbortSignal,
    emit: Emit,
    hook: HookDecisionHint | undefined,
  ): Promise<{ decision: PermissionDecision; waitMs?: number }> {
    let askedAt: number | undefined;
    let decision: PermissionDecision;
    try {
      decision = await decider.decide(
        { callId, tool, arguments: args, ...(hook ? { hook } : {}) },
        {
          signal,
          onAsk: (permission) => {
            askedAt = this._now();
            emit({ state: 'waiting_for_approval', permission, ...(permission.warnings.length ? { warnings: permission.warnings } : {}) });
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
    signal: AbortSignal,
    onProgress: (progress: { progress: number; total?: number; message?: string }) => void,
  ): Promise<HarnessCallResult> {
    const defaults = this._o.defaults();
    if (target.kind === 'builtin') {
      try {
        const result = await target.builtin.invoke(args, { signal });
        return result.isError ? { ...result, errorKind: 'tool_error' } : result;
      } catch (err) {
        return failure('tool_error', `${target.tool.name} failed: ${errorMessage(err)}`);
      }
    }
    const server = target.tool.server!;
    const connection = this._o.connection(server);
    if (!connection) return failure('unavailable', `server "${server}" is no longer configured`);
    try {
      const raw = await connection.callTool(target.tool.originalName, args, { signal, onProgress, ...callTimeouts(connection.definition, defaults, options.timeoutMs) });
      const result = formatToolResult(raw, { maxOutputChars: outputCapFor(target.tool, defaults) });
      return result.isError ? { ...result, errorKind: 'tool_error' } : result;
    } catch (err) {
      // An unavailable server is already named in its message.
      if (err instanceof McpCallError) return failure(err.kind, err.kind === 'unavailable' ? err.message : `${server}: ${err.message}`);
      return failure('connection_closed', `${server}: the call failed: ${errorMessage(err)}`);
    }
  }

  private _now(): number {
    return this._o.now?.() ?? performance.now();
  }
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
const CALLER: ICallDecider = {
  decide: async (call) => (call.hook?.decision === 'ask' ? { outcome: 'deny', decider: { by: 'hook', hook: call.hook.hook }, reason: describeUnansweredAsk(call.hook) } : { outcome: 'allow', decider: CALLER_DECIDES }),
};

export type { ToolCallState };
