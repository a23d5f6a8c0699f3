import { randomUUID } from 'node:crypto';
import type { Result } from '../base/result';
import type { ToolCallOutcome } from '../calls/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import { DEFAULT_CONVERSATION, ModelToolCalls, toolMessage, type AgentCallTool, type ToolResultMessage } from './ModelToolCalls';
import { estimateContext } from './contextEstimate';
import { parseResultRead, READ_RESULT_NAME, READ_RESULT_SPEC, readResultText } from './results/readResult';
import { MemoryToolResultStore, type IToolResultStore } from './results/ToolResultStore';
import { TOOL_OUTPUT_NOTE } from './toolOutput';
import { SEARCH_TOOLS_NAME, SEARCH_TOOLS_SPEC, ToolSearchCache, exceedsToolBudget, formatSearchResult, toModelToolSpec, type ToolSearchBudget } from '../tools/search';
import { ModelProviderError, type AgentEvent, type ChatMessage, type IModelProvider, type ModelProviderErrorKind, type ModelImage, type ModelToolCall, type ModelToolSpec } from './types';
import { errorMessage } from '../base/errors';
import { scanText } from '../permissions/scanPoisoning';

export const DEFAULT_MAX_STEPS = 25;

export const DEFAULT_SYSTEM_PROMPT =
  'You are an assistant in a code editor. You can call the tools offered to you; the user approves each call. Use tools when they help, and answer briefly.';

export interface McpAgentOptions {
  /** The enabled tools, read at every step (what is offered) and at every call (what may run). */
  tools(): readonly HarnessTool[];
  /** The harness's pipeline (`McpHarness.call`): look-up, validation, decision, audit, timeout, output cap. */
  readonly call: AgentCallTool;
  readonly provider: IModelProvider;
  /** The permission gate every call is decided by. */
  readonly gate: ICallDecider;
  readonly audit?: IAuditSink;
  /** Model steps per turn before the loop stops and says so (default 25). */
  readonly maxSteps?: number;
  /** Replaces the default system prompt; the note about tool output is always added. */
  readonly systemPrompt?: string;
  /** Model id passed to the provider. */
  readonly model?: string;
  readonly maxOutputTokens?: number;
  /** When to offer `search_tools` instead of every schema; `false` never does. */
  readonly toolSearch?: ToolSearchBudget | false;
  /** The conversation the turn belongs to (hooks get it as `session_id`; its results are kept under it). */
  readonly conversationId?: string;
  /**
   * Where results over the output cap are kept whole for `read_result` (default: in memory, for
   * this agent's life). A chat passes one that lives as long as the conversation.
   */
  readonly results?: IToolResultStore;
}

export interface AgentTurnOptions {
  readonly signal: AbortSignal;
  /** Images that go with the user's text (attached resources the model takes as images). */
  readonly images?: readonly ModelImage[];
  onEvent?(event: AgentEvent): void;
  /** The messages this turn added so far, each time it adds some (a host saves them mid-turn). */
  onMessages?(added: readonly ChatMessage[]): void;
}

export type AgentEndReason = Extract<AgentEvent, { type: 'end' }>['reason'];

export interface AgentTurnResult {
  /** The messages this turn added (the user's first), to keep in the conversation. */
  readonly messages: ChatMessage[];
  readonly reason: AgentEndReason;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
}

/**
 * The agent loop: sends the conversation and the enabled tools to a model, runs the tool calls of
 * each step concurrently (each through the permission gate, then `callTool`), gives results back,
 * and repeats until the model answers without tools or the step limit is reached.
 */
export class McpAgent {
  private readonly _calls: ModelToolCalls;
  private readonly _search = new ToolSearchCache();
  private readonly _results: IToolResultStore;

  constructor(private readonly _options: McpAgentOptions) {
    this._results = _options.results ?? new MemoryToolResultStore();
    this._calls = new ModelToolCalls({ call: _options.call, decider: _options.gate, audit: _options.audit, tools: () => _options.tools(), conversationId: () => this._conversation, results: this._results });
  }

  private get _conversation(): string {
    return this._options.conversationId ?? DEFAULT_CONVERSATION;
  }

