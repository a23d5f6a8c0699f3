import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/core/agent/types';
import { answerOpenCalls, deliverTaskResult, runningTaskCard, taskCardUpdates, taskKeepsRunning } from '../../../src/core/chat/chatTaskResults';
import type { FinishedTask, HarnessTask } from '../../../src/core/tasks/taskTypes';
import type { ChatItem } from '../../../src/shared/chatProtocol';

const card = (id: string, taskId: string | undefined, state: 'running' | 'done' = 'running', status = 'working'): ChatItem => ({
  kind: 'tool',
  id,
  toolName: 'mcp__jobs__build',
  arguments: {},
  state,
  ...(taskId ? { task: { server: 'jobs', taskId, status, modelCallId: `m-${taskId}` } } : {}),
});
const step: ChatMessage[] = [
  { role: 'user', content: 'build both' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'm-a', name: 'mcp__jobs__build', arguments: '{}' }, { id: 'm-b', name: 'mcp__jobs__build', arguments: '{}' }] },
];
const finished = (taskId: string, text: string, isError = false): FinishedTask => ({
  task: { server: 'jobs', taskId, kind: 'tool', title: 'Build', status: 'completed', createdAt: 0, lastUpdatedAt: 0, origin: { callId: 'x', conversationId: 'conv', modelCallId: `m-${taskId}` } },
  result: { content: [{ type: 'text', text }], ...(isError ? { isError } : {}) },
});

describe("a task's result in a conversation", () => {
  it('answers every open call of a closed window: a running task says so, anything else says it was interrupted', () => {
    const messages = answerOpenCalls(step, [card('c1', 'a'), card('c2', undefined)]);
    expect(messages.slice(2)).toEqual([
      { role: 'tool', toolCallId: 'm-a', toolName: 'mcp__jobs__build', content: '<tool_output tool="mcp__jobs__build" error="true">\nStill running as task a on "jobs"; its result will follow when it ends.\n</tool_output>', isError: true },
      { role: 'tool', toolCallId: 'm-b', toolName: 'mcp__jobs__build', content: '<tool_output tool="mcp__jobs__build" error="true">\nNot finished: the window closed before this call ended.\n</tool_output>', isError: true },
    ]);
    // Nothing to answer: the messages are kept as they were.
    expect(answerOpenCalls(messages, [])).toEqual(messages);
  });

  it('shows a card whose task keeps running as running, with no result yet and no stale message', () => {
    const item = { ...card('c1', 'a', 'done'), output: 'stopped following', task: { server: 'jobs', taskId: 'a', status: 'working', statusMessage: 'step 2 of 5', modelCallId: 'm-a' } } as ChatItem;
    expect(taskKeepsRunning(item)).toBe(true);
    expect(taskKeepsRunning(card('c2', 'b', 'done', 'completed'))).toBe(false);
    const running = runningTaskCard(item as never);
    expect(running).toMatchObject({ state: 'running', task: { taskId: 'a', status: 'working', modelCallId: 'm-a' } });
    expect(running).not.toHaveProperty('output');
    expect(running.kind === 'tool' && running.task).not.toHaveProperty('statusMessage');
  });

  it('updates the cards of tasks picked up again after a reload as they change, and no other', () => {
    const task = (taskId: string, more: Partial<HarnessTask> = {}): HarnessTask => ({ server: 'jobs', taskId, kind: 'tool', title: 'Build', status: 'working', createdAt: 0, lastUpdatedAt: 0, resumed: true, ...more });
    const items = [card('c1', 'a'), card('c2', 'b'), card('c3', 'c'), card('c4', undefined)];
    const updates = taskCardUpdates(items, [task('a', { statusMessage: 'step 3 of 5' }), task('b'), task('c', { resumed: undefined, statusMessage: 'followed by its call' })]);
    // b did not change; c is followed by its call here, whose own events update its card.
    expect(updates).toEqual([{ ...items[0], task: { server: 'jobs', taskId: 'a', status: 'working', statusMessage: 'step 3 of 5', modelCallId: 'm-a' } }]);
    expect(taskCardUpdates(updates, [task('a', { status: 'input_required' })])).toMatchObject([{ id: 'c1', task: { status: 'input_required' } }]);
    expect(taskCardUpdates(updates, [task('a', { statusMessage: 'step 3 of 5' })])).toEqual([]);
  });

  it('puts the result into its card and the message answering its call; the model goes on once nothing else runs', () => {
    const items = [card('c1', 'a'), card('c2', 'b')];
    const messages = answerOpenCalls(step, items);
    const first = deliverTaskResult(items, messages, finished('a', 'built a'))!;
    expect(first.card).toMatchObject({ id: 'c1', state: 'done', output: 'built a', task: { status: 'completed' } });
    expect(first.messages[2]).toMatchObject({ toolCallId: 'm-a', content: '<tool_output tool="mcp__jobs__build">\nbuilt a\n</tool_output>', isError: false });
    // The other call of the same step still runs: the model waits for it.
    expect(first.continues).toBe(false);
    const second = deliverTaskResult(first.items, first.messages, finished('b', 'b broke', true))!;
    expect(second.card).toMatchObject({ id: 'c2', state: 'error', output: 'b broke' });
    expect(second.continues).toBe(true);
  });

  it('does not go on when the conversation moved past the call, and finds nothing for a task it never held', () => {
    const items = [card('c1', 'a'), card('c2', undefined)];
    const later: ChatMessage[] = [...answerOpenCalls(step, items), { role: 'user', content: 'anything else?' }, { role: 'assistant', content: 'no' }];
    expect(deliverTaskResult(items, later, finished('a', 'built a'))!.continues).toBe(false);
    expect(deliverTaskResult(items, later, finished('zzz', 'x'))).toBeUndefined();
  });

  it('a task that failed or was cancelled ends its card so', () => {
    const items = [card('c1', 'a')];
    const failed = deliverTaskResult(items, [], { task: { ...finished('a', '').task, status: 'failed' }, error: 'task a failed: disk full' })!;
    expect(failed.card).toMatchObject({ state: 'error', output: 'task a failed: disk full', task: { status: 'failed' } });
    expect(failed.continues).toBe(false);
    const cancelled = deliverTaskResult(items, [], { task: { ...finished('a', '').task, status: 'cancelled' }, error: 'cancelled' })!;
    expect(cancelled.card).toMatchObject({ state: 'cancelled' });
  });
});
