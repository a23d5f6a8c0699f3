/**
 * The one message map between the chat webview and the extension. Plain data only: no `vscode`, no
 * DOM. The webview posts `ready` first; every other webview message carries a sequence number that
 * the host answers with a `response` of the same `seq`. Both sides run incoming messages through
 * `parseHostMessage` / `parseWebviewMessage` and drop what does not fit.
 */

/** States of a tool call card (the same names the agent reports). */
export const TOOL_CALL_STATES = ['waiting_for_approval', 'running', 'done', 'error', 'denied', 'cancelled'] as const;
export type ChatToolState = (typeof TOOL_CALL_STATES)[number];

/** Answers a permission card offers; the webview shows one button for each. */
export const PERMISSION_CHOICES = ['once', 'session', 'workspace', 'server_session', 'deny'] as const;
export type ChatPermissionChoice = (typeof PERMISSION_CHOICES)[number];

export interface ChatToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** A suspicious span the poisoning scan found, hidden characters already made visible. */
export interface ChatWarning {
  readonly where: string;
  readonly kind: string;
  readonly excerpt: string;
}

/** What a pending permission card shows besides the call itself. */
export interface ChatPermissionView {
  readonly title?: string;
  readonly description: string;
  readonly annotations?: ChatToolAnnotations;
  readonly warnings: readonly ChatWarning[];
  /** A readable diff when a remembered approval no longer applies because the tool changed. */
  readonly changedSinceApproval?: string;
}

/** One entry of the transcript. `id` is unique within its conversation. */
export type ChatItem =
  | { readonly kind: 'user'; readonly id: string; readonly text: string }
  | {
      readonly kind: 'assistant';
      readonly id: string;
      readonly text: string;
      /** Set when the turn ended in an error after (or instead of) this text. */
      readonly error?: string;
    }
  | {
      readonly kind: 'tool';
      readonly id: string;
      readonly toolName: string;
      readonly server?: string;
      /** The tool's name on its server. */
      readonly tool?: string;
      /** The tool's display title, when it has one. */
      readonly title?: string;
      readonly arguments: unknown;
      readonly state: ChatToolState;
      readonly progress?: { readonly progress: number; readonly total?: number; readonly message?: string };
      /** Result text (done, error) or the denial reason. */
      readonly output?: string;
      readonly durationMs?: number;
      /** Present while the card waits for an answer. */
      readonly permission?: ChatPermissionView;
      /** The tool was flagged by the poisoning scan. */
      readonly warnings?: readonly ChatWarning[];
    }
  | { readonly kind: 'usage'; readonly id: string; readonly inputTokens?: number; readonly outputTokens?: number }
  | {
      readonly kind: 'notice';
      readonly id: string;
      readonly level: 'info' | 'warning' | 'error';
      /** Markdown. */
      readonly text: string;
      readonly action?: ChatAction;
    };

export type ChatItemKind = ChatItem['kind'];

/** Things the panel may ask the host to do, by name (never an arbitrary command id). */
export const CHAT_ACTIONS = ['setApiKey', 'openSettings', 'showAuditLog', 'resetApprovals'] as const;
export type ChatActionId = (typeof CHAT_ACTIONS)[number];
export interface ChatAction {
  readonly id: ChatActionId;
  readonly label: string;
}

export interface ChatConversationSummary {
  readonly id: string;
  readonly title: string;
  readonly updatedAt: number;
  readonly messageCount: number;
}

export interface ChatModelChoice {
  /** `provider:model`, unique in the list. */
  readonly id: string;
  readonly label: string;
}

/** The whole panel state: what `init` carries and what a reopened panel shows. */
export interface ChatViewState {
  readonly conversationId: string;
  readonly items: readonly ChatItem[];
  readonly conversations: readonly ChatConversationSummary[];
  readonly models: readonly ChatModelChoice[];
  readonly selectedModel?: string;
  readonly busy: boolean;
}

/** Host to webview. */
export type HostMessage =
  | { readonly type: 'init'; readonly state: ChatViewState }
  /** Adds items, or replaces those whose id is already shown. */
  | { readonly type: 'upsert'; readonly items: readonly ChatItem[] }
  /** Streamed text for an assistant item (created empty by an earlier upsert). */
  | { readonly type: 'append'; readonly id: string; readonly delta: string }
  | { readonly type: 'busy'; readonly busy: boolean }
  | { readonly type: 'models'; readonly models: readonly ChatModelChoice[]; readonly selectedModel?: string }
  | { readonly type: 'conversations'; readonly conversations: readonly ChatConversationSummary[] }
  | { readonly type: 'response'; readonly seq: number; readonly ok: boolean; readonly error?: string };

/** Webview to host. */
export type WebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'send'; readonly seq: number; readonly text: string }
  | { readonly type: 'stop'; readonly seq: number }
  | { readonly type: 'newChat'; readonly seq: number }
  | { readonly type: 'openConversation'; readonly seq: number; readonly id: string }
  | { readonly type: 'deleteConversation'; readonly seq: number; readonly id: string }
  | { readonly type: 'answerPermission'; readonly seq: number; readonly callId: string; readonly choice: ChatPermissionChoice; readonly reason?: string }
  | { readonly type: 'selectModel'; readonly seq: number; readonly model: string }
  | { readonly type: 'action'; readonly seq: number; readonly action: ChatActionId }
  | { readonly type: 'copy'; readonly seq: number; readonly text: string };

/** A webview message without its sequence number, as the webview's client builds it. */
export type WebviewRequest = WebviewMessage extends infer M ? (M extends { seq: number } ? Omit<M, 'seq'> : never) : never;

export type { Result as ParseResult } from './result';
