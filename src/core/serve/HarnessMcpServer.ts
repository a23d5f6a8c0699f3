import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { DisposableStore, type IDisposable } from '../base/lifecycle';
import { DEFAULT_MAX_TOTAL_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, type McpHarness } from '../McpHarness';
import { McpCallError } from '../mcp/McpCallError';
import type { McpConnection } from '../mcp/McpConnection';
import type { McpCallOptions } from '../mcp/McpSession';
import type { ExposedTool } from '../tools/types';
import { HARNESS_VERSION } from '../version';
import type { IServeAuditSink, ServeAuditMethod, ServeClientIdentity } from './ServeAudit';
import { gatewayUri, ServeCatalog } from './ServeCatalog';
import { ServeExposure } from './ServeExposure';

/** Options of {@link HarnessMcpServer}. */
export interface HarnessMcpServerOptions {
  /** Names or patterns offered besides the defaults. */
  readonly expose?: readonly string[];
  /** Names or patterns never offered; wins over `expose`. */
  readonly deny?: readonly string[];
  /** Also offer every configured server's tools, resources and prompts. */
  readonly gateway?: boolean;
  /** Records every call a client makes. */
  readonly audit?: IServeAuditSink;
  /** Told about failures worth a log line (a notification that could not be sent). */
  log?(message: string): void;
}

/** One connected client: its SDK server, and a way to cancel its calls by request id. */
export interface HarnessServeSession extends IDisposable {
  readonly server: Server;
  /** Cancels calls of this session whose JSON-RPC ids are given (their HTTP request went away). */
  cancelRequests(ids: readonly (string | number)[]): void;
}

const INSTRUCTIONS =
  'MCP Harness: tools to read, search (and, when allowed, change) the files of this workspace, and with the gateway ' +
  'the tools of every MCP server configured for it, named mcp__<server>__<tool>.';

/**
 * MCP Harness as an MCP server: offers the harness's tools (and with the gateway its servers'
 * resources and prompts) to other MCP clients, under the exposure rules, and keeps every session
 * told of changes. One SDK `Server` per client session; the harness is shared.
 */
export class HarnessMcpServer implements IDisposable {
  readonly catalog: ServeCatalog;
  private readonly _store = new DisposableStore();
  private readonly _sessions = new Set<HarnessServeSession>();

  constructor(
    private readonly _harness: McpHarness,
    private readonly _options: HarnessMcpServerOptions = {},
  ) {
    const exposure = new ServeExposure({ expose: _options.expose ?? [], deny: _options.deny ?? [], gateway: _options.gateway ?? false });
    this.catalog = this._store.add(new ServeCatalog(_harness, exposure));
    this._store.add(this.catalog.onDidChange((kind) => this._notifyAll(kind)));
  }

  get sessionCount(): number {
    return this._sessions.size;
  }

  /** Creates the server for one client and connects it to `transport`. */
  async connect(transport: Transport, identity: Omit<ServeClientIdentity, 'name' | 'version'>): Promise<HarnessServeSession> {
    const session = this._createSession(identity);
    await session.server.connect(transport);
    return session;
  }

  dispose(): void {
    for (const session of [...this._sessions]) session.dispose();
    this._store.dispose();
  }

