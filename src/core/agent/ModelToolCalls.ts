import { randomUUID } from 'node:crypto';
import type { HookNote, ToolCallOptions, ToolCallOutcome, ToolCallRequest } from '../calls/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool, McpContentBlock } from '../tools/types';
import { overflowText } from './results/readResult';
import type { IToolResultStore } from './results/ToolResultStore';
import { hookNotesText, wrapToolOutput } from './toolOutput';
import type { AgentEvent, ChatMessage, EmbeddedBlob, ModelToolCall, ResourceLinkInfo } from './types';
import { formatByteSize } from '../base/formatByteSize';
import { base64DecodedLength } from '../tools/formatToolResult';

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
        modelCallId: call.id,
        ...(conversationId !== undefined ? { conversationId } : {}),
        decider: this._o.decider,
        ...(this._o.audit ? { audit: this._o.audit } : {}),
        available: (tool) => isEnabled(this._o.tools(), tool),
        signal,
        onEvent: (event) => emit((last = { type: 'tool_call', modelCallId: call.id, ...event })),
      },
    );
    const store = this._o.results;
    const resourceLinks = outcome.tool?.server !== undefined ? linksOf(outcome.content) : [];
    if (last && resourceLinks.length) emit((last = { ...last, resourceLinks }));
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

/**
 * The resources a result offers (a server's answer is not trusted), at most 50: its well-formed
 * `resource_link` blocks, and the binary resources it embeds (text ones already reach the model whole).
 */
function linksOf(content: readonly McpContentBlock[] | undefined): ResourceLinkInfo[] {
  const links: ResourceLinkInfo[] = [];
  for (const block of content ?? []) {
    if (links.length >= 50) break;
    const b = block as Record<string, unknown>;
    if (b.type === 'resource_link' && typeof b.uri === 'string') {
      const text = (key: string) => (typeof b[key] === 'string' && b[key] ? { [key]: b[key] as string } : {});
      links.push({ uri: b.uri, name: typeof b.name === 'string' && b.name ? b.name : b.uri, ...text('title'), ...text('description'), ...text('mimeType') });
    }
    const embedded = b.type === 'resource' ? embeddedBlob(b.resource) : undefined;
    if (embedded) {
      const size = formatByteSize(base64DecodedLength(embedded.blob));
      links.push({ uri: embedded.uri, name: lastPathPart(embedded.uri), description: `embedded in the result, ${size}`, ...(embedded.mimeType ? { mimeType: embedded.mimeType } : {}), embedded });
    }
  }
  return links;
}

function embeddedBlob(resource: unknown): EmbeddedBlob | undefined {
  const r = (typeof resource === 'object' && resource !== null ? resource : {}) as Record<string, unknown>;
  if (typeof r.uri !== 'string' || !r.uri || typeof r.blob !== 'string') return undefined;
  return { uri: r.uri, blob: r.blob, ...(typeof r.mimeType === 'string' && r.mimeType ? { mimeType: r.mimeType } : {}) };
}

/** What a resource known only by its URI is called: the last part of its path when it names something (`q3.pdf`, not `1`), else the URI. */
function lastPathPart(uri: string): string {
  const path = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  return /\p{L}/u.test(last) ? last : uri;
}

function isEnabled(enabled: readonly HarnessTool[], tool: HarnessTool): boolean {
  return enabled.some((t) => t.server === tool.server && t.originalName === tool.originalName);
}
