// Just over 300 lines: one SDK server per connected client with every MCP method the harness serves
// (tools, resources, prompts, completions, subscriptions) registered in one place, so what a client
// can reach is read in one file next to the exposure policy that filters it.
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
  type Transport,
} from '@modelcontextprotocol/server';
import { DisposableStore, toDisposable, type IDisposable } from '../base/lifecycle';
import { ServerRequestError, type ServerRequestOptions } from '../calls/ServerRequests';
import type { McpHarness } from '../McpHarness';
import type { AuditClient, IAuditSink } from '../permissions/AuditLog';
import { HARNESS_VERSION } from '../version';
import { gatewayUri, ServeCatalog } from './ServeCatalog';
import { ServeExposure } from './ServeExposure';
import { EXPOSURE_POLICY, INSTRUCTIONS, toMcpTool, unknownItem, type ServeConnectionInfo } from './serveMessages';
import { ServeSubscriptions, type IResourceSubscriber } from './ServeSubscriptions';
import { errorMessage } from '../base/errors';

export type { ServeConnectionInfo } from './serveMessages';
export { clientFromRequestMeta, listenedResources } from './serveMessages';

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

/** One connected 2025-era client: its SDK server, and a way to cancel its calls by request id. */
export interface HarnessServeSession extends IDisposable {
  readonly server: Server;
  /** Cancels calls of this session whose JSON-RPC ids are given (their HTTP request went away). */
  cancelRequests(ids: readonly (string | number)[]): void;
}

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
  private readonly _exposure: ServeExposure;

  constructor(
    private readonly _harness: McpHarness,
    private readonly _options: HarnessMcpServerOptions = {},
  ) {
    this._exposure = new ServeExposure({ expose: _options.expose ?? [], deny: _options.deny ?? [], gateway: _options.gateway ?? false });
    this.catalog = this._store.add(new ServeCatalog(_harness, this._exposure));
    this._store.add(this.catalog.onDidChange((kind) => this._notifyAll(kind)));
    this._subscriptions = this._store.add(new ServeSubscriptions(_harness));
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
    const result = await this._harness.call(
      { name: params.name, arguments: params.arguments ?? {} },
      {
        decider: EXPOSURE_POLICY,
        available: (tool) => this.catalog.offersTool(tool),
        ...(this._options.audit ? { audit: this._options.audit } : {}),
        client,
        // Hooks know a client's calls by its MCP session (2025-era HTTP clients), or by who it is.
        conversationId: client.sessionId ?? `${client.transport}:${client.name ?? 'client'}:${client.remoteAddress ?? 'local'}`,
        signal,
        onEvent: (e) => {
          if (e.state === 'running' && e.progress) onProgress(e.progress);
        },
      },
    );
    // Unknown and denied look the same to the client: a denied tool does not exist for it.
    if (result.errorKind === 'unknown_tool') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${params.name}"`);
    return {
      content: [...result.content] as CallToolResult['content'],
      ...(result.structuredContent ? { structuredContent: { ...result.structuredContent } } : {}),
      ...(result.isError ? { isError: true } : {}),
    };
  }

  private async _readResource(uri: string, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolveResource(uri);
    if (!target) throw unknownItem('resource', uri);
    const result = await this._relay(() => this._harness.readResource(target.server, target.uri, this._requestOptions(client, signal, uri)));
    return { ...result, contents: result.contents.map((c) => ({ ...c, uri: gatewayUri(target.server, c.uri) })) };
  }

  /** Relays a 2025-era client's (un)subscription to the server that owns the resource. */
  private async _subscribe(subscriber: IResourceSubscriber, method: 'resources/subscribe' | 'resources/unsubscribe', uri: string, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolveResource(uri);
    if (!target) throw unknownItem('resource', uri);
    const options = this._requestOptions(client, signal, uri);
    await this._relay(() =>
      method === 'resources/subscribe'
        ? this._subscriptions.subscribe(subscriber, target.server, target.uri, options)
        : this._subscriptions.unsubscribe(subscriber, target.server, target.uri, options),
    );
    return {};
  }

  private async _getPrompt(name: string, args: Record<string, string>, client: AuditClient, signal: AbortSignal) {
    const target = this.catalog.resolvePrompt(name);
    if (!target) throw unknownItem('prompt', name);
    return this._relay(() => this._harness.getPrompt(target.server, target.prompt, args, this._requestOptions(client, signal, name)));
  }

  /** `asked` is what the client asked for (a gateway URI, an exposed prompt name): what the audit log records. */
  private _requestOptions(client: AuditClient, signal: AbortSignal, asked: string): ServerRequestOptions {
    return { policy: this._exposure, ...(this._options.audit ? { audit: this._options.audit } : {}), client, signal, auditAs: asked };
  }

  /** A relayed request's failure as the MCP error the client gets. */
  private async _relay<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      // What a server said may quote a secret of its definition: never relayed as it is.
      if (err instanceof ServerRequestError) throw new ProtocolError(err.code ?? ProtocolErrorCode.InternalError, this._harness.maskSecrets(err.message));
      throw err;
    }
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
