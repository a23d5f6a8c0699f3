import { randomUUID } from 'node:crypto';
import type { HookNote, ToolCallOptions, ToolCallOutcome, ToolCallRequest } from '../calls/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import { overflowText } from './results/readResult';
import type { IToolResultStore } from './results/ToolResultStore';
import { hookNotesText, wrapToolOutput } from './toolOutput';
import type { AgentEvent, ChatMessage, ModelToolCall } from './types';

/** The harness's pipeline entry (`McpHarness.call`): every model tool call goes through it. */
export type AgentCallTool = (request: ToolCallRequest, options: ToolCallOptions) => Promise<ToolCallOutcome>;

/** The conversation results are kept under when the host names none. */
export const DEFAULT_CONVERSATION = 'default';

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
  /**
   * Where a result over the output cap is kept whole: the model then reads its first part and a
   * handle to page through the rest (`read_result`). Without it, the rest is cut off.
   */
  readonly results?: IToolResultStore;
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
    let last: Extract<AgentEvent, { type: 'tool_call' }> | undefined;
    const outcome = await this._o.call(
      { name: call.name, argumentsText: call.arguments },
      {
        callId,
        ...(conversationId !== undefined ? { conversationId } : {}),
        decider: this._o.decider,
        ...(this._o.audit ? { audit: this._o.audit } : {}),
        available: (tool) => isEnabled(this._o.tools(), tool),
        signal,
        onEvent: (event) => emit((last = { type: 'tool_call', modelCallId: call.id, ...event })),
      },
    );
    const store = this._o.results;
    if (store && outcome.fullText !== undefined && outcome.shownChars !== undefined) {
      const stored = await store.put(conversationId ?? DEFAULT_CONVERSATION, call.name, outcome.fullText);
      // The card learns where the whole result is; the model reads its start and the handle.
      if (last) emit({ ...last, stored });
      const text = overflowText(outcome.fullText.slice(0, outcome.shownChars), stored, outcome.shownChars);
      return { outcome, message: toolMessage(call, text, outcome.isError, outcome.hookNotes) };
    }
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
