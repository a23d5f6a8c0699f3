/** The editor-free chat: the session, its transcript, its history, and the permission prompter. */
export { ChatSession, ChatRequestError, NO_MODEL_HELP } from './ChatSession';
export type { ChatSessionOptions, ChatModelEntry } from './ChatSession';
export { ChatTranscript, describeDecider } from './ChatTranscript';
export { ChatHistoryStore, MAX_CONVERSATIONS, titleFor } from './ChatHistoryStore';
export type { IChatMemento, StoredConversation } from './ChatHistoryStore';
export { ChatPrompter } from './ChatPrompter';
export { withContext, MAX_ATTACHMENT_CHARS } from './ChatContext';
export type { ChatAttachment } from './ChatContext';
export { ChatHooks } from './ChatHooks';
export type { IChatHooks, ChatSessionSource } from './ChatHooks';
export { ChatAsks, ChatAskError } from './ChatAsks';