  private _createSession(base: Omit<ServeClientIdentity, 'name' | 'version'>): HarnessServeSession {
    const gateway = this._options.gateway ?? false;
    const capabilities: ServerCapabilities = { tools: { listChanged: true } };
    if (gateway) {
      capabilities.resources = { listChanged: true };
      capabilities.prompts = { listChanged: true };
    }
    const server = new Server({ name: 'mcp-harness', title: 'MCP Harness', version: HARNESS_VERSION }, { capabilities, instructions: INSTRUCTIONS });
    const inFlight = new Map<string | number, AbortController>();
    const identity = (): ServeClientIdentity => {
      const info = server.getClientVersion();
      const sessionId = server.transport?.sessionId;
      return { ...base, ...(sessionId ? { sessionId } : {}), ...(info ? { name: info.name, version: info.version } : {}) };
    };
    const track = (id: string | number, signal: AbortSignal) => {
      const controller = new AbortController();
      const abort = () => controller.abort();
      signal.addEventListener('abort', abort, { once: true });
      inFlight.set(id, controller);
      return {
        signal: controller.signal,
        done: () => {
          signal.removeEventListener('abort', abort);
          inFlight.delete(id);
        },
      };
    };

    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.catalog.tools().map(toMcpTool) }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const call = track(extra.requestId, extra.signal);
      try {
        return await this._callTool(request.params, identity(), call.signal, (progress) => {
          const token = request.params._meta?.progressToken;
          if (token === undefined) return;
          void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, ...progress } }).catch(() => undefined);
        });
      } finally {
        call.done();
      }
    });
    if (gateway) {
      server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: this.catalog.resources().map((r) => r.exposed) }));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...this.catalog.resourceTemplates()] }));
      server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
        const call = track(extra.requestId, extra.signal);
        try {
          return await this._readResource(request.params.uri, identity(), call.signal);
        } finally {
          call.done();
        }
      });
      server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: this.catalog.prompts().map((p) => p.exposed) }));
      server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
        const call = track(extra.requestId, extra.signal);
        try {
          return await this._getPrompt(request.params.name, request.params.arguments ?? {}, identity(), call.signal);
        } finally {
          call.done();
        }
      });
    }

    const session: HarnessServeSession = {
      server,
      cancelRequests: (ids) => {
        for (const id of ids) inFlight.get(id)?.abort();
      },
      dispose: () => {
        if (!this._sessions.delete(session)) return;
        for (const controller of inFlight.values()) controller.abort();
        void server.close().catch(() => undefined);
      },
    };
    server.onclose = () => session.dispose();
    this._sessions.add(session);
    return session;
  }

  private async _callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    client: ServeClientIdentity,
    signal: AbortSignal,
    onProgress: (p: { progress: number; total?: number; message?: string }) => void,
  ): Promise<CallToolResult> {
    const args = params.arguments ?? {};
    const resolved = this.catalog.resolveTool(params.name);
    if (!resolved) {
      this._options.audit?.denied({ client, method: 'tools/call', tool: params.name, arguments: args, reason: 'not offered' });
      // Unknown and denied look the same to the client: a denied tool does not exist for it.
      throw new McpError(ErrorCode.InvalidParams, `unknown tool "${params.name}"`);
    }
    const server = resolved.kind === 'mcp' ? resolved.server : undefined;
    const id = this._options.audit?.start({ client, method: 'tools/call', tool: params.name, server, arguments: args });
    const result = await this._harness.callTool(params.name, args, { signal, onProgress });
    const outcome = signal.aborted ? 'cancelled' : result.isError ? 'error' : 'ok';
    if (id !== undefined) this._options.audit?.end(id, { outcome, outputChars: result.text.length, ...(result.isError ? { error: result.text.slice(0, 500) } : {}) });
    return {
      content: [...result.content] as CallToolResult['content'],
      ...(result.structuredContent ? { structuredContent: { ...result.structuredContent } } : {}),
      ...(result.isError ? { isError: true } : {}),
    };
  }

  private async _readResource(uri: string, client: ServeClientIdentity, signal: AbortSignal) {
    const target = this.catalog.resolveResource(uri);
    return this._relay(client, 'resources/read', uri, target?.server, { uri }, signal, async (connection) => {
      const result = await connection.request({ method: 'resources/read', params: { uri: target!.uri } }, this._callOptions(connection, signal));
      return { ...result, contents: result.contents.map((c) => ({ ...c, uri: gatewayUri(target!.server, c.uri) })) };
    });
  }

  private async _getPrompt(name: string, args: Record<string, string>, client: ServeClientIdentity, signal: AbortSignal) {
    const target = this.catalog.resolvePrompt(name);
    return this._relay(client, 'prompts/get', name, target?.server, args, signal, (connection) =>
      connection.request({ method: 'prompts/get', params: { name: target!.prompt, arguments: args } }, this._callOptions(connection, signal)),
    );
  }

  /** Audits and forwards a resource or prompt request to its server, mapping failures to MCP errors. */
  private async _relay<T>(
    client: ServeClientIdentity,
    method: ServeAuditMethod,
    name: string,
    server: string | undefined,
    args: unknown,
    signal: AbortSignal,
    run: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    const connection = server !== undefined ? this._harness.manager.get(server) : undefined;
    if (!connection) {
      this._options.audit?.denied({ client, method, tool: name, arguments: args, reason: 'not offered' });
      throw new McpError(ErrorCode.InvalidParams, `${method === 'prompts/get' ? 'unknown prompt' : 'unknown resource'} "${name}"`);
    }
    const id = this._options.audit?.start({ client, method, tool: name, server, arguments: args });
    try {
      const result = await run(connection);
      if (id !== undefined) this._options.audit?.end(id, { outcome: 'ok', outputChars: JSON.stringify(result).length });
      return result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (id !== undefined) this._options.audit?.end(id, { outcome: signal.aborted ? 'cancelled' : 'error', outputChars: 0, error: message });
      if (err instanceof McpCallError) throw new McpError(err.code ?? ErrorCode.InternalError, `${server}: ${message}`);
      throw err;
    }
  }

  private _callOptions(connection: McpConnection, signal: AbortSignal): McpCallOptions {
    const timeoutMs = connection.definition.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return { signal, timeoutMs, maxTotalTimeoutMs: Math.max(timeoutMs, DEFAULT_MAX_TOTAL_TIMEOUT_MS) };
  }

  private _notifyAll(kind: 'tools' | 'resources' | 'prompts'): void {
    for (const { server } of this._sessions) {
      if (!server.transport || !server.getClientVersion()) continue;
      const send = kind === 'tools' ? server.sendToolListChanged() : kind === 'resources' ? server.sendResourceListChanged() : server.sendPromptListChanged();
      send.catch((err: unknown) => this._options.log?.(`could not tell a client that the ${kind} changed: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
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
