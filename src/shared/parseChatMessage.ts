import {
  CHAT_ACTIONS,
  PERMISSION_CHOICES,
  TOOL_CALL_STATES,
  type HostMessage,
  type ParseResult,
  type WebviewMessage,
} from './chatProtocol';
import { fail, ok } from './result';
import { any, array, bool, int, num, object, oneOf, optional, str, union, type Check } from './shape';

/** Longest text a webview message may carry (a pasted file is fine, a runaway loop is not). */
export const MAX_WEBVIEW_TEXT = 1_000_000;

const seq = int(0);
const boundedStr: Check = (v, p) => str(v, p) ?? ((v as string).length > MAX_WEBVIEW_TEXT ? `${p} is longer than ${MAX_WEBVIEW_TEXT} characters` : undefined);

const warning = object({ where: str, kind: str, excerpt: str });
const annotations = optional(
  object({ readOnlyHint: optional(bool), destructiveHint: optional(bool), idempotentHint: optional(bool), openWorldHint: optional(bool) }),
);
const action = object({ id: oneOf(CHAT_ACTIONS), label: str });

const item = union('kind', {
  user: object({ id: str, text: str }),
  assistant: object({ id: str, text: str, error: optional(str) }),
  tool: object({
    id: str,
    toolName: str,
    server: optional(str),
    tool: optional(str),
    title: optional(str),
    arguments: any,
    state: oneOf(TOOL_CALL_STATES),
    progress: optional(object({ progress: num, total: optional(num), message: optional(str) })),
    output: optional(str),
    durationMs: optional(num),
    permission: optional(
      object({ title: optional(str), description: str, annotations, warnings: array(warning), changedSinceApproval: optional(str) }),
    ),
    warnings: optional(array(warning)),
  }),
  usage: object({ id: str, inputTokens: optional(num), outputTokens: optional(num) }),
  notice: object({ id: str, level: oneOf(['info', 'warning', 'error']), text: str, action: optional(action) }),
});

const summary = object({ id: str, title: str, updatedAt: num, messageCount: int(0) });
const model = object({ id: str, label: str });

const hostMessage = union('type', {
  init: object({
    state: object({
      conversationId: str,
      items: array(item),
      conversations: array(summary),
      models: array(model),
      selectedModel: optional(str),
      busy: bool,
    }),
  }),
  upsert: object({ items: array(item) }),
  append: object({ id: str, delta: str }),
  busy: object({ busy: bool }),
  models: object({ models: array(model), selectedModel: optional(str) }),
  conversations: object({ conversations: array(summary) }),
  response: object({ seq, ok: bool, error: optional(str) }),
});

const webviewMessage = union('type', {
  ready: object({}),
  send: object({ seq, text: boundedStr }),
  stop: object({ seq }),
  newChat: object({ seq }),
  openConversation: object({ seq, id: str }),
  deleteConversation: object({ seq, id: str }),
  answerPermission: object({ seq, callId: str, choice: oneOf(PERMISSION_CHOICES), reason: optional(boundedStr) }),
  selectModel: object({ seq, model: str }),
  action: object({ seq, action: oneOf(CHAT_ACTIONS) }),
  copy: object({ seq, text: boundedStr }),
});

/** Checks a message from the webview. Anything else (unknown type, wrong field) is an error naming the field. */
export function parseWebviewMessage(data: unknown): ParseResult<WebviewMessage> {
  return parse<WebviewMessage>(webviewMessage, data);
}

/** Checks a message from the extension host. */
export function parseHostMessage(data: unknown): ParseResult<HostMessage> {
  return parse<HostMessage>(hostMessage, data);
}

function parse<T>(check: Check, data: unknown): ParseResult<T> {
  const problem = check(data, 'message');
  return problem ? fail(problem) : ok(data as T);
}
