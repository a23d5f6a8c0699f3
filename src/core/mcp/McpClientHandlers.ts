import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/client/ext/skills';
import type {
  Client,
  ClientCapabilities,
  CreateMessageRequest,
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitRequest,
  ElicitResult,
  LoggingLevel,
  Root,
} from '@modelcontextprotocol/client';
import { clientCapabilities as answeringCapabilities } from '../requests/clientCapabilities';
import { TASKS_EXTENSION } from '../tasks/taskTypes';
import type { McpListKind } from './McpLists';

/** Answers that a server may ask of the client. Absent handlers mean the capability is not declared. */
export interface IMcpClientHandlers {
  /** Answers `elicitation/create` (form mode, and URL mode with `elicitUrl`). */
  elicit?(server: string, params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  readonly elicitUrl?: boolean;
  /** Answers `sampling/createMessage` (with tools when `samplingTools`). */
  sample?(server: string, params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult | CreateMessageResultWithTools>;
  readonly samplingTools?: boolean;
  /** Workspace roots offered through `roots/list`. */
  roots?(): readonly Root[];
  /** The host renders MCP Apps (the `io.modelcontextprotocol/ui` extension): declared so servers offer their UI tools. */
  readonly apps?: boolean;
}

/** Where the session takes what a server tells it unasked. */
export interface IMcpNotificationSink {
  /** A list changed on the server (a `list_changed` notification). */
  listChanged(kind: McpListKind): void;
  /** A subscribed resource changed (`notifications/resources/updated`, the server's URI). */
  resourceUpdated(uri: string): void;
  /** A log message (`notifications/message`). */
  serverLog(level: LoggingLevel, text: string): void;
}

/** The capabilities a client with `handlers` declares: only what the host can really answer. */
export function clientCapabilities(handlers: IMcpClientHandlers): ClientCapabilities {
  const capabilities: ClientCapabilities = answeringCapabilities(handlers);
  // Server skills (SEP-2640): listed and loaded on request, each file checked against its manifest.
  // Tasks (SEP-2663): a 2026-07-28 server may answer a tool call with a task, which is followed to its end.
  capabilities.extensions = { ...capabilities.extensions, [SKILLS_EXTENSION_ID]: {}, [TASKS_EXTENSION]: {} };
  return capabilities;
}

/**
 * Registers every handler of a client for `server`: the requests it answers (which, on a
 * 2026-07-28 server, also answer the `input_required` rounds the SDK retries a request with) and
 * the notifications it listens to.
 */
export function registerClientHandlers(client: Client, server: string, handlers: IMcpClientHandlers, sink: IMcpNotificationSink): void {
  if (handlers.roots) {
    const roots = handlers.roots;
    client.setRequestHandler('roots/list', () => ({ roots: [...roots()] }));
  }
  if (handlers.elicit) {
    const elicit = handlers.elicit;
    client.setRequestHandler('elicitation/create', (request, ctx) => elicit(server, request.params as ElicitRequest['params'], ctx.mcpReq.signal));
  }
  const sample = handlers.sample;
  if (sample) client.setRequestHandler('sampling/createMessage', (request, ctx) => sample(server, request.params, ctx.mcpReq.signal));
  client.setNotificationHandler('notifications/tools/list_changed', () => sink.listChanged('tools'));
  client.setNotificationHandler('notifications/resources/list_changed', () => sink.listChanged('resources'));
  client.setNotificationHandler('notifications/prompts/list_changed', () => sink.listChanged('prompts'));
  client.setNotificationHandler('notifications/resources/updated', (n) => sink.resourceUpdated(n.params.uri));
  client.setNotificationHandler('notifications/message', (n) => {
    const { level, logger, data } = n.params;
    const text = typeof data === 'string' ? data : JSON.stringify(data);
    sink.serverLog(level, logger ? `[${logger}] ${text}` : text);
  });
}
