import {
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Implementation,
  type ServerCapabilities,
  type ServerContext,
  type ServerNotifier,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import { DisposableStore, toDisposable, type IDisposable } from '../base/lifecycle';
import { DEFAULT_MAX_TOTAL_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpHarness } from '../McpHarness';
import { McpCallError } from '../mcp/McpCallError';
import type { McpConnection } from '../mcp/McpConnection';
import type { McpCallOptions } from '../mcp/McpSession';
import type { AuditClient, AuditMethod, IAuditSink } from '../permissions/AuditLog';
import type { PermissionDecider } from '../permissions/types';
import type { ExposedTool } from '../tools/types';
import { HARNESS_VERSION } from '../version';
import { gatewayUri, ServeCatalog } from './ServeCatalog';
import { ServeExposure } from './ServeExposure';
import { ServeSubscriptions, type IResourceSubscriber } from './ServeSubscriptions';
import { errorMessage } from '../base/errors';

/** Options of {@link HarnessMcpServer}. */
export interface HarnessMcpServerOptions {
  /** Names or patterns offered besides the defaults. */
  readonly expose?: readonly string[];
  /** Names or patterns never offered; wins over `expose`. */
  readonly deny?: readonly string[];
  /** Also offer every configured server's tools, resources and prompts. */
  readonly gateway?: boolean;
  /** Records every call a client makes, with the client's identity. */
  readonly audit?: IAuditSink;
  /** Told about failures worth a log line (a notification that could not be sent). */
  log?(message: string): void;
}

/** What the listener knows of a client before any MCP message: how it is connected. */
export type ServeConnectionInfo = Pick<AuditClient, 'transport' | 'remoteAddress' | 'sessionId'>;

/** One connected 2025-era client: its SDK server, and a way to cancel its calls by request id. */
export interface HarnessServeSession extends IDisposable {
  readonly server: Server;
  /** Cancels calls of this session whose JSON-RPC ids are given (their HTTP request went away). */
  cancelRequests(ids: readonly (string | number)[]): void;
}

const INSTRUCTIONS =
  'MCP Harness: tools to read, search (and, when allowed, change) the files of this workspace, and with the gateway ' +
  'the tools of every MCP server configured for it, named mcp__<server>__<tool>.';

/** The exposure rules (`--expose`, `--deny`, the serve section) decided what a client may call. */
const EXPOSURE: PermissionDecider = { by: 'rule', rule: 'serve exposure' };

/**
 * MCP Harness as an MCP server: offers the harness's tools (and with the gateway its servers'
 * resources and prompts) to other MCP clients, under the exposure rules, and keeps every client
 * told of changes. One SDK `Server` per 2025-era session or per 2026-07-28 request (the SDK's
 * serving entries decide which); the harness is shared.
 */
export class HarnessMcpServer implements IDisposable {
  readonly catalog: ServeCatalog;
  private readonly _store = new DisposableStore();
  /** Instances that outlive one request (2025-era sessions, a stdio connection): told of changes directly. */
  private readonly _live = new Set<LiveServer>();
  /** Serving entries whose 2026-07-28 clients hear of changes through `subscriptions/listen`. */
  private readonly _notifiers = new Set<ServerNotifier>();
  private readonly _subscriptions: ServeSubscriptions;

  constructor(
    private readonly _harness: McpHarness,
    private readonly _options: HarnessMcpServerOptions = {},
  ) {
    const exposure = new ServeExposure({ expose: _options.expose ?? [], deny: _options.deny ?? [], gateway: _options.gateway ?? false });
    this.catalog = this._store.add(new ServeCatalog(_harness, exposure));
    this._store.add(this.catalog.onDidChange((kind) => this._notifyAll(kind)));
    this._subscriptions = this._store.add(new ServeSubscriptions((m) => _options.log?.(m)));
  }

  /** Live sessions (2025-era, or a stdio connection). */
  get sessionCount(): number {
    return this._live.size;
  }

  /**
   * A new SDK server for one client. `live`: it lasts a connection and is told of list changes
   * itself; otherwise it answers one request and changes reach its client another way.
   */
  createServer(connection: ServeConnectionInfo, live: boolean): Server {
    return this._create(connection, live).server;
  }

  /** Creates the server for one 2025-era client session and connects it to `transport`. */
  async connect(transport: Transport, connection: ServeConnectionInfo): Promise<HarnessServeSession> {
    const entry = this._create(connection, true);
    await entry.server.connect(transport);
    return {
      server: entry.server,
      cancelRequests: (ids) => {
        for (const id of ids) entry.inFlight.get(id)?.abort();
      },
      dispose: () => void entry.server.close().catch(() => undefined),
    };
  }

  private _create(connection: ServeConnectionInfo, live: boolean): LiveServer {
    const capabilities: ServerCapabilities = { tools: { listChanged: true } };
    if (this._options.gateway) {
      capabilities.resources = { listChanged: true, subscribe: true };
      capabilities.prompts = { listChanged: true };
    }
    const server = new Server({ name: 'mcp-harness', title: 'MCP Harness', version: HARNESS_VERSION }, { capabilities, instructions: INSTRUCTIONS });
    const subscriber: IResourceSubscriber = {
      resourceUpdated: (uri) =>
        void server.sendResourceUpdated({ uri }).catch((err: unknown) => this._options.log?.(`could not tell a client that ${uri} changed: ${errorMessage(err)}`)),
    };
    const entry: LiveServer = { server, inFlight: new Map(), subscriber };
    this._registerHandlers(entry, connection);
    if (live) {
      this._live.add(entry);
      const previous = server.onclose;
      server.onclose = () => {
        previous?.();
        this._live.delete(entry);
        this._subscriptions.drop(subscriber);
        for (const controller of entry.inFlight.values()) controller.abort();
      };
    }
    return entry;
  }

  /**
   * Relays the resource subscriptions a 2026-07-28 client asked for on a `subscriptions/listen`
   * stream (`resourceSubscriptions`, gateway URIs) to the servers that own them, until disposed.
   * Updates reach `subscriber` by gateway URI; the SDK's listen routing delivers them on the stream.
   */
  listenResources(subscriber: IResourceSubscriber, uris: readonly string[], client: AuditClient): IDisposable {
    // Without the gateway there are no resources, and the SDK honours no resource subscriptions.
    if (!this._options.gateway) return toDisposable(() => undefined);
    for (const uri of uris) {
      this._subscribe(subscriber, 'resources/subscribe', uri, client, new AbortController().signal).catch((err: unknown) =>
        this._options.log?.(`subscriptions/listen: could not subscribe to ${uri}: ${errorMessage(err)}`),
      );
    }
    return toDisposable(() => this._subscriptions.drop(subscriber));
  }

  /** Tells a serving entry's 2026-07-28 subscribers of changes until disposed. */
  addNotifier(notifier: ServerNotifier): IDisposable {
    this._notifiers.add(notifier);
    return toDisposable(() => this._notifiers.delete(notifier));
  }

  dispose(): void {
    for (const { server } of [...this._live]) void server.close().catch(() => undefined);
    this._live.clear();
    this._notifiers.clear();
    this._store.dispose();
  }

  private _registerHandlers(entry: LiveServer, connection: ServeConnectionInfo): void {
    const { server } = entry;
    const identity = (ctx: ServerContext): AuditClient => {
      const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
      const info = (envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.getClientVersion();
      const protocolVersion = (envelope?.[PROTOCOL_VERSION_META_KEY] as string | undefined) ?? server.getNegotiatedProtocolVersion();
      const sessionId = ctx.sessionId ?? connection.sessionId;
      return {
        ...connection,
        ...(sessionId ? { sessionId } : {}),
        ...(info ? { name: info.name, version: info.version } : {}),
        ...(protocolVersion ? { protocolVersion } : {}),
      };
    };
    const tracked = async <T>(ctx: ServerContext, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      const controller = new AbortController();
      const abort = () => controller.abort();
      ctx.mcpReq.signal.addEventListener('abort', abort, { once: true });
      entry.inFlight.set(ctx.mcpReq.id, controller);
      try {
        return await run(controller.signal);
      } finally {
        ctx.mcpReq.signal.removeEventListener('abort', abort);
        entry.inFlight.delete(ctx.mcpReq.id);
      }
    };

    server.setRequestHandler('tools/list', () => ({ tools: this.catalog.tools().map(toMcpTool) }));
    server.setRequestHandler('tools/call', (request, ctx) =>
      tracked(ctx, async (signal) => {
        const token = request.params._meta?.progressToken ?? ctx.mcpReq._meta?.progressToken;
        const result = await this._callTool(request.params, identity(ctx), signal, (progress) => {
          if (token === undefined) return;
          void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, ...progress } }).catch(() => undefined);
        });
        return server.projectCallToolResult(result, undefined);
      }),
    );
    if (!this._options.gateway) return;
    server.setRequestHandler('resources/list', () => ({ resources: this.catalog.resources().map((r) => r.exposed) }));
    server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [...this.catalog.resourceTemplates()] }));
    server.setRequestHandler('resources/read', (request, ctx) => tracked(ctx, (signal) => this._readResource(request.params.uri, identity(ctx), signal)));
    server.setRequestHandler('resources/subscribe', (request, ctx) =>
      tracked(ctx, (signal) => this._subscribe(entry.subscriber, 'resources/subscribe', request.params.uri, identity(ctx), signal)),
    );
    server.setRequestHandler('resources/unsubscribe', (request, ctx) =>
      tracked(ctx, (signal) => this._subscribe(entry.subscriber, 'resources/unsubscribe', request.params.uri, identity(ctx), signal)),
    );
    server.setRequestHandler('prompts/list', () => ({ prompts: this.catalog.prompts().map((p) => p.exposed) }));
    server.setRequestHandler('prompts/get', (request, ctx) =>
      tracked(ctx, (signal) => this._getPrompt(request.params.name, request.params.arguments ?? {}, identity(ctx), signal)),
    );
  }

  private async _callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    client: AuditClient,
    signal: AbortSignal,
    onProgress: (p: { progress: number; total?: number; message?: string }) => void,
  ): Promise<CallToolResult> {
    const args = params.arguments ?? {};
    const resolved = this.catalog.resolveTool(params.name);
    const audit = this._options.audit;
    if (!resolved) {
      audit?.denied({ client, method: 'tools/call', tool: params.name, arguments: args, decider: EXPOSURE, reason: 'not offered' });
      // Unknown and denied look the same to the client: a denied tool does not exist for it.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${params.name}"`);
    }
    const server = resolved.kind === 'mcp' ? resolved.server : undefined;
    const id = audit?.start({ client, method: 'tools/call', tool: params.name, server, arguments: args, decider: EXPOSURE });
    const result = await this._harness.callTool(params.name, args, { signal, onProgress });
    const outcome = signal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok';
    if (id !== undefined) audit?.end(id, { outcome, outputChars: result.text.length, ...(result.isError ? { error: result.text.slice(0, 500) } : {}) });
    return {
      content: [...result.content] as CallToolResult['content'],
      ...(result.structuredContent ? { structuredContent: { ...result.structuredContent } } : {}),
      ...(result.isError ? { isError: true } : {}),
    };
  }

  private async _readResource(uri: string, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolveResource(uri);
    return this._relay(client, 'resources/read', uri, target?.server, { uri }, signal, async (connection) => {
      const result = await connection.request({ method: 'resources/read', params: { uri: target!.uri } }, this._callOptions(connection, signal));
      return { ...result, contents: result.contents.map((c) => ({ ...c, uri: gatewayUri(target!.server, c.uri) })) };
    });
  }

  /** Relays a 2025-era client's (un)subscription to the server that owns the resource. */
  private async _subscribe(subscriber: IResourceSubscriber, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolveResource(uri);
    return this._relay(client, method, uri, target?.server, { uri }, signal, async (connection) => {
      const options = this._callOptions(connection, signal);
      if (method === 'resources/subscribe') await this._subscriptions.subscribe(subscriber, connection, target!.uri, options);
      else await this._subscriptions.unsubscribe(subscriber, connection, target!.uri, options);
      return {};
    });
  }

  private async _getPrompt(name: string, args: Record<string, string>, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolvePrompt(name);
    return this._relay(client, 'prompts/get', name, target?.server, args, signal, (connection) =>
      connection.request({ method: 'prompts/get', params: { name: target!.prompt, arguments: args } }, this._callOptions(connection, signal)),
    );
  }

  /** Audits and forwards a resource or prompt request to its server, mapping failures to MCP errors. */
  private async _relay<T>(
    client: AuditClient,
    method: AuditMethod,
    name: string,
    server: string | undefined,
    args: unknown,
    signal: AbortSignal,
    run: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    const audit = this._options.audit;
    const connection = server !== undefined ? this._harness.manager.get(server) : undefined;
    if (!connection) {
      audit?.denied({ client, method, tool: name, arguments: args, decider: EXPOSURE, reason: 'not offered' });
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${method === 'prompts/get' ? 'unknown prompt' : 'unknown resource'} "${name}"`);
    }
    const id = audit?.start({ client, method, tool: name, server, arguments: args, decider: EXPOSURE });
    try {
      const result = await run(connection);
      if (id !== undefined) audit?.end(id, { outcome: 'ok', outputChars: JSON.stringify(result).length });
      return result;
    } catch (err) {
      // What a server said may quote a secret of its definition: never relayed as it is.
      const message = this._harness.maskSecrets(errorMessage(err));
      if (id !== undefined) audit?.end(id, { outcome: signal.aborted ? 'cancelled' : 'error', outputChars: 0, error: message });
      if (err instanceof McpCallError) throw new ProtocolError(err.code ?? ProtocolErrorCode.InternalError, `${server}: ${message}`);
      throw err;
    }
  }

  private _callOptions(connection: McpConnection, signal: AbortSignal): McpCallOptions {
    const timeoutMs = connection.definition.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return { signal, timeoutMs, maxTotalTimeoutMs: Math.max(timeoutMs, DEFAULT_MAX_TOTAL_TIMEOUT_MS) };
  }

  private _notifyAll(kind: 'tools' | 'resources' | 'prompts'): void {
    for (const { server } of this._live) {
      // A 2025-era client hears of changes once initialized; a 2026-07-28 stdio client through its listen stream.
      if (!server.transport || !server.getNegotiatedProtocolVersion()) continue;
      const send = kind === 'tools' ? server.sendToolListChanged() : kind === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged();
      send.catch((err: unknown) => this._options.log?.(`could not tell a client that the ${kind} changed: ${errorMessage(err)}`));
    }
    for (const notifier of this._notifiers) {
      if (kind === 'tools') notifier.toolsChanged();
      else if (kind === 'resources') notifier.resourcesChanged();
      else notifier.promptsChanged();
    }
  }
}

interface LiveServer {
  readonly server: Server;
  readonly inFlight: Map<string | number, AbortController>;
  readonly subscriber: IResourceSubscriber;
}

function toMcpTool(tool: ExposedTool): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/** The client a 2026-07-28 request names in its `_meta` (for requests the SDK answers itself, such as `subscriptions/listen`). */
export function clientFromRequestMeta(params: unknown, connection: ServeConnectionInfo): AuditClient {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const info = meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const protocolVersion = meta?.[PROTOCOL_VERSION_META_KEY];
  return {
    ...connection,
    ...(info ? { name: info.name, version: info.version } : {}),
    ...(typeof protocolVersion === 'string' ? { protocolVersion } : {}),
  };
}

/** The `resourceSubscriptions` of a `subscriptions/listen` request, if it is one. */
export function listenedResources(message: unknown): { id: string | number; uris: string[] } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
  if (m?.method !== 'subscriptions/listen' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return undefined;
  const uris = m.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  const strings = uris.filter((u): u is string => typeof u === 'string');
  return strings.length > 0 ? { id: m.id, uris: strings } : undefined;
}
