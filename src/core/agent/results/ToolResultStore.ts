import { randomBytes } from 'node:crypto';

/** What is known of one kept result without reading it. */
export interface StoredResultInfo {
  /** What the model and the card name it by (`r-` and 8 hex digits). */
  readonly handle: string;
  readonly toolName: string;
  readonly chars: number;
  readonly lines: number;
}

/**
 * Where a conversation keeps tool results too large for the model's context, whole, so the model
 * can page through them (`read_result`) and the person can open them. Handles are unique within
 * a conversation and name nothing but the result.
 */
export interface IToolResultStore {
  put(conversationId: string, toolName: string, text: string): Promise<StoredResultInfo>;
  /** The whole text, or undefined when the handle is not (or no longer) kept. */
  read(conversationId: string, handle: string): Promise<string | undefined>;
  /** The results a conversation keeps, oldest first. */
  list(conversationId: string): readonly StoredResultInfo[];
  /** A file holding the result, when the store keeps it on disk (an editor opens it). */
  pathOf?(conversationId: string, handle: string): string | undefined;
  /** Forgets a conversation's results (the conversation was deleted). */
  deleteConversation(conversationId: string): Promise<void>;
}

const HANDLE = /^r-[0-9a-f]{8}$/;

/** Whether `value` is spelled like a handle (checked before a store touches anything with it). */
export function isResultHandle(value: string): boolean {
  return HANDLE.test(value);
}

export function newResultHandle(taken: (handle: string) => boolean): string {
  let handle: string;
  do handle = `r-${randomBytes(4).toString('hex')}`;
  while (taken(handle));
  return handle;
}

/** Lines of `text` as an editor counts them (a final newline does not start one more). */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

/** Default bound on what a {@link MemoryToolResultStore} holds (characters, all conversations). */
export const DEFAULT_MEMORY_STORE_CHARS = 64 * 1024 * 1024;

/**
 * Results kept in memory, for a library host or the terminal: the oldest are forgotten once the
 * whole store passes `maxChars`, so a long session cannot grow without bound.
 */
export class MemoryToolResultStore implements IToolResultStore {
  private readonly _byConversation = new Map<string, Map<string, { info: StoredResultInfo; text: string }>>();
  private readonly _order: { conversationId: string; handle: string }[] = [];
  private _chars = 0;

  constructor(private readonly _maxChars = DEFAULT_MEMORY_STORE_CHARS) {}

  async put(conversationId: string, toolName: string, text: string): Promise<StoredResultInfo> {
    let results = this._byConversation.get(conversationId);
    if (!results) this._byConversation.set(conversationId, (results = new Map()));
    const kept = results;
    const info: StoredResultInfo = { handle: newResultHandle((h) => kept.has(h)), toolName, chars: text.length, lines: countLines(text) };
    kept.set(info.handle, { info, text });
    this._order.push({ conversationId, handle: info.handle });
    this._chars += text.length;
    while (this._chars > this._maxChars && this._order.length > 1) this._forget(this._order.shift()!);
    return info;
  }

  async read(conversationId: string, handle: string): Promise<string | undefined> {
    return this._byConversation.get(conversationId)?.get(handle)?.text;
  }

  list(conversationId: string): readonly StoredResultInfo[] {
    return [...(this._byConversation.get(conversationId)?.values() ?? [])].map((e) => e.info);
  }

  async deleteConversation(conversationId: string): Promise<void> {
    for (const entry of this._byConversation.get(conversationId)?.values() ?? []) this._chars -= entry.text.length;
    this._byConversation.delete(conversationId);
    for (let i = this._order.length - 1; i >= 0; i--) if (this._order[i]!.conversationId === conversationId) this._order.splice(i, 1);
  }

  private _forget(at: { conversationId: string; handle: string }): void {
    const results = this._byConversation.get(at.conversationId);
    const entry = results?.get(at.handle);
    if (!results || !entry) return;
    this._chars -= entry.text.length;
    results.delete(at.handle);
    if (results.size === 0) this._byConversation.delete(at.conversationId);
  }
}
