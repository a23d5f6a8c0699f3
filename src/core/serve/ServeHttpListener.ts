// Why this file stays whole at over 300 lines: it is the one place every HTTP request is checked
// (Host, Origin, credentials) before the handler of either protocol generation sees it. Split by
// generation, each half would need its own copy of those checks, and a request could reach a
// handler through a path that skips one; the session table and OAuth already live on their own
// (ServeHttpSessions, ServeOAuth).
import { randomUUID, createHash } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  isInitializeRequest,
  isJSONRPCRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type JSONRPCMessage,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { IDisposable } from '../base/lifecycle';
import { clientFromRequestMeta, listenedResources, type HarnessMcpServer, type ServeConnectionInfo } from './HarnessMcpServer';
import { toWebRequest, writeResponse } from './nodeWebBridge';
import { errorMessage } from '../base/errors';
import { ServeHttpSessions, type HttpSession } from './ServeHttpSessions';
import { authenticate, METADATA_PATHS, protectedResourceMetadataUrl, type ServeOAuth, type ServeTokenRefusal } from './ServeOAuth';

/** Path of the MCP endpoint. */
export const SERVE_HTTP_PATH = '/mcp';
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A client must send its request headers within this (slowloris), and a whole request within REQUEST_TIMEOUT_MS. */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface ServeHttpOptions {
  /** Interface to bind (default 127.0.0.1). */
  readonly host?: string;
  /** Port; 0 picks a free one. */
  readonly port: number;
  /** A static bearer token a request may carry; without `oauth` every request must carry it. */
  readonly token?: string;
  /** Also (or, without `token`, only) accept OAuth access tokens the issuer signed for this gateway. */
  readonly oauth?: ServeOAuth;
  /** The gateway's URL as clients reach it, which tokens must name as their audience (default: {@link ServeHttpListener.url}). */
  readonly resource?: string;
  /** Origins allowed besides the server's own loopback ones, e.g. `http://localhost:6274`. */
  readonly allowedOrigins?: readonly string[];
  /** Host header values allowed besides the loopback names (needed when binding elsewhere). */
  readonly allowedHosts?: readonly string[];
  /** A 2025-era session unused this long is ended (default 30 minutes). */
  readonly sessionIdleTimeoutMs?: number;
  /** Most 2025-era sessions at once (default 1,000); more are answered 503 with Retry-After. */
  readonly maxSessions?: number;
  /** Time a client has to send its request headers (default 10 s); a slow sender is disconnected. */
  readonly headersTimeoutMs?: number;
  log?(message: string): void;
}

/**
 * Streamable HTTP in front of a {@link HarnessMcpServer}, in both generations of the protocol:
 * 2026-07-28 requests (per-request `_meta`, no session) go to the SDK's per-request handler;
 * 2025-era clients `initialize` and get one MCP session each. Every request is checked for a
 * loopback Host and an allowed Origin (DNS rebinding: 403) and for the bearer token (401). A POST
 * whose connection drops before its answer cancels the calls it carried.
 */
export class ServeHttpListener {
  private readonly _server: http.Server;
  private readonly _sessions: ServeHttpSessions;
  private readonly _tokenDigest: Buffer | undefined;
  private readonly _modern: McpHttpHandler;
  private readonly _modernNotifier: IDisposable;
  /** How each request in flight on the 2026-07-28 path is connected (its server is built from the web `Request`). */
  private readonly _connections = new WeakMap<Request, ServeConnectionInfo>();
  private readonly _pendingUpdates = new Set<string>();
  private _port = 0;

  constructor(
    private readonly _mcp: HarnessMcpServer,
    private readonly _o: ServeHttpOptions,
  ) {
    if (_o.token === undefined && _o.oauth === undefined) throw new Error('serve over HTTP needs a token, OAuth, or both');
    this._tokenDigest = _o.token === undefined ? undefined : digest(_o.token);
    this._sessions = new ServeHttpSessions({ idleTimeoutMs: _o.sessionIdleTimeoutMs, maxSessions: _o.maxSessions, log: _o.log });
    this._modern = createMcpHandler(
      (ctx) => _mcp.createServer((ctx.requestInfo && this._connections.get(ctx.requestInfo)) ?? { transport: 'http' }, false),
      { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES, onerror: (err) => _o.log?.(`2026-07-28 request: ${err.message}`) },
    );
    this._modernNotifier = _mcp.addNotifier(this._modern.notify);
    const headersTimeout = _o.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
    const timeouts = { headersTimeout, requestTimeout: Math.max(headersTimeout, REQUEST_TIMEOUT_MS), connectionsCheckingInterval: Math.min(1000, headersTimeout) };
    this._server = http.createServer(timeouts, (req, res) => {
      this._handle(req, res).catch((err: unknown) => {
        _o.log?.(`request failed: ${errorMessage(err)}`);
        if (!res.headersSent) sendError(res, 500, -32603, 'internal error');
        else res.end();
      });
    });
  }

