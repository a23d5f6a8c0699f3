import { describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../../../src/core/calls/types';
import type { McpCallOptions } from '../../../src/core/mcp/McpSession';
import type { HarnessTask } from '../../../src/core/tasks/taskTypes';
import { PipelineFixture } from '../../support/pipeline';

const task = (status: HarnessTask['status'], statusMessage?: string): HarnessTask => ({
  server: 'fx',
  taskId: 't1',
  kind: 'tool',
  title: 'Echo',
  status,
  ...(statusMessage ? { statusMessage } : {}),
  createdAt: 1,
  lastUpdatedAt: 2,
});

describe('CallPipeline and tasks', () => {
  it('tells the connection where a call comes from, for a task it may become, and that it waits for it', async () => {
    const seen: McpCallOptions[] = [];
    const fx = new PipelineFixture(async (_name, _args, options) => {
      seen.push(options);
      return { isError: false, text: 'ok' };
    }).setTools('fx', [{ name: 'echo' }]);
    await fx.call({ name: 'mcp__fx__echo', arguments: {} }, { callId: 'call-1', conversationId: 'conv', modelCallId: 'model-1' });
    await fx.call({ name: 'mcp__fx__echo', arguments: {} }, { callId: 'call-2', detachTask: true });
    expect(seen[0]!.task).toMatchObject({ origin: { callId: 'call-1', conversationId: 'conv', modelCallId: 'model-1' } });
    expect(seen[0]!.task).not.toHaveProperty('detach');
    expect(seen[1]!.task).toMatchObject({ origin: { callId: 'call-2' }, detach: true });
    expect(seen[1]!.task!.origin).toEqual({ callId: 'call-2' });
  });

  it("reports the call's task on its card from the moment it became one, the last event included", async () => {
    const fx = new PipelineFixture(async (_name, _args, options) => {
      options.task!.onTask!(task('working', 'step 1'));
      options.onProgress!({ progress: 1, total: 2 });
      options.task!.onTask!(task('completed'));
      return { isError: false, text: 'done' };
    }).setTools('fx', [{ name: 'echo' }]);
    const events: ToolCallEvent[] = [];
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: {} }, { onEvent: (e) => events.push(e) });
    expect(outcome.state).toBe('done');
    const running = events.filter((e) => e.state === 'running');
    expect(running.map((e) => [e.task?.status, e.progress?.progress])).toEqual([
      [undefined, undefined],
      ['working', undefined],
      ['working', 1],
      ['completed', undefined],
    ]);
    expect(events.at(-1)).toMatchObject({ state: 'done', output: 'done', task: { taskId: 't1', status: 'completed' } });
  });
});
