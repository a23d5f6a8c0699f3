/**
 * The one message map between the chat webview and the extension. Plain data only: no `vscode`, no
 * DOM. Every shape is written once, as the runtime check both sides run incoming messages through,
 * and its type is derived from it. The webview posts `ready` first; every other webview message is
 * a request with a sequence number, paired (in {@link WEBVIEW_REQUESTS}) with the type of its
 * answer, which the host sends back in a `response` of the same `seq`.
 */
import { answerAskAnswer, answerAskParams, chatAsk } from './askProtocol';
import { attachmentChip, CONTEXT_REQUESTS, resourceLinkView } from './contextProtocol';
import { any, array, bool, boundedStr, int, none, num, object, oneOf, optional, str, union, type Check, type Infer } from './shape';
export * from './askProtocol';
export * from './contextProtocol';

/** Longest text a webview message may carry (a pasted file is fine, a runaway loop is not). */
export const MAX_WEBVIEW_TEXT = 1_000_000;

/** States of a tool call card (the same names the agent reports). */
export const TOOL_CALL_STATES = ['waiting_for_approval', 'running', 'done', 'error', 'denied', 'cancelled'] as const;
export type ChatToolState = (typeof TOOL_CALL_STATES)[number];

/** Answers a permission card offers; the webview shows one button for each. */
export const PERMISSION_CHOICES = ['once', 'session', 'workspace', 'server_session', 'deny'] as const;
export type ChatPermissionChoice = (typeof PERMISSION_CHOICES)[number];

/** Things the panel may ask the host to do, by name (never an arbitrary command id). */
export const CHAT_ACTIONS = ['setApiKey', 'openSettings', 'showAuditLog', 'resetApprovals'] as const;
export type ChatActionId = (typeof CHAT_ACTIONS)[number];

const annotations = object({ readOnlyHint: optional(bool), destructiveHint: optional(bool), idempotentHint: optional(bool), openWorldHint: optional(bool) });
export type ChatToolAnnotations = Infer<typeof annotations>;

/** A suspicious span the poisoning scan found, hidden characters already made visible. */
const warning = object({ where: str, kind: str, excerpt: str });
export type ChatWarning = Infer<typeof warning>;

/** What a pending permission card shows besides the call itself. */
const permissionView = object({
  title: optional(str),
  description: str,
  annotations: optional(annotations),
  warnings: array(warning),
  /** A readable diff when a remembered approval no longer applies because the tool changed. */
  changedSinceApproval: optional(str),
  /** A PreToolUse hook asked for this card: which, and why. */
  askedBy: optional(str),
  /** The call may change things (a write, a command, a destructive tool): the card warns and leads with no allow. */
  changes: optional(bool),
  /** A command's line and the folder it runs in, shown first. */
  command: optional(object({ line: str, cwd: str })),
  /** A write's or an edit's file and a short unified diff (or why none could be made); "Preview Change" opens it whole. */
  change: optional(object({ path: str, diff: optional(str), truncated: optional(bool), error: optional(str) })),
});
export type ChatPermissionView = Infer<typeof permissionView>;

const action = object({ id: oneOf(CHAT_ACTIONS), label: str });

/**
 * A tool with a UI (MCP Apps): the card renders its `ui://` resource, fed the call's arguments and
 * `result` (the call's content blocks and structured content, kept for a reopened panel). `error`:
 * why the UI cannot be shown at all.
 */
const toolApp = object({ resourceUri: str, error: optional(str), result: optional(any) });
export type ChatToolApp = Infer<typeof toolApp>;

/**
 * What the panel needs to render an app (the answer to `appOpen`): its HTML, the sandbox page to
 * put it in (the page's URL carries the app's content security policy), the permissions it
 * declared, what it is fed, and notes about what of its declaration was left out.
 */
const appView = object({
  html: str,
  sandboxUrl: str,
  csp: object({ connectDomains: optional(array(str)), resourceDomains: optional(array(str)), frameDomains: optional(array(str)), baseUriDomains: optional(array(str)) }),
  permissions: object({ camera: optional(any), microphone: optional(any), geolocation: optional(any), clipboardWrite: optional(any) }),
  prefersBorder: optional(bool),
  /** The tool's definition as its server listed it (the app's host context names it). */
  tool: any,
  toolInput: any,
  toolResult: optional(any),
  notes: array(str),
});
export type ChatAppView = Infer<typeof appView>;
export type ChatAction = Infer<typeof action>;