  /**
   * Runs one user turn; without `userText` the model goes on from `history` as it is (a tool result
   * that arrived later). Never throws for provider or tool failures: they end the turn as events.
   */
  async runTurn(history: readonly ChatMessage[], userText: string | undefined, options: AgentTurnOptions): Promise<AgentTurnResult> {
    const { signal } = options;
    const emit = (event: AgentEvent): void => {
      try {
        options.onEvent?.(event);
      } catch {
        // A host's listener must not break the turn.
      }
    };
    const added: ChatMessage[] = userText === undefined ? [] : [{ role: 'user', content: userText, ...(options.images?.length ? { images: options.images } : {}) }];
    const context: ChatMessage[] = [...history, ...added];
    options.onMessages?.(added);
    const usage = { inputTokens: 0, outputTokens: 0 };
    const found = new Set<string>();
    const maxSteps = Math.max(1, this._options.maxSteps ?? DEFAULT_MAX_STEPS);
    const end = (reason: AgentEndReason): AgentTurnResult => {
      emit({ type: 'end', reason });
      return { messages: added, reason, usage };
    };
    const push = (...messages: ChatMessage[]) => {
      added.push(...messages);
      context.push(...messages);
      options.onMessages?.(added);
    };

    for (let step = 1; ; step++) {
      if (signal.aborted) return end('stopped');
      const enabled = this._options.tools();
      const plan = this._plan(enabled, context, found);
      let text = '';
      const calls: ModelToolCall[] = [];
      try {
        const request = { system: plan.system, messages: [...context], tools: plan.tools, ...(this._options.model ? { model: this._options.model } : {}), ...(this._options.maxOutputTokens ? { maxOutputTokens: this._options.maxOutputTokens } : {}) };
        emit({ type: 'request', estimate: estimateContext(request) });
        for await (const event of this._options.provider.stream(request, signal)) {
          if (event.type === 'text') {
            text += event.delta;
            emit(event);
          } else if (event.type === 'tool_call') calls.push(event.call);
          else if (event.type === 'usage') {
            usage.inputTokens += event.inputTokens ?? 0;
            usage.outputTokens += event.outputTokens ?? 0;
            emit(event);
          }
        }
      } catch (err) {
        if (text) push({ role: 'assistant', content: text });
        if (signal.aborted) return end('stopped');
        emit({ type: 'error', message: describeError(err), kind: errorKind(err) });
        return end('error');
      }
      if (signal.aborted) {
        if (text) push({ role: 'assistant', content: text });
        return end('stopped');
      }
      push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      if (calls.length === 0) return end('done');

      if (step >= maxSteps) {
        push(...calls.map((call) => this._notRun(call, maxSteps, emit)));
        emit({ type: 'error', kind: 'step_limit', message: `Stopped after ${maxSteps} model steps, the step limit for one turn. Send another message to let the model continue.` });
        return end('step_limit');
      }
      const results = await Promise.all(calls.map((call) => this._runCall(call, plan, found, signal, emit)));
      push(...results.map((r) => r.message));
      // A stop during the calls is seen at the top of the next step; a hook's stop ends the turn here.
      const stop = hookStop(results.map((r) => r.outcome), emit);
      if (stop) return end('stopped');
    }
  }

