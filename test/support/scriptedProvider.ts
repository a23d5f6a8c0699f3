import type { IModelProvider, ModelInfo, ModelRequest, ModelStreamEvent, ModelToolCall } from '../../src/core/agent/types';

/** One model step: the events to yield (a function sees the request), or an error to throw after them. */
export type ScriptStep = ((request: ModelRequest, signal: AbortSignal) => AsyncIterable<ModelStreamEvent> | ModelStreamEvent[]) | ModelStreamEvent[];

/** A provider that plays a script, one entry per model request, and records every request. */
export class ScriptedProvider implements IModelProvider {
  readonly id = 'scripted';
  readonly label = 'Scripted model';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly _steps: ScriptStep[]) {}

  async models(): Promise<readonly ModelInfo[]> {
    return [{ id: 'scripted', label: 'Scripted model' }];
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    this.requests.push(structuredClone(request));
    const step = this._steps.shift();
    if (!step) throw new Error('the script has no more steps');
    const events = typeof step === 'function' ? step(request, signal) : step;
    for await (const event of events) yield event;
  }
}

export const say = (text: string): ModelStreamEvent[] => [{ type: 'text', delta: text }, { type: 'usage', inputTokens: 10, outputTokens: 2 }, { type: 'end', reason: 'stop' }];

export function callTools(...calls: Array<[id: string, name: string, args: unknown]>): ModelStreamEvent[] {
  return [
    ...calls.map(([id, name, args]): ModelStreamEvent => ({ type: 'tool_call', call: { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } satisfies ModelToolCall })),
    { type: 'end', reason: 'tool_calls' },
  ];
}
