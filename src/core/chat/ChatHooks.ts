import type { HookNote } from '../calls/types';
import type { AuditHookEntry, IAuditSink } from '../permissions/AuditLog';

/** What a chat's events' hooks said (the harness's hook runner answers so). */
interface ChatHookVerdict {
  readonly notes: readonly HookNote[];
  readonly messages: readonly string[];
  readonly runs: readonly AuditHookEntry[];
}

/** The hooks of a chat's own events: UserPromptSubmit and SessionStart. */
export interface IChatHooks {
  userPromptSubmit(context: { readonly conversationId: string; readonly prompt: string; readonly signal?: AbortSignal }): Promise<ChatHookVerdict & { readonly blocked?: { readonly hook: string; readonly reason: string } }>;
  sessionStart(context: { readonly conversationId: string; readonly source: ChatSessionSource; readonly signal?: AbortSignal }): Promise<ChatHookVerdict>;
}

/** How a conversation came to be open: a new one, one reopened, or one that replaced another (New Chat). */
export type ChatSessionSource = 'startup' | 'resume' | 'clear';

/**
 * Runs a chat's hooks before a turn: SessionStart once for each conversation opened (its context
 * goes with the conversation's first message to the model), then UserPromptSubmit for the
 * message. Every run goes to the audit log; what hooks say for the user becomes a notice.
 */
export class ChatHooks {
  /** Conversations whose SessionStart ran. */
  private readonly _started = new Set<string>();
  private _source: ChatSessionSource = 'startup';

  constructor(
    private readonly _hooks: IChatHooks | undefined,
    private readonly _audit: IAuditSink | undefined,
  ) {}

  /** The next conversation's SessionStart says how it was opened. */
  opened(source: ChatSessionSource): void {
    this._source = source;
  }

  /**
   * The text to send to the model for `prompt` (with hooks' context after it), or undefined when
   * a UserPromptSubmit hook refused it (the notice says which and why).
   */
  async beforeTurn(conversationId: string, prompt: string, signal: AbortSignal, notice: (level: 'info' | 'warning', text: string) => void): Promise<string | undefined> {
    if (!this._hooks) return prompt;
    const notes: HookNote[] = [];
    if (!this._started.has(conversationId)) {
      this._started.add(conversationId);
      const session = await this._hooks.sessionStart({ conversationId, source: this._source, signal });
      this._take(session, notice);
      notes.push(...session.notes);
    }
    const submitted = await this._hooks.userPromptSubmit({ conversationId, prompt, signal });
    this._take(submitted, notice);
    if (submitted.blocked) {
      notice('warning', `The UserPromptSubmit hook "${submitted.blocked.hook}" refused this message: ${submitted.blocked.reason}`);
      return undefined;
    }
    notes.push(...submitted.notes);
    return [prompt, ...notes.map((n) => `<hook_context hook="${n.hook.replace(/["<>\n]/g, '_')}">\n${n.text}\n</hook_context>`)].join('\n\n');
  }

  private _take(verdict: ChatHookVerdict, notice: (level: 'info' | 'warning', text: string) => void): void {
    for (const run of verdict.runs) this._audit?.hook?.(run);
    for (const message of verdict.messages) notice('warning', message);
  }
}
