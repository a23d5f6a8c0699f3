import type { ChatMessage } from '../agent/types';
import { wrapToolOutput } from '../agent/toolOutput';
import type { ToolCallEvent } from '../calls/types';
import { isTerminalStatus, type FinishedTask, type HarnessTask } from '../tasks/taskTypes';
import { formatToolResult } from '../tools/formatToolResult';
import type { ChatItem } from '../../shared/chatProtocol';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;
type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;
type CardTask = NonNullable<ToolItem['task']>;

/** Longest task result put into a conversation afterwards (the pipeline's cap does not apply there). */
const MAX_DELIVERED_CHARS = 50_000;

/** What a card shows of its call's task, from the call's event. */
export function cardTask(event: Pick<ToolCallEvent, 'task'> & { readonly modelCallId?: string }): CardTask | undefined {
  const task = event.task;
  if (!task) return undefined;
  return { server: task.server, taskId: task.taskId, status: task.status, ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}), ...(event.modelCallId ? { modelCallId: event.modelCallId } : {}) };
}

/** Whether a card's call ended here while its task keeps running on the server (the host closed). */
export function taskKeepsRunning(item: ChatItem): item is ToolItem & { task: CardTask } {
  return item.kind === 'tool' && item.task !== undefined && !isTerminalStatus(item.task.status as never);
}

/**
 * The card of a call whose task keeps running after its call stopped waiting (the window closed):
 * running, with no result yet (it comes to this card when the task ends) and without the server's
 * last message, which would go stale; {@link taskCardUpdates} shows the task's state again.
 */
export function runningTaskCard(item: ToolItem & { task: CardTask }): ToolItem {
  const { permission: _permission, progress: _progress, output: _output, ...rest } = item;
  const { statusMessage: _message, ...task } = item.task;
  return { ...rest, state: 'running', task };
}

/**
 * The cards of calls whose task was picked up again after a reload (nothing else updates them),
 * as each task stands now: only those whose status or message changed.
 */
export function taskCardUpdates(items: readonly ChatItem[], tasks: readonly HarnessTask[]): ToolItem[] {
  const resumed = new Map(tasks.filter((t) => t.resumed && !isTerminalStatus(t.status)).map((t) => [JSON.stringify([t.server, t.taskId]), t]));
  return items.flatMap((i) => {
    if (!taskKeepsRunning(i) || i.state !== 'running') return [];
    const now = resumed.get(JSON.stringify([i.task.server, i.task.taskId]));
    if (!now) return [];
    const statusMessage = now.statusMessage ?? now.progress?.message;
    if (now.status === i.task.status && statusMessage === i.task.statusMessage) return [];
    const { statusMessage: _old, ...task } = i.task;
    return [{ ...i, task: { ...task, status: now.status, ...(statusMessage ? { statusMessage } : {}) } }];
  });
}

/**
 * A stored conversation's messages with an answer for every tool call: a turn the window closed on
 * may end in calls without results, which a model refuses. A call that runs as a task is answered
 * "still running" until its result arrives; any other says it was interrupted.
 */
export function answerOpenCalls(messages: readonly ChatMessage[], items: readonly ChatItem[]): ChatMessage[] {
  const answered = new Set(messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  const tasks = new Map(items.flatMap((i) => (i.kind === 'tool' && i.task?.modelCallId ? [[i.task.modelCallId, i.task] as const] : [])));
  const out: ChatMessage[] = [];
  for (const m of messages) {
    out.push(m);
    if (m.role !== 'assistant') continue;
    for (const call of m.toolCalls ?? []) {
      if (answered.has(call.id)) continue;
      const task = tasks.get(call.id);
      const text = task ? `Still running as task ${task.taskId} on "${task.server}"; its result will follow when it ends.` : 'Not finished: the window closed before this call ended.';
      out.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: wrapToolOutput(call.name, text, true), isError: true });
    }
  }
  return out;
}

/** A conversation after a task's result arrived: its card, and the message answering its call. */
export interface DeliveredTask {
  /** The card, as it is now. */
  readonly card: ChatItem;
  readonly items: ChatItem[];
  readonly messages: ChatMessage[];
  /** The call was the last thing in the conversation and nothing else is pending: the model may go on. */
  readonly continues: boolean;
}

/** Puts a finished task into a conversation, or undefined when no card of it is there. */
export function deliverTaskResult(items: readonly ChatItem[], messages: readonly ChatMessage[], finished: FinishedTask): DeliveredTask | undefined {
  const { task } = finished;
  const at = items.findIndex((i) => i.kind === 'tool' && i.task?.taskId === task.taskId && i.task.server === task.server);
  if (at < 0) return undefined;
  const card = items[at] as ToolItem;
  const formatted = finished.result ? formatToolResult(finished.result, { maxOutputChars: MAX_DELIVERED_CHARS }) : undefined;
  const isError = formatted ? formatted.isError : true;
  const text = formatted?.text ?? finished.error ?? `task ${task.taskId} ended (${task.status})`;
  const { progress: _progress, ...rest } = card;
  const state = formatted ? (isError ? 'error' : 'done') : task.status === 'cancelled' ? 'cancelled' : 'error';
  const nextItems = [...items];
  nextItems[at] = { ...rest, state, output: text, task: { ...card.task!, status: task.status, ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}) } };
  const callId = card.task?.modelCallId ?? task.origin?.modelCallId;
  const nextMessages = [...messages];
  const answer = nextMessages.findIndex((m) => m.role === 'tool' && m.toolCallId === callId);
  if (answer >= 0) {
    const old = nextMessages[answer] as ToolMessage;
    nextMessages[answer] = { ...old, content: wrapToolOutput(old.toolName, text, isError), isError };
  }
  return { card: nextItems[at]!, items: nextItems, messages: nextMessages, continues: answer >= 0 && continues(nextMessages, answer, nextItems) };
}

/** Whether the answer at `at` ends the conversation (only other answers after it) and no other task of that step still runs. */
function continues(messages: readonly ChatMessage[], at: number, items: readonly ChatItem[]): boolean {
  if (messages.slice(at + 1).some((m) => m.role !== 'tool')) return false;
  let start = at;
  while (start > 0 && messages[start - 1]!.role === 'tool') start--;
  const step = new Set(messages.slice(start).map((m) => (m as ToolMessage).toolCallId));
  return !items.some((i) => taskKeepsRunning(i) && i.task.modelCallId !== undefined && step.has(i.task.modelCallId));
}