  /** What the model is offered this step: every tool, or `search_tools` plus the tools used or found. */
  private _plan(enabled: readonly HarnessTool[], context: readonly ChatMessage[], found: ReadonlySet<string>) {
    const byName = new Map(enabled.map((t) => [t.name, t]));
    const budget = this._options.toolSearch;
    const searching = budget !== false && exceedsToolBudget(enabled, budget);
    let tools: ModelToolSpec[];
    if (!searching) tools = enabled.map(toModelToolSpec);
    else {
      const used = new Set(found);
      for (const message of context) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) used.add(call.name);
      tools = [SEARCH_TOOLS_SPEC, ...enabled.filter((t) => used.has(t.name)).map(toModelToolSpec)];
    }
    // Offered once this conversation keeps a result to read (and not when a server's tool has the name).
    if (!byName.has(READ_RESULT_NAME) && this._results.list(this._conversation).length > 0) tools.push(READ_RESULT_SPEC);
    const system = [this._options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT, TOOL_OUTPUT_NOTE].join('\n\n');
    return { tools, byName, searching, system };
  }

  private async _runCall(
    call: ModelToolCall,
    plan: { byName: ReadonlyMap<string, HarnessTool>; searching: boolean },
    found: Set<string>,
    signal: AbortSignal,
    emit: (event: AgentEvent) => void,
  ): Promise<{ message: ToolResultMessage; outcome?: ToolCallOutcome }> {
    if (call.name === SEARCH_TOOLS_NAME && plan.searching && !plan.byName.has(SEARCH_TOOLS_NAME)) return { message: this._searchCall(call, found, emit) };
    if (call.name === READ_RESULT_NAME && !plan.byName.has(READ_RESULT_NAME)) return { message: await this._readResultCall(call, emit) };
    return this._calls.run(call, signal, emit);
  }

  /** `read_result` runs here: it only reads what this conversation kept, so it needs no approval. */
  private async _readResultCall(call: ModelToolCall, emit: (event: AgentEvent) => void): Promise<ToolResultMessage> {
    const parsed = parseJsonObject(call.arguments);
    let text: string;
    let isError = true;
    if (!parsed.ok) text = `The arguments for "${READ_RESULT_NAME}" are ${parsed.error}.`;
    else if (typeof parsed.value.handle !== 'string') text = `${READ_RESULT_NAME} needs a "handle" string (from a result's note).`;
    else {
      const read = parseResultRead(parsed.value);
      const whole = typeof read === 'string' ? undefined : await this._results.read(this._conversation, parsed.value.handle);
      if (typeof read === 'string') text = `${READ_RESULT_NAME}: ${read}.`;
      else if (whole === undefined) text = `No result is kept as "${parsed.value.handle}" in this conversation.`;
      else {
        text = readResultText(whole, read);
        isError = false;
      }
    }
    // The pipeline scanned only the part it showed; what is read later is scanned as it is read.
    const warnings = isError ? [] : scanText(text, 'result');
    emit({ type: 'tool_call', modelCallId: call.id, callId: randomUUID(), toolName: call.name, arguments: parsed.ok ? parsed.value : call.arguments, state: isError ? 'error' : 'done', output: text, runMs: 0, ...(warnings.length ? { warnings } : {}) });
    return toolMessage(call, text, isError);
  }

  /** `search_tools` runs here: it reads only tool definitions, so it needs no approval. */
  private _searchCall(call: ModelToolCall, found: Set<string>, emit: (event: AgentEvent) => void): ToolResultMessage {
    const parsed = parseJsonObject(call.arguments);
    const query = parsed.ok && typeof parsed.value.query === 'string' ? parsed.value.query : undefined;
    const limit = parsed.ok && typeof parsed.value.limit === 'number' ? Math.min(25, parsed.value.limit) : undefined;
    let text: string;
    let isError = false;
    if (query === undefined) {
      isError = true;
      text = parsed.ok ? 'search_tools needs a "query" string.' : `The arguments for "search_tools" are ${parsed.error}.`;
    } else {
      const hits = this._search.search(this._options.tools(), query, { limit });
      for (const hit of hits) found.add(hit.name);
      text = formatSearchResult(query, hits);
    }
    // The pipeline scanned only the part it showed; what is read later is scanned as it is read.
    const warnings = isError ? [] : scanText(text, 'result');
    emit({ type: 'tool_call', modelCallId: call.id, callId: randomUUID(), toolName: call.name, arguments: parsed.ok ? parsed.value : call.arguments, state: isError ? 'error' : 'done', output: text, runMs: 0, ...(warnings.length ? { warnings } : {}) });
    return toolMessage(call, text, isError);
  }

  private _notRun(call: ModelToolCall, maxSteps: number, emit: (event: AgentEvent) => void): ToolResultMessage {
    const text = `Not run: the step limit of ${maxSteps} model steps for one turn was reached.`;
    const parsed = parseJsonObject(call.arguments);
    emit({ type: 'tool_call', modelCallId: call.id, callId: randomUUID(), toolName: call.name, arguments: parsed.ok ? parsed.value : call.arguments, state: 'cancelled', output: text });
    return toolMessage(call, text, true);
  }
}

/** A model's argument text as an object, or what is wrong with it (empty text counts as `{}`). */
function parseJsonObject(text: string): Result<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${errorMessage(err)})` };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  return { ok: false, error: `a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}, not an object` };
}

/** Tells the user what hooks said for them; true when one of them stopped the turn (`continue: false`). */
function hookStop(outcomes: readonly (ToolCallOutcome | undefined)[], emit: (event: AgentEvent) => void): boolean {
  for (const message of outcomes.flatMap((o) => o?.hookMessages ?? [])) emit({ type: 'notice', level: 'warning', message });
  const stop = outcomes.find((o) => o?.hookStop)?.hookStop;
  if (stop) emit({ type: 'notice', level: 'warning', message: `The hook "${stop.hook}" stopped the turn${stop.reason ? `: ${stop.reason}` : '.'}` });
  return stop !== undefined;
}

function describeError(err: unknown): string {
  if (err instanceof ModelProviderError) return err.message;
  return `The model request failed: ${errorMessage(err)}`;
}

function errorKind(err: unknown): ModelProviderErrorKind {
  return err instanceof ModelProviderError ? err.kind : 'other';
}
