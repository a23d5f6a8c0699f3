import type { CallToolResult, ReadResourceResult, ServerCapabilities, Tool } from '@modelcontextprotocol/client';
import { sandboxPageUrl } from '../apps/AppSandboxServer';
import { isAppCallable, isAppOnlyTool, readUiResource, toolUiOf, type ToolUi } from '../apps/appResource';
import type { AgentCallTool } from '../agent/ModelToolCalls';
import type { AgentEvent } from '../agent/types';
import type { IAuditSink } from '../permissions/AuditLog';
import type { ICallDecider } from '../permissions/types';
import type { HarnessTool } from '../tools/types';
import type { ChatAppView, ChatItem, WebviewRequestHandlers } from '../../shared/chatProtocol';
import { ChatRequestError } from './ChatRequestError';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

/** The requests of an app card (MCP Apps). */
export type AppRequestType = 'appOpen' | 'appCallTool' | 'appOpenLink' | 'appMessage' | 'appContext' | 'appLog';

/** What the apps need of the servers (the harness). */
export interface IAppServers {
  /** A configured server's state, capabilities and tools as it listed them. */
  snapshot(server: string): { readonly state: { readonly kind: string }; readonly capabilities?: ServerCapabilities; readonly tools: readonly Tool[] } | undefined;
  /** Every tool under its exposed name. */
  tools(): readonly HarnessTool[];
  readResource(server: string, uri: string, options?: { signal?: AbortSignal }): Promise<ReadResourceResult>;
  /** Resolves once no server is starting or reconnecting (a reopened window's servers are). */
  whenSettled(): Promise<void>;
}

/** What the apps need of the editor. */
export interface IChatAppsHost {
  /** The sandbox page's URL, as the panel can reach it (the server starts on first use). */
  sandboxUrl(): Promise<string>;
  /** Asks the user whether to open `url`, which the app `app` asks for; opens it if they agree. */
  openLink(url: string, app: string): Promise<boolean>;
}

/** What the apps need of the chat they live in. */
export interface IChatAppsSession {
  /** The item `id` of the open conversation. */
  item(id: string): ChatItem | undefined;
  conversationId(): string;
  /** A call an app made, as its card shows it. */
  callEvent(event: AgentEvent): void;
  /** A message the app sends to the conversation: shown as the app's, and it starts a turn. */
  message(text: string, from: string): void;
  /** Keeps `text` as context labelled `label` for the next message (empty text drops it). */
  context(key: string, label: string, text: string): void;
}

export interface ChatAppsOptions {
  readonly servers: IAppServers;
  readonly host: IChatAppsHost;
  /** The harness's pipeline, and the chat's gate in front of it: an app's calls are the model's calls. */
  readonly call: AgentCallTool;
  readonly decider: ICallDecider;
  readonly audit?: IAuditSink;
  log(line: string): void;
}

/** The longest result kept with a card (as JSON) for an app to be fed again after a reload. */
export const MAX_KEPT_APP_RESULT_CHARS = 512 * 1024;

/**
 * The host side of MCP Apps in a chat. Which calls get an app (their tool declares a `ui://`
 * resource), what an app card renders (its resource, read and checked each time, with the call's
 * arguments and result), and what an app may ask, each by the host's rules: tool calls of its own
 * server only, through the same gate and pipeline as the model's (a card that names the app shows
 * whenever the gate asks or the call fails); links only after the user agrees; messages shown as
 * the app's; context kept under the app's name. An app is identified by its card's item, never by
 * what it says about itself.
 */
export class ChatApps {
  readonly requests: Pick<WebviewRequestHandlers, AppRequestType>;
  private readonly _stop = new AbortController();

  constructor(private readonly _o: ChatAppsOptions, private readonly _session: IChatAppsSession) {
    this.requests = {
      appOpen: async ({ itemId }) => this.open(itemId),
      appCallTool: async ({ itemId, name, arguments: args }) => this.callTool(itemId, name, args),
      appOpenLink: async ({ itemId, url }) => ({ opened: await this._openLink(itemId, url) }),
      appMessage: async ({ itemId, text }) => this._session.message(text, appName(this._appItem(itemId))),
      appContext: async ({ itemId, text }) => {
        const item = this._appItem(itemId);
        this._session.context(`app:${itemId}`, `${appName(item)} (app)`, text);
      },
      appLog: async ({ itemId, level, text }) => this._o.log(`app ${appName(this._appItem(itemId))} [${level}]: ${text.slice(0, 2000)}`),
    };
  }

  /** The UI `tool` declares, if any. */
  uiOf(tool: HarnessTool): ToolUi | undefined {
    const listed = this._listed(tool);
    return listed && toolUiOf(listed);
  }

  /** Whether only apps may call `tool`: the model is never offered it. */
  isAppOnly(tool: HarnessTool): boolean {
    const listed = this._listed(tool);
    return listed !== undefined && isAppOnlyTool(listed);
  }

