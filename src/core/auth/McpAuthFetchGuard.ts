import type { FetchLike } from '@modelcontextprotocol/client';
import { formatByteSize } from '../base/formatByteSize';

/** Longest wait for one answer from an authorization server (metadata, token, registration, JWKS, revocation). */
export const AUTH_REQUEST_TIMEOUT_MS = 15_000;
/** Largest answer read from an authorization server; metadata and tokens are a few kilobytes. */
export const MAX_AUTH_RESPONSE_BYTES = 2 * 1024 * 1024;

/** An OAuth endpoint was refused (its scheme or host), or an authorization server answered too late or too much. */
export class McpAuthEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpAuthEndpointError';
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether an OAuth URL (from metadata or a `WWW-Authenticate` header) may be opened or called:
 * `https:`, `http:` on a loopback address, or the origin of the MCP server the user configured.
 * Everything else (`file:`, `javascript:`, `data:`, plain `http:` to another host) is refused.
 */
export function isAllowedAuthUrl(url: string | URL, serverUrl?: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === 'https:') return true;
  if (parsed.protocol !== 'http:') return false;
  if (LOOPBACK.has(parsed.hostname) || parsed.hostname.endsWith('.localhost')) return true;
  return serverUrl !== undefined && sameOrigin(parsed, serverUrl);
}

/** Throws {@link McpAuthEndpointError} naming `what` unless {@link isAllowedAuthUrl}. Shows only scheme and host. */
export function assertAllowedAuthUrl(url: string | URL, what: string, serverUrl?: string): void {
  if (isAllowedAuthUrl(url, serverUrl)) return;
  throw new McpAuthEndpointError(`refused the ${what} ${describeUrl(url)}: OAuth endpoints must be https: (or http: on a loopback address)`);
}

/**
 * For hosts about to open a browser: throws {@link McpAuthEndpointError} unless `url` is `https:` or
 * `http:` (the core checked the host already; this keeps `file:` and `javascript:` out of any browser).
 */
export function assertBrowserUrl(url: URL, what: string): void {
  if (url.protocol === 'https:' || url.protocol === 'http:') return;
  throw new McpAuthEndpointError(`refused the ${what} ${describeUrl(url)}: only https: and http: addresses are opened`);
}

export interface AuthFetchGuardOptions {
  /** The MCP server's URL: requests to it are MCP traffic, not OAuth, and pass unchanged. */
  readonly serverUrl: string;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** Aborts requests in flight, e.g. when the connection attempt is given up. */
  readonly signal?: () => AbortSignal | undefined;
}

/**
 * `base` with every OAuth request checked and bounded: its URL must pass {@link isAllowedAuthUrl},
 * it gets {@link AUTH_REQUEST_TIMEOUT_MS} to answer, and its answer is read whole up to
 * {@link MAX_AUTH_RESPONSE_BYTES}. MCP traffic (to the server's URL, JSON-RPC bodies, event
 * streams) is passed through as it is.
 */
export function guardAuthFetch(base: FetchLike | undefined, options: AuthFetchGuardOptions): FetchLike {
  const send: FetchLike = base ?? ((url, init) => fetch(url, init));
  const timeoutMs = options.timeoutMs ?? AUTH_REQUEST_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_AUTH_RESPONSE_BYTES;
  return async (url, init) => {
    if (isMcpTraffic(url, init, options.serverUrl)) return send(url, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    const what = `${method} ${describeUrl(url)}`;
    assertAllowedAuthUrl(url, 'OAuth request to', options.serverUrl);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, init?.signal, options.signal?.()].filter((s): s is AbortSignal => s !== undefined && s !== null);
    const signal = AbortSignal.any(signals);
    try {
      const response = await send(url, { ...init, signal });
      return await readBounded(response, maxBytes, what);
    } catch (err) {
      if (timeout.aborted) throw new McpAuthEndpointError(`the authorization server did not answer ${what} within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`);
      throw err;
    }
  };
}

/** The response with its body read whole, refusing one larger than `maxBytes`. */
async function readBounded(response: Response, maxBytes: number, what: string): Promise<Response> {
  const tooLarge = () => new McpAuthEndpointError(`the authorization server's answer to ${what} is larger than ${formatByteSize(maxBytes)}; not read`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  const nullBody = [101, 204, 205, 304].includes(response.status);
  return new Response(nullBody ? null : Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** MCP requests: to the server's own URL, carrying JSON-RPC, or asking for an event stream. */
function isMcpTraffic(url: string | URL, init: RequestInit | undefined, serverUrl: string): boolean {
  if (withoutQuery(url) === withoutQuery(serverUrl)) return true;
  if (new Headers(init?.headers).get('accept')?.includes('text/event-stream')) return true;
  const body = init?.body;
  return typeof body === 'string' && /^\s*[[{]/.test(body) && /"jsonrpc"\s*:/.test(body.slice(0, 4096));
}

function withoutQuery(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return String(url);
  }
}

function sameOrigin(url: URL, other: string): boolean {
  try {
    return new URL(other).origin === url.origin;
  } catch {
    return false;
  }
}

/** `scheme://host/path` without query or credentials, or the scheme alone for URLs without a host. */
function describeUrl(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return parsed.host ? `${parsed.protocol}//${parsed.host}${parsed.pathname}` : `${parsed.protocol} URL`;
  } catch {
    return 'URL that does not parse';
  }
}
