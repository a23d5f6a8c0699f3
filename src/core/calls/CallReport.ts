import type { PoisoningHit } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import { CallHookRecord } from './callHooks';
import { dedupeWarnings, pick } from './callSteps';
import type { CallProgress, HarnessCallResult, ToolCallEvent, ToolCallOptions, ToolCallOutcome } from './types';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** An event's own fields: the rest (id, name, tool, arguments, warnings so far) the report adds. */
export type CallEventPatch = Partial<ToolCallEvent> & Pick<ToolCallEvent, 'state'>;

/**
 * What one call reports, from one channel: each step's whole state so far to the caller's
 * `onEvent` (built only when there is one), and at the end the outcome. Warnings add up over the
 * steps (the definition's, then the result's); hook notes come from the hooks that ran.
 */
export class CallReport {
  /** The tool the call resolved to, once it did. */
  tool: HarnessTool | undefined;
  /** The arguments as they stand (parsed, then as a hook rewrote them). */
  args: unknown;
  private _last: ToolCallEvent | undefined;
  private _warnings: readonly PoisoningHit[] = [];
  private _hooked: CallHookRecord | undefined;

  constructor(
    readonly callId: string,
    private readonly _toolName: string,
    args: unknown,
    private readonly _options: ToolCallOptions,
  ) {
    this.args = args;
  }

  /** What the hooks of this call said (made when the first hook step runs). */
  get hooked(): CallHookRecord {
    return (this._hooked ??= new CallHookRecord(this._options.audit));
  }

  /** Reports a step. A question belongs to its waiting state only, progress to its running state. */
  emit(patch: CallEventPatch): void {
    if (patch.warnings?.length) this._addWarnings(patch.warnings);
    if (this._options.onEvent) this._send(patch);
  }

  /** Progress a server reported while the call ran. */
  readonly progress = (progress: CallProgress): void => {
    if (this._options.onEvent) this._send({ state: 'running', progress });
  };

  /** Ends the call: its last event, and the outcome with everything the card shows. */
  end(state: ToolCallOutcome['state'], result: HarnessCallResult, extra: Partial<ToolCallOutcome> = {}): ToolCallOutcome {
    if (extra.warnings?.length) this._addWarnings(extra.warnings);
    if (this._options.onEvent) this._send({ state, output: result.text, ...pick(extra), ...ranResult(state, result) });
    // Assigned, not spread: on Node 20 an object spread followed by more properties takes a slow
    // path (about 1 us a property), and this runs for every call.
    const outcome = Object.assign({}, result, { callId: this.callId, state }) as Mutable<ToolCallOutcome>;
    if (this.tool) outcome.tool = this.tool;
    Object.assign(outcome, extra, this._hooked?.fields());
    outcome.warnings = this._warnings;
    return outcome;
  }

  private _addWarnings(more: readonly PoisoningHit[]): void {
    this._warnings = dedupeWarnings([...this._warnings, ...more]);
  }

  private _send(patch: CallEventPatch): void {
    const { permission: _asked, progress: _progress, ...rest } = this._last ?? { callId: this.callId, toolName: this._toolName };
    const tool = this.tool;
    const warnings = this._warnings;
    // Assigned, not spread (see `end`).
    const event: ToolCallEvent = Object.assign(rest, tool ? { tool } : undefined, { arguments: this.args ?? {} }, patch, warnings.length ? { warnings } : undefined);
    this._last = event;
    try {
      this._options.onEvent?.(event);
    } catch {
      // A host's listener must not break the call.
    }
  }
}

/** The result as the tool gave it, on the last event of a call that ran (an app in the card renders it). */
function ranResult(state: ToolCallOutcome['state'], result: HarnessCallResult): Pick<ToolCallEvent, 'result'> | undefined {
  if (state !== 'done' && result.errorKind !== 'tool_error') return undefined;
  return { result: { isError: result.isError, content: result.content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}) } };
}