/** One entry of the transcript. `id` is unique within its conversation. */
export const chatItem = union('kind', {
  /** `context`: the labels of what was attached to it. */
  user: object({ id: str, text: str, context: optional(array(str)), /** Sent by an app (MCP Apps), not typed: the app's name. */ from: optional(str) }),
  /** `error` is set when the turn ended in an error after (or instead of) this text. */
  assistant: object({ id: str, text: str, error: optional(str), /** The user stopped the turn while this text streamed: it is partial. */ stopped: optional(bool) }),
  tool: object({
    id: str,
    /** The name the model (or `/call`) asked for. */
    toolName: str,
    /** The configured server, and the tool's own name on it. */
    server: optional(str),
    tool: optional(str),
    title: optional(str),
    /** The tool's exposed name, when it differs from what was asked for. */
    exposedName: optional(str),
    arguments: any,
    state: oneOf(TOOL_CALL_STATES),
    progress: optional(object({ progress: num, total: optional(num), message: optional(str) })),
    /** Result text (done, error) or the denial reason. */
    output: optional(str),
    /** How long the call ran (not counting the wait for approval). */
    durationMs: optional(num),
    /** How long it waited for an answer on its card. */
    waitMs: optional(num),
    /** What allowed or denied it: a rule, a remembered choice, a person, the read-only setting. */
    decidedBy: optional(str),
    /** Present while the card waits for an answer. */
    permission: optional(permissionView),
    /** The tool (or its result) was flagged by the poisoning scan. */
    warnings: optional(array(warning)),
    /** The result was over the output cap: it is kept whole under this handle ("Open in Editor"). */
    result: optional(object({ handle: str, chars: int(0), lines: int(0) })),
    /** The tool has a UI the card renders (MCP Apps). */
    app: optional(toolApp),
    /** Who made the call when not the model or the user: an app (MCP Apps), by name. */
    caller: optional(str),

    /**
     * The call came back as a task: its server's id for it and its last state. A task still
     * running when the window closed keeps the card running; its result arrives later.
     */
    task: optional(object({ server: str, taskId: str, status: str, statusMessage: optional(str), modelCallId: optional(str) })),
    /** Resources the result links to (`resource_link`): the card opens or attaches each. */
    resourceLinks: optional(array(resourceLinkView)),
  }),
  usage: object({ id: str, inputTokens: optional(num), outputTokens: optional(num) }),
  /** `text` is Markdown. */
  notice: object({ id: str, level: oneOf(['info', 'warning', 'error'] as const), text: str, action: optional(action) }),
});
export type ChatItem = Infer<typeof chatItem>;
export type ChatItemKind = ChatItem['kind'];

/**
 * How full the model's context is: `usedTokens` of `contextWindow`, from the provider's count of
 * the last request, or estimated (about four characters a token) when `estimated`.
 */
const contextBudget = object({ usedTokens: int(0), contextWindow: int(1), estimated: bool });
export type ChatContextBudget = Infer<typeof contextBudget>;

const conversationSummary = object({ id: str, title: str, updatedAt: num, messageCount: int(0) });
export type ChatConversationSummary = Infer<typeof conversationSummary>;

/** `id` is `provider:model`, unique in the list. */
const modelChoice = object({ id: str, label: str });
export type ChatModelChoice = Infer<typeof modelChoice>;

/** The whole panel state: what `init` carries and what a reopened panel shows. */
const viewState = object({
  conversationId: str,
  items: array(chatItem),
  conversations: array(conversationSummary),
  models: array(modelChoice),
  selectedModel: optional(str),
  busy: bool,
  /** Prompts an empty conversation offers; a click sends one. */
  suggestions: optional(array(str)),
  /** What goes with the next message (chips above the message box). */
  attachments: optional(array(attachmentChip)),
  budget: optional(contextBudget),
  /** Questions servers are asking now. */
  asks: optional(array(chatAsk)),
});
export type ChatViewState = Infer<typeof viewState>;

const seq = int(0);
const text = boundedStr(MAX_WEBVIEW_TEXT);

/** The id of the page's element (JSON, never run) that carries its first `init`, so it renders before any message. */
export const INITIAL_STATE_ID = 'mcp-initial-state';

