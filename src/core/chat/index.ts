/** The editor-free chat: the session, its transcript, its history, and the permission prompter. */
export { ChatSession, ChatRequestError, NO_MODEL_HELP } from './ChatSession';
export type { ChatSessionOptions, ChatModelEntry } from './ChatSession';
export { ChatTranscript, describeDecider } from './ChatTranscript';
export { ChatHistoryStore, MAX_CONVERSATIONS, titleFor } from './ChatHistoryStore';
export type { IChatMemento, StoredConversation } from './ChatHistoryStore';
export { ChatPrompter } from './ChatPrompter';
export { withContext, modelMessage, MAX_ATTACHMENT_CHARS } from './ChatContext';
export type { ChatAttachment, AttachedImage } from './ChatContext';
export { ChatAttachments } from './ChatAttachments';
export { ChatServerItems, BUILTIN_COMMANDS, expandTemplate, templateVariables } from './ChatServerItems';
export type { IChatServerItems, ChatServerView } from './ChatServerItems';
export { resourceAttachment, promptContent, lastSegment } from './resourceAttachment';
export type { ChatOpenedResource } from './contextRequests';
export { ChatHooks } from './ChatHooks';
export type { IChatHooks, ChatSessionSource } from './ChatHooks';
export { ChatAsks, ChatAskError } from './ChatAsks';