  /** What the card `itemId` renders: its server's resource read again and checked, and what the app is fed. */
  async open(itemId: string): Promise<ChatAppView> {
    const item = this._appItem(itemId);
    const server = item.server!;
    if (['starting', 'reconnecting'].includes(this._o.servers.snapshot(server)?.state.kind ?? '')) await this._o.servers.whenSettled();
    const snapshot = this._o.servers.snapshot(server);
    if (snapshot?.state.kind !== 'running') {
      throw new ChatRequestError(`Cannot show the app: server "${server}" is ${snapshot ? snapshot.state.kind : 'no longer configured'}. Start it, then reopen the app.`);
    }
    const read = await readUiResource(server, item.app!.resourceUri, {
      offersResources: () => snapshot.capabilities?.resources !== undefined,
      read: (uri) => this._o.servers.readResource(server, uri, { signal: this._stop.signal }),
    });
    if (!read.ok) throw new ChatRequestError(read.error);
    const resource = read.value;
    const tool = snapshot.tools.find((t) => t.name === item.tool) ?? { name: item.tool ?? item.toolName, inputSchema: { type: 'object' } };
    return {
      html: resource.html,
      sandboxUrl: sandboxPageUrl(await this._o.host.sandboxUrl(), resource.csp),
      csp: resource.csp,
      permissions: resource.permissions,
      ...(resource.prefersBorder !== undefined ? { prefersBorder: resource.prefersBorder } : {}),
      tool,
      toolInput: item.arguments ?? {},
      ...(item.app!.result !== undefined ? { toolResult: item.app!.result } : {}),
      notes: [...resource.notes, ...(item.app!.result === undefined ? ['The result of its call was too large to keep: the app shows it without.'] : [])],
    };
  }

  /**
   * A call the app `itemId` makes: a tool of the app's own server that apps may call, through the
   * chat's gate and the pipeline. Anything else is refused without a card. Answers the
   * CallToolResult the app reads.
   */
  async callTool(itemId: string, name: string, args: unknown): Promise<CallToolResult> {
    const item = this._appItem(itemId);
    const server = item.server!;
    const listed = this._o.servers.snapshot(server)?.tools.find((t) => t.name === name);
    const tool = listed && this._o.servers.tools().find((t) => t.server === server && t.originalName === name);
    if (!listed || !tool) return refusal(`The app may call only tools of its own server "${server}", which offers no tool "${name}" now.`);
    if (!isAppCallable(listed)) return refusal(`"${name}" is for the model only: apps may not call it.`);
    const caller = `the app of ${appName(item)}`;
    let shown = false;
    const outcome = await this._o.call(
      { name: tool.name, arguments: args ?? {} },
      {
        decider: this._o.decider,
        ...(this._o.audit ? { audit: this._o.audit } : {}),
        conversationId: this._session.conversationId(),
        signal: this._stop.signal,
        onEvent: (e) => {
          // A call the gate lets through shows nothing (apps may poll); one it asks about, or that fails, gets a card.
          shown ||= e.state === 'waiting_for_approval' || e.state === 'error' || e.state === 'denied';
          if (shown) this._session.callEvent({ type: 'tool_call', modelCallId: `app:${itemId}`, caller, ...e });
        },
      },
    );
    if (outcome.state === 'done' || outcome.errorKind === 'tool_error') {
      return { content: [...outcome.content], ...(outcome.structuredContent ? { structuredContent: { ...outcome.structuredContent } } : {}), ...(outcome.isError ? { isError: true } : {}) };
    }
    return refusal(outcome.text);
  }

  /** Stops the apps' calls in flight (the chat is closing). */
  dispose(): void {
    this._stop.abort();
  }

  private async _openLink(itemId: string, url: string): Promise<boolean> {
    const item = this._appItem(itemId);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (!['http:', 'https:', 'mailto:'].includes(parsed.protocol)) return false;
    return this._o.host.openLink(parsed.toString(), appName(item));
  }

  /** The app card `itemId` of the open conversation, or a request error saying it is gone. */
  private _appItem(itemId: string): ToolItem {
    const item = this._session.item(itemId);
    if (item?.kind !== 'tool' || !item.app || item.app.error !== undefined || item.server === undefined) {
      throw new ChatRequestError('This app is no longer in the open conversation.');
    }
    return item;
  }

  private _listed(tool: HarnessTool): Tool | undefined {
    return tool.server === undefined ? undefined : this._o.servers.snapshot(tool.server)?.tools.find((t) => t.name === tool.originalName);
  }
}

/** The result to keep with a card for its app: the call's result, unless it is too large. */
export function keptAppResult(result: NonNullable<Extract<AgentEvent, { type: 'tool_call' }>['result']>): unknown {
  const kept = { content: result.content, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}), ...(result.isError ? { isError: true } : {}) };
  try {
    return JSON.stringify(kept).length <= MAX_KEPT_APP_RESULT_CHARS ? kept : undefined;
  } catch {
    return undefined;
  }
}

/** An app's name on the cards: its tool's title, else its name. */
function appName(item: ToolItem): string {
  return `"${item.title ?? item.tool ?? item.toolName}"`;
}

function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