/** Every request the webview makes: what it sends, and what the host answers. */
export const WEBVIEW_REQUESTS = {
  send: { params: object({ text }), answer: none },
  /** Runs the last message again (Retry), or an edited text in its place: the last turn is replaced. */
  resend: { params: object({ text: optional(text) }), answer: none },
  stop: { params: object({}), answer: none },
  /** "Cancel Task" on a card whose call runs as a task: `tasks/cancel` to its server. */
  cancelTask: { params: object({ itemId: str }), answer: none },
  newChat: { params: object({}), answer: none },
  openConversation: { params: object({ id: str }), answer: none },
  deleteConversation: { params: object({ id: str }), answer: none },
  answerPermission: { params: object({ callId: str, choice: oneOf(PERMISSION_CHOICES), reason: optional(text) }), answer: none },
  /** "Add Context...": the host asks what to attach (active file, selection, a file, problems, a server's resource). */
  addContext: { params: object({}), answer: none },
  removeContext: { params: object({ id: str }), answer: none },
  /** Opens the change a waiting write or edit would make in the editor's diff view. */
  previewChange: { params: object({ callId: str }), answer: none },
  selectModel: { params: object({ model: str }), answer: none },
  action: { params: object({ action: oneOf(CHAT_ACTIONS) }), answer: none },
  copy: { params: object({ text }), answer: none },
  /** A code block into the editor at its cursor (replacing the selection). */
  insert: { params: object({ text }), answer: none },
  /** Opens a kept result (a tool card's "Open in Editor"). */
  openResult: { params: object({ handle: str }), answer: none },
  /** Summarises the earlier turns through the current model ("Compact"). */
  compact: { params: object({}), answer: none },
  answerAsk: { params: answerAskParams, answer: answerAskAnswer },
  /** What an app card renders (MCP Apps): read from its server again each time. */
  appOpen: { params: object({ itemId: str }), answer: appView },
  /** An app calls a tool of its own server: the permission gate and the call pipeline, like the model's calls. Answers the CallToolResult. */
  appCallTool: { params: object({ itemId: str, name: str, arguments: optional(any) }), answer: any },
  /** An app asks to open a link: the user is asked first. */
  appOpenLink: { params: object({ itemId: str, url: boundedStr(8192) }), answer: object({ opened: bool }) },
  /** An app sends a message to the conversation (shown as the app's); it starts a turn. */
  appMessage: { params: object({ itemId: str, text }), answer: none },
  /** An app updates what the model knows of it: kept as context labelled with the app, sent with the next message. */
  appContext: { params: object({ itemId: str, text }), answer: none },
  /** A log line of an app. */
  appLog: { params: object({ itemId: str, level: str, text }), answer: none },
  ...CONTEXT_REQUESTS,
} as const satisfies Readonly<Record<string, { params: Check<object>; answer: Check<unknown> }>>;

export type WebviewRequestType = keyof typeof WEBVIEW_REQUESTS;
export type WebviewRequestParams<K extends WebviewRequestType> = Infer<(typeof WEBVIEW_REQUESTS)[K]['params']>;
export type WebviewRequestAnswer<K extends WebviewRequestType> = Infer<(typeof WEBVIEW_REQUESTS)[K]['answer']>;

/** One request as the webview sends it: its type, its sequence number, its parameters. */
export type WebviewRequestMessage = { [K in WebviewRequestType]: { readonly type: K; readonly seq: number } & WebviewRequestParams<K> }[WebviewRequestType];
/** A request without its sequence number, as the webview's client builds it. */
export type WebviewRequest = { [K in WebviewRequestType]: { readonly type: K } & WebviewRequestParams<K> }[WebviewRequestType];

/** Webview to host. */
export type WebviewMessage = { readonly type: 'ready' } | WebviewRequestMessage;

/** The host's answers, one function per request type. A thrown error's message goes back to the panel. */
export type WebviewRequestHandlers = { [K in WebviewRequestType]: (params: WebviewRequestParams<K>) => Promise<WebviewRequestAnswer<K>> };

export const webviewMessage: Check<WebviewMessage> = union('type', {
  ready: object({}),
  ...(Object.fromEntries(
    Object.entries(WEBVIEW_REQUESTS).map(([type, r]) => [type, (v: unknown, p: string) => object({ seq })(v, p) ?? r.params(v, p)]),
  ) as Record<WebviewRequestType, Check<object>>),
}) as Check<WebviewMessage>;

/** Host to webview. */
export const hostMessage = union('type', {
  init: object({ state: viewState }),
  /** Adds items, or replaces those whose id is already shown. */
  upsert: object({ items: array(chatItem) }),
  /** Streamed text for an assistant item (created empty by an earlier upsert). */
  append: object({ id: str, delta: str }),
  busy: object({ busy: bool }),
  models: object({ models: array(modelChoice), selectedModel: optional(str) }),
  conversations: object({ conversations: array(conversationSummary) }),
  /** The chips of what goes with the next message changed. */
  attachments: object({ attachments: array(attachmentChip) }),
  /** Put the caret in the message box ("MCP: Open Chat"). */
  focusInput: object({}),
  budget: object({ budget: optional(contextBudget) }),
  /** The questions servers are asking now (replaces the previous list). */
  asks: object({ asks: array(chatAsk) }),
  /** The answer to request `seq`: its value (checked against the request's answer type), or why it failed. */
  response: object({ seq, ok: bool, error: optional(str), value: optional(any) }),
});
export type HostMessage = Infer<typeof hostMessage>;

export type { Result as ParseResult } from './result';
