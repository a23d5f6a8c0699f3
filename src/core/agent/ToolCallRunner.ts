import type { Result } from '../base/result';
import type { HarnessTool } from '../HarnessTypes';
import type { IAuditSink } from '../permissions/AuditLog';
import type { IToolCallGate } from '../permissions/PermissionGate';
import { scanText } from '../permissions/scanPoisoning';
import type { PermissionDecision, PermissionTool, PoisoningHit } from '../permissions/types';
import { wrapToolOutput } from './toolOutput';
import type { AgentEvent, ChatMessage, ModelToolCall, ToolCallState } from './types';
import { errorMessage } from '../base/errors';

/** The harness's `callTool` as the agent uses it. Expected failures come back as `isError` results. */
export type AgentCallTool = (
  name: string,
  args: Record<string, unknown>,
  options: { signal: AbortSignal; onProgress?(progress: { progress: number; total?: number; message?: string }): void },
) => Promise<{ readonly isError: boolean; readonly text: string }>;

export type ToolResultMessage = Extract<ChatMessage, { role: 'tool' }>;

/** How one call ended: the message for the model, the card's final state and the plain text. */
export interface ToolCallOutcome {
  readonly message: ToolResultMessage;
  readonly state: ToolCallState;
  /** The result, error or denial as a person reads it (not delimited). */
  readonly text: string;
}

export interface ToolCallRunnerOptions {
  readonly callTool: AgentCallTool;
  readonly gate: IToolCallGate;
  readonly audit?: IAuditSink;
  /** Clock for durations (ms). */
  now?(): number;
}

/** The gate's view of a harness tool. */
export function toPermissionTool(tool: HarnessTool): PermissionTool {
  return {
    name: tool.name,
    ...(tool.server !== undefined ? { server: tool.server } : {}),
    originalName: tool.originalName,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/** Parses a model's argument text; an empty text means no arguments. */
export function parseToolArguments(text: string): Result<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${errorMessage(err)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: `a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * Runs one model tool call: resolves it, parses its arguments, asks the gate, calls the tool and
 * reports each state. Never throws: every outcome is a tool result the model can read.
 */
export class ToolCallRunner {
  constructor(private readonly _options: ToolCallRunnerOptions) {}

  async run(call: ModelToolCall, tool: HarnessTool | undefined, signal: AbortSignal, emit: (event: AgentEvent) => void): Promise<ToolCallOutcome> {
    const started = this._now();
    const base = { type: 'tool_call' as const, callId: call.id, toolName: call.name, ...(tool?.server !== undefined ? { server: tool.server } : {}) };
    const finish = (state: ToolCallState, args: unknown, text: string, isError: boolean, extra: Partial<Extract<AgentEvent, { type: 'tool_call' }>> = {}): ToolCallOutcome => {
      emit({ ...base, arguments: args, state, output: text, durationMs: this._now() - started, ...extra });
      return { state, text, message: { role: 'tool', toolCallId: call.id, toolName: call.name, content: wrapToolOutput(call.name, text, isError), isError } };
    };

    if (!tool) {
      return finish('error', call.arguments, `The tool "${call.name}" is not available: it may have been disabled or renamed, or its server stopped. Use one of the tools offered now.`, true);
    }
    const parsed = parseToolArguments(call.arguments);
    if (!parsed.ok) {
      return finish('error', call.arguments, `The arguments for "${call.name}" are ${parsed.error}. Send the arguments as one JSON object.`, true);
    }
    const args = parsed.value;
    if (signal.aborted) return finish('cancelled', args, 'Cancelled: the user stopped the turn before this call ran.', true);

    const decision = await this._decide(call, tool, args, signal, (warnings) => emit({ ...base, arguments: args, state: 'waiting_for_approval', ...(warnings.length ? { warnings } : {}) }));
    if (decision.outcome === 'deny') {
      this._options.audit?.denied({ server: tool.server, tool: tool.name, arguments: args, decider: decision.decider, ...(decision.reason !== undefined ? { reason: decision.reason } : {}) });
      if (signal.aborted) return finish('cancelled', args, 'Cancelled: the user stopped the turn before this call was approved.', true);
      return finish('denied', args, denialText(decision), true);
    }

    if (signal.aborted) return finish('cancelled', args, 'Cancelled: the user stopped the turn before this call ran.', true);
    emit({ ...base, arguments: args, state: 'running' });
    const auditId = this._options.audit?.start({ server: tool.server, tool: tool.name, arguments: args, decider: decision.decider });
    let result: { readonly isError: boolean; readonly text: string };
    try {
      result = await this._options.callTool(tool.name, args, {
        signal,
        onProgress: (progress) => emit({ ...base, arguments: args, state: 'running', progress }),
      });
    } catch (err) {
      result = { isError: true, text: `The call failed: ${errorMessage(err)}` };
    }
    if (signal.aborted) {
      this._options.audit?.end(auditId!, { outcome: 'cancelled', outputChars: result.text.length });
      return finish('cancelled', args, 'Cancelled: the user stopped this call.', true);
    }
    this._options.audit?.end(auditId!, { outcome: result.isError ? 'error' : 'ok', outputChars: result.text.length });
    const warnings: PoisoningHit[] = scanText(result.text, 'result');
    return finish(result.isError ? 'error' : 'done', args, result.text, result.isError, warnings.length ? { warnings } : {});
  }

  private async _decide(call: ModelToolCall, tool: HarnessTool, args: Record<string, unknown>, signal: AbortSignal, onAsk: (warnings: readonly PoisoningHit[]) => void): Promise<PermissionDecision> {
    try {
      return await this._options.gate.check({ callId: call.id, tool: toPermissionTool(tool), arguments: args }, { signal, onAsk: (request) => onAsk(request.warnings) });
    } catch (err) {
      // A gate that fails must not let the call through.
      return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: `the permission check failed: ${errorMessage(err)}` };
    }
  }

  private _now(): number {
    return this._options.now?.() ?? performance.now();
  }
}

function denialText(decision: Extract<PermissionDecision, { outcome: 'deny' }>): string {
  if (decision.decider.by === 'rule') return `Not run: ${decision.reason ?? `denied by the rule "${decision.decider.rule}"`}.`;
  return decision.reason ? `The user denied this call. Reason: ${decision.reason}` : 'The user denied this call.';
}
