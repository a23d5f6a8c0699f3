import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/core/agent/types';
import { answerOpenCalls, cardTask, deliverTaskResult, taskCardUpdates, taskKeepsRunning } from '../../../src/core/chat/chatTaskResults';
import type { FinishedTask, HarnessTask } from '../../../src/core/tasks/taskTypes';
import type { ChatItem } from '../../../src/shared/chatProtocol';

type Task = NonNullable<Extract<ChatItem, { kind: 'tool' }>['task']>;

const card = (id: string, task: Partial<Task> | undefined, state: 'running' | 'done' | 'error' = 'running'): ChatItem => ({
  kind: 'tool',
  id,
  toolName: 'mcp__jobs__build',
  arguments: {},
  state,
  ...(task ? { task: { server: 'jobs', taskId: 'a', status: 'working', ...task } } : {}),
});
const harnessTask = (taskId: string, more: Partial<HarnessTask> = {}): HarnessTask => ({ server: 'jobs', taskId, kind: 'tool', title: 'Build', status: 'completed', createdAt: 0, lastUpdatedAt: 0, ...more });
const call = (id: string) => ({ id, name: 'mcp__jobs__build', arguments: '{}' });
const user: ChatItem = { kind: 'user', id: 'u1', text: 'go' };

describe("a call's task on its card", () => {
  it('shows the server, id and status, the message and the model call only when there are some', () => {
    expect(cardTask({ task: undefined })).toBeUndefined();
    expect(cardTask({ task: harnessTask('a', { status: 'working' }) })).toEqual({ server: 'jobs', taskId: 'a', status: 'working' });
    expect(cardTask({ task: harnessTask('a', { status: 'working', statusMessage: 'step 2' }), modelCallId: 'm-1' })).toEqual({ server: 'jobs', taskId: 'a', status: 'working', statusMessage: 'step 2', modelCallId: 'm-1' });
  });

  it('keeps running only a tool card whose task has not ended', () => {
    expect(taskKeepsRunning(user)).toBe(false);
    expect(taskKeepsRunning(card('c', undefined))).toBe(false);
    expect(taskKeepsRunning(card('c', { status: 'completed' }))).toBe(false);
    expect(taskKeepsRunning(card('c', { status: 'input_required' }))).toBe(true);
  });

  it('updates only running cards, with the last progress message when the task gives none', () => {
    const resumed = (more: Partial<HarnessTask>) => harnessTask('a', { status: 'working', resumed: true, ...more });
    const running = card('c1', {});
    expect(taskCardUpdates([user, card('c0', {}, 'error'), running], [resumed({ progress: { progress: 1, message: 'compiling' } })])).toEqual([
      { ...running, task: { server: 'jobs', taskId: 'a', status: 'working', statusMessage: 'compiling' } },
    ]);
    // Same status, no message either side: nothing to show.
    expect(taskCardUpdates([running], [resumed({})])).toEqual([]);
  });
});

describe('answering open calls', () => {
  it('looks only at tool cards for the tasks of calls', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', toolCalls: [call('m-1')] }];
    const out = answerOpenCalls(messages, [user, card('c1', { modelCallId: 'm-1' })]);
    expect(out[2]).toMatchObject({ toolCallId: 'm-1', content: expect.stringContaining('Still running as task a on "jobs"') });
  });
});

describe('delivering a task result', () => {
  const step: ChatMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: '', toolCalls: [call('m-1'), call('m-2')] },
    { role: 'tool', toolCallId: 'm-1', toolName: 'mcp__jobs__build', content: 'pending', isError: true },
    { role: 'tool', toolCallId: 'm-2', toolName: 'mcp__jobs__build', content: 'pending', isError: true },
  ];

  it('finds the card by server and task id, and the answer by the call the task came from', () => {
    const items = [user, card('other', { server: 'elsewhere', taskId: 't' }), card('mine', { taskId: 't' })];
    const finished: FinishedTask = { task: harnessTask('t', { statusMessage: 'all done', origin: { callId: 'x', conversationId: 'c', modelCallId: 'm-2' } }), result: { content: [{ type: 'text', text: 'x'.repeat(30_000) }] } };
    const delivered = deliverTaskResult(items, step, finished)!;
    expect(delivered.card).toMatchObject({ id: 'mine', state: 'done', task: { status: 'completed', statusMessage: 'all done' } });
    // Not cut to the pipeline's cap: the result arrives whole up to the delivery limit.
    expect((delivered.card as { output: string }).output).toBe('x'.repeat(30_000));
    expect(delivered.messages[3]).toMatchObject({ toolCallId: 'm-2', isError: false, content: expect.stringContaining('x'.repeat(30_000)) });
    expect(delivered.messages[2]).toBe(step[2]);
    expect(delivered.items[1]).toBe(items[1]);
  });

  it('says how a task ended that left no result and no error, as an error', () => {
    const items = [card('mine', { modelCallId: 'm-1' })];
    const delivered = deliverTaskResult(items, step, { task: harnessTask('a', { status: 'failed' }) })!;
    expect(delivered.card).toMatchObject({ state: 'error', output: 'task a ended (failed)' });
    expect(delivered.messages[2]).toMatchObject({ toolCallId: 'm-1', isError: true, content: expect.stringContaining('task a ended (failed)') });
  });

  it('lets the model go on when the other tasks still running belong to an earlier step', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: '', toolCalls: [call('m-0')] },
      { role: 'tool', toolCallId: 'm-0', toolName: 'mcp__jobs__build', content: 'pending', isError: true },
      { role: 'assistant', content: 'started' },
      { role: 'user', content: 'second' },
      { role: 'assistant', content: '', toolCalls: [call('m-1'), call('m-2')] },
      { role: 'tool', toolCallId: 'm-1', toolName: 'mcp__jobs__build', content: 'pending', isError: true },
      { role: 'tool', toolCallId: 'm-2', toolName: 'mcp__jobs__build', content: 'done', isError: false },
    ];
    const items = [card('old', { taskId: 'z', modelCallId: 'm-0' }), card('mine', { taskId: 'a', modelCallId: 'm-1' })];
    expect(deliverTaskResult(items, messages, { task: harnessTask('a'), result: { content: [{ type: 'text', text: 'ok' }] } })!.continues).toBe(true);
    // A task of the same step still running holds the model back.
    const same = [card('sibling', { taskId: 'y', modelCallId: 'm-2' }), card('mine', { taskId: 'a', modelCallId: 'm-1' })];
    expect(deliverTaskResult(same, messages, { task: harnessTask('a'), result: { content: [{ type: 'text', text: 'ok' }] } })!.continues).toBe(false);
  });

  it('continues from an answer that opens the messages', () => {
    const messages: ChatMessage[] = [{ role: 'tool', toolCallId: 'm-1', toolName: 'mcp__jobs__build', content: 'pending', isError: true }];
    const delivered = deliverTaskResult([card('mine', { modelCallId: 'm-1' })], messages, { task: harnessTask('a'), result: { content: [{ type: 'text', text: 'ok' }] } })!;
    expect(delivered.continues).toBe(true);
    expect(delivered.messages[0]).toMatchObject({ isError: false });
  });
});