  /** Starts listening; resolves the URL of the MCP endpoint. */
  async listen(): Promise<string> {
    const host = this._o.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this._server.once('error', reject);
      this._server.listen(this._o.port, host, () => {
        this._server.off('error', reject);
        resolve();
      });
    });
    this._port = (this._server.address() as AddressInfo).port;
    return this.url;
  }

  get url(): string {
    const host = this._o.host ?? '127.0.0.1';
    const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    return `http://${shown}:${this._port}${SERVE_HTTP_PATH}`;
  }

  get sessionCount(): number {
    return this._sessions.size;
  }

  /** Ends every session and stops listening. */
  async close(): Promise<void> {
    this._modernNotifier.dispose();
    await this._modern.close().catch(() => undefined);
    this._sessions.dispose();
    await this._sessions.closeAll();
    this._server.closeAllConnections();
    await new Promise<void>((resolve) => this._server.close(() => resolve()));
  }

  private async _handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const metadata = this._o.oauth && req.method === 'GET' && METADATA_PATHS.has(url.pathname);
    if (url.pathname !== SERVE_HTTP_PATH && !metadata) return sendError(res, 404, -32000, `not found: the MCP endpoint is ${SERVE_HTTP_PATH}`);
    const host = req.headers.host;
    if (!this._hostAllowed(host)) return sendError(res, 403, -32000, `forbidden: Host "${host ?? ''}" is not allowed`);
    const origin = req.headers.origin;
    if (origin !== undefined && !this._originAllowed(origin)) return sendError(res, 403, -32000, `forbidden: Origin "${origin}" is not allowed`);
    if (metadata) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' }).end(JSON.stringify(this._o.oauth!.metadata(this.resource)));
      return;
    }
    const caller = await authenticate(req.headers.authorization, this._tokenDigest, this._o.oauth, this.resource);
    if (!caller.ok) return this._refuse(res, caller.error);
    const sessionId = headerValue(req.headers['mcp-session-id']);
    const raw = req.method === 'POST' ? await readBody(req, res) : undefined;
    if (raw === INVALID) return;
    const body = raw === undefined ? undefined : parseJson(raw, res);
    if (body === INVALID) return;
    // The client went away before the answer: the web request's signal aborts, and with it the calls it carried.
    const gone = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
    const request = toWebRequest(req, raw, gone.signal);
    const user = caller.value;
    const connection: ServeConnectionInfo = {
      transport: 'http',
      ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress.replace(/^::ffff:/, '') } : {}),
      ...(user !== undefined ? { user } : {}),
    };
    if (sessionId !== undefined) {
      const existing = this._sessions.get(sessionId);
      if (!existing) return sendError(res, 404, -32001, 'session not found (ended, or idle too long): initialize again');
      if (existing.user !== user) return sendError(res, 403, -32000, 'forbidden: this session belongs to another caller');
      res.once('close', this._sessions.use(sessionId));
      return this._forward(existing, request, res, body, gone.signal);
    }
    if (req.method !== 'POST' || !(await isLegacyRequest(request, body, { maxRequestBodySize: MAX_BODY_BYTES }))) {
      this._connections.set(request, connection);
      const listen = listenedResources(body);
      if (listen) {
        // The stream lasts as long as this response; its resources' updates go out through the handler's listen routing.
        const relay = this._mcp.listenResources({ resourceUpdated: (uri) => this._resourceUpdated(uri) }, listen.uris, clientFromRequestMeta((body as { params?: unknown }).params, connection));
        res.once('close', () => relay.dispose());
      }
      return writeResponse(res, await this._modern.fetch(request, body === undefined ? {} : { parsedBody: body }));
    }
    if (!containsInitialize(body)) {
      return sendError(res, 400, -32000, 'bad request: no Mcp-Session-Id header, and the request is not initialize (nor a 2026-07-28 request)');
    }
    if (this._sessions.isFull) {
      res.setHeader('Retry-After', String(this._sessions.retryAfterSeconds()));
      return sendError(res, 503, -32000, `too many sessions: ${this._sessions.maxSessions} are open; try again later`);
    }
    this._sessions.beginInitializing();
    try {
      const entry: HttpSession = {
        ...(user !== undefined ? { user } : {}),
        transport: new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => this._sessions.add(id, entry),
          onsessionclosed: (id) => this._sessions.delete(id),
        }),
      };
      entry.transport.onclose = () => {
        if (entry.transport.sessionId) this._sessions.delete(entry.transport.sessionId);
      };
      // connect() chains the onclose above with its own.
      entry.session = await this._mcp.connect(entry.transport, connection);
      return await this._forward(entry, request, res, body, gone.signal);
    } finally {
      this._sessions.endInitializing();
    }
  }

  private async _forward(entry: HttpSession, request: Request, res: http.ServerResponse, body: unknown, gone: AbortSignal): Promise<void> {
    const ids = requestIds(body);
    if (ids.length > 0) gone.addEventListener('abort', () => entry.session?.cancelRequests(ids), { once: true });
    await writeResponse(res, await entry.transport.handleRequest(request, body === undefined ? {} : { parsedBody: body }));
  }

  /** One publish per update however many streams relayed it: the handler fans it out to every stream that listed the URI. */
  private _resourceUpdated(uri: string): void {
    if (this._pendingUpdates.has(uri)) return;
    this._pendingUpdates.add(uri);
    queueMicrotask(() => {
      this._pendingUpdates.delete(uri);
      this._modern.notify.resourceUpdated(uri);
    });
  }

  private _hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return false;
    const bound = this._o.host ?? '127.0.0.1';
    if (bound === '0.0.0.0' || bound === '::') return true;
    if (this._o.allowedHosts?.includes(host)) return true;
    // By name, as the SDK's own localhost check does: what DNS rebinding changes is the name.
    const name = hostName(host);
    return name !== undefined && (LOOPBACK.has(name) || name === bound.toLowerCase());
  }

  private _originAllowed(origin: string): boolean {
    if (this._o.allowedOrigins?.includes(origin)) return true;
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return false;
    }
    const name = parsed.hostname;
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && LOOPBACK.has(name) && port === this._port;
  }

  /** The URL tokens must be issued for. */
  get resource(): string {
    return this._o.resource ?? this.url;
  }

  /** Where the protected resource metadata of {@link resource} is . */
  get metadataUrl(): string {
    return protectedResourceMetadataUrl(this.resource);
  }

  /** 401 (or 403 for a missing scope) with the challenge RFC 6750 and RFC 9728 ask for. */
  private _refuse(res: http.ServerResponse, refusal: ServeTokenRefusal | undefined): void {
    if (!this._o.oauth) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="mcp-harness"');
      return sendError(res, 401, -32000, 'unauthorized: send "Authorization: Bearer <token>" (the token mcp-harness serve printed, or MCP_HARNESS_TOKEN)');
    }
    const params = [`resource_metadata="${this.metadataUrl}"`];
    if (refusal) params.push(`error="${refusal.error}"`, `error_description="${refusal.description.replaceAll('"', "'")}"`);
    res.setHeader('WWW-Authenticate', `Bearer ${params.join(', ')}`);
    const status = refusal?.error === 'insufficient_scope' ? 403 : 401;
    sendError(res, status, -32000, `unauthorized: ${refusal?.description ?? `send an OAuth access token from ${this._o.oauth.issuer} ("Authorization: Bearer <token>")`}`);
  }
}

const INVALID = Symbol('invalid body');

async function readBody(req: http.IncomingMessage, res: http.ServerResponse): Promise<string | typeof INVALID> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      sendError(res, 413, -32000, `request body larger than ${MAX_BODY_BYTES} bytes`);
      return INVALID;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string, res: http.ServerResponse): unknown {
  try {
    return JSON.parse(text);
  } catch {
    sendError(res, 400, -32700, 'parse error: the body is not JSON');
    return INVALID;
  }
}

function containsInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
}

function requestIds(body: unknown): (string | number)[] {
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return messages.filter((m) => isJSONRPCRequest(m)).map((m) => (m as { id: string | number }).id);
}

function sendError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `localhost:3000` -> `localhost`; `[::1]:3000` -> `[::1]`. */
function hostName(host: string): string | undefined {
  const match = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host);
  return match?.[1].toLowerCase();
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
