import type { ChatMessage } from '../agent/types';
import type { ChatConversationSummary, ChatItem } from '../../shared/chatProtocol';
import { answerOpenCalls, runningTaskCard, taskKeepsRunning } from './chatTaskResults';

/** What a workspace keeps of one conversation: the transcript shown and the messages the model saw. */
export interface StoredConversation {
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly items: readonly ChatItem[];
  readonly messages: readonly ChatMessage[];
  /** The model picked for this conversation (`provider:model`), used again when it is reopened. */
  readonly model?: string;
}

/** The storage the history uses: VS Code's workspace state has this shape. */
export interface IChatMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const INDEX_KEY = 'mcpHarness.chat.index';
const CONVERSATION_KEY = 'mcpHarness.chat.conversation.';
/** Older conversations beyond this are forgotten. */
export const MAX_CONVERSATIONS = 50;

interface Index {
  readonly current?: string;
  readonly conversations: readonly ChatConversationSummary[];
}

/**
 * Conversations of one workspace, newest first, one state entry each plus an index, so opening the
 * panel reads one conversation, not all of them. Entries that do not parse are skipped.
 */
export class ChatHistoryStore {
  constructor(private readonly _memento: IChatMemento) {}

  list(): readonly ChatConversationSummary[] {
    return this._index().conversations;
  }

  currentId(): string | undefined {
    return this._index().current;
  }

  load(id: string): StoredConversation | undefined {
    const value = this._memento.get<StoredConversation>(CONVERSATION_KEY + id);
    if (!value || typeof value !== 'object' || !Array.isArray(value.items) || !Array.isArray(value.messages)) return undefined;
    return settleInterrupted(value);
  }

  /** Saves a conversation and makes it the current one; empty conversations are not listed. */
  async save(conversation: StoredConversation): Promise<void> {
    const index = this._index();
    const others = index.conversations.filter((c) => c.id !== conversation.id);
    const listed = conversation.items.length > 0;
    const summary: ChatConversationSummary = {
      id: conversation.id,
      title: conversation.title,
      updatedAt: conversation.updatedAt,
      messageCount: conversation.items.filter((i) => i.kind === 'user' || i.kind === 'assistant').length,
    };
    const conversations = listed ? [summary, ...others] : others;
    const dropped = conversations.slice(MAX_CONVERSATIONS);
    if (listed) await this._memento.update(CONVERSATION_KEY + conversation.id, withoutImages(conversation));
    await this._memento.update(INDEX_KEY, { current: conversation.id, conversations: conversations.slice(0, MAX_CONVERSATIONS) } satisfies Index);
    for (const old of dropped) await this._memento.update(CONVERSATION_KEY + old.id, undefined);
  }

  async setCurrent(id: string): Promise<void> {
    await this._memento.update(INDEX_KEY, { ...this._index(), current: id } satisfies Index);
  }

  async delete(id: string): Promise<void> {
    const index = this._index();
    await this._memento.update(CONVERSATION_KEY + id, undefined);
    await this._memento.update(INDEX_KEY, {
      current: index.current === id ? undefined : index.current,
      conversations: index.conversations.filter((c) => c.id !== id),
    } satisfies Index);
  }

  private _index(): Index {
    const value = this._memento.get<Index>(INDEX_KEY);
    if (!value || !Array.isArray(value.conversations)) return { conversations: [] };
    return value;
  }
}

/**
 * Images attached to messages are not kept (megabytes each, and the state is written often): the
 * message's text already says which image was attached, so a reopened conversation reads that.
 */
function withoutImages(conversation: StoredConversation): StoredConversation {
  if (!conversation.messages.some((m) => m.role === 'user' && m.images?.length)) return conversation;
  const messages = conversation.messages.map((m): ChatMessage => {
    if (m.role !== 'user' || !m.images?.length) return m;
    const { images: _images, ...rest } = m;
    return rest;
  });
  return { ...conversation, messages };
}

/**
 * A window closed mid-turn leaves cards that will never finish: show them as cancelled, except a
 * call that runs as a task, whose result arrives later. Every tool call the saved messages hold gets
 * an answer (a model refuses a call without one).
 */
function settleInterrupted(conversation: StoredConversation): StoredConversation {
  const messages = answerOpenCalls(conversation.messages, conversation.items);
  if (!conversation.items.some((i) => i.kind === 'tool' && (i.state === 'running' || i.state === 'waiting_for_approval'))) return { ...conversation, messages };
  const items = conversation.items.map((i): ChatItem => {
    if (i.kind !== 'tool' || (i.state !== 'running' && i.state !== 'waiting_for_approval')) return i;
    if (taskKeepsRunning(i)) return runningTaskCard(i);
    const { permission: _permission, progress: _progress, ...rest } = i;
    return { ...rest, state: 'cancelled', output: 'The window closed before this call finished.' };
  });
  return { ...conversation, items, messages };
}

/** Longest conversation title the History list shows. */
const TITLE_CHARS = 50;

/** A conversation's title: the start of its first message. */
export function titleFor(text: string): string {
  // The first line that says something, without Markdown marks, cut at a word, capitalised.
  const first = text.split('\n').map((l) => l.replace(/[`*_#>]+/g, '').replace(/\s+/g, ' ').trim()).find((l) => l !== '') ?? '';
  if (first === '') return 'New chat';
  let title = first;
  if (title.length > TITLE_CHARS) {
    const cut = title.slice(0, TITLE_CHARS - 1);
    const space = cut.lastIndexOf(' ');
    title = `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
  }
  return title.startsWith('/') ? title : title[0]!.toUpperCase() + title.slice(1);
}
