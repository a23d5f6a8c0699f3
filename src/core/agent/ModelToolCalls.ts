import { randomUUID } from 'node:crypto';
import type { HookNote, ToolCallOptions, ToolCallOutcome, ToolCallRequest } from '../calls/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import { hookNotesText, wrapToolOutput } from './toolOutput';
import type { AgentEvent, ChatMessage, ModelToolCall } from './types';

/** The harness's pipeline entry (`McpHarness.call`): every model tool call goes through it. */
export type AgentCallTool = (request: ToolCallRequest, options: ToolCallOptions) => Promise<ToolCallOutcome>;

export type ToolResultMessage = Extract<ChatMessage, { role: 'tool' }>;

export interface ModelToolCallsOptions {
  readonly call: AgentCallTool;
  /** The chat's permission gate. */
  readonly decider: ICallDecider;
  readonly audit?: IAuditSink;
  /** The tools the user left enabled, read at each call: others do not exist for the model. */
  tools(): readonly HarnessTool[];
  /** The conversation the calls belong to (hooks get it as `session_id`). */
  conversationId?(): string | undefined;
}

/**
 * Runs a model's (or a person's `/call`) tool call through the pipeline and turns the outcome into
 * the message the model reads. Each call gets an id of its own, so two calls a model gave the
 * same id are two cards, answered each on its own.
 */
export class ModelToolCalls {
  constructor(private readonly _o: ModelToolCallsOptions) {}

  async run(call: ModelToolCall, signal: AbortSignal, emit: (event: AgentEvent) => void): Promise<{ outcome: ToolCallOutcome; message: ToolResultMessage }> {
    const callId = randomUUID();
    const conversationId = this._o.conversationId?.();
    const outcome = await this._o.call(
      { name: call.name, argumentsText: call.arguments },
      {
        callId,
        ...(conversationId !== undefined ? { conversationId } : {}),
        decider: this._o.decider,
        ...(this._o.audit ? { audit: this._o.audit } : {}),
        available: (tool) => isEnabled(this._o.tools(), tool),
        signal,
        onEvent: (event) => emit({ type: 'tool_call', modelCallId: call.id, ...event }),
      },
    );
    return { outcome, message: toolMessage(call, outcome.text, outcome.isError, outcome.hookNotes) };
  }
}

/** The message that answers a model's call: the tool's output as data, then what hooks added (theirs is not the tool's). */
export function toolMessage(call: ModelToolCall, text: string, isError: boolean, notes: readonly HookNote[] = []): ToolResultMessage {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content: wrapToolOutput(call.name, text, isError) + hookNotesText(notes), isError };
}

function isEnabled(enabled: readonly HarnessTool[], tool: HarnessTool): boolean {
  return enabled.some((t) => t.server === tool.server && t.originalName === tool.originalName);
}
