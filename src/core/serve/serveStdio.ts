import type { Server, Transport } from '@modelcontextprotocol/server';
import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Readable, Writable } from 'node:stream';
import type { IDisposable } from '../base/lifecycle';
import { clientFromRequestMeta, listenedResources, type HarnessMcpServer } from './HarnessMcpServer';

/**
 * Serves one client over stdio, in whichever revision it opens with: `server/discover` and
 * per-request `_meta` (2026-07-28), or `initialize` (2025-11-25 and older). Protocol messages
 * only on `stdout`. Resolves when the client closes its end (stdin ends), after the connection
 * was closed and its calls cancelled.
 */
export async function serveStdio(
  mcp: HarnessMcpServer,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
  onError: (err: Error) => void = () => undefined,
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      stdin.off('end', end);
      stdin.off('close', end);
      resolve();
    };
    stdin.once('end', end);
    stdin.once('close', end);
  });
  let current: Server | undefined;
  const wire = new ListenWatchingTransport(new StdioServerTransport(stdin, stdout), (uris, params) =>
    mcp.listenResources(
      { resourceUpdated: (uri) => void current?.sendResourceUpdated({ uri }).catch((err: unknown) => onError(err instanceof Error ? err : new Error(String(err)))) },
      uris,
      clientFromRequestMeta(params, { transport: 'stdio' }),
    ),
  );
  // The factory runs once for the connection, and once more for a `server/discover` probe the client then abandons.
  const handle = sdkServeStdio(() => (current = mcp.createServer({ transport: 'stdio' }, true)), { transport: wire, onerror: onError });
  await closed;
  await handle.close();
  wire.disposeListens();
}

/**
 * The stdio transport, watching for 2026-07-28 `subscriptions/listen` requests that name
 * resources (the SDK answers those itself) so their subscriptions can be relayed upstream while
 * the stream lasts.
 */
class ListenWatchingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly _listens = new Map<string | number, IDisposable>();

  constructor(
    private readonly _inner: StdioServerTransport,
    private readonly _onListen: (uris: string[], params: unknown) => IDisposable,
  ) {
    _inner.onclose = () => {
      this.disposeListens();
      this.onclose?.();
    };
    _inner.onerror = (error) => this.onerror?.(error);
    _inner.onmessage = (message) => {
      this._observe(message);
      this.onmessage?.(message);
    };
  }

  start(): Promise<void> {
    return this._inner.start();
  }
  send(message: Parameters<Transport['send']>[0]): Promise<void> {
    return this._inner.send(message);
  }
  close(): Promise<void> {
    return this._inner.close();
  }

  disposeListens(): void {
    for (const listen of this._listens.values()) listen.dispose();
    this._listens.clear();
  }

  private _observe(message: unknown): void {
    const listen = listenedResources(message);
    if (listen) {
      this._listens.get(listen.id)?.dispose();
      this._listens.set(listen.id, this._onListen(listen.uris, (message as { params?: unknown }).params));
      return;
    }
    const m = message as { method?: unknown; params?: { requestId?: unknown } };
    if (m.method === 'notifications/cancelled' && (typeof m.params?.requestId === 'string' || typeof m.params?.requestId === 'number')) {
      this._listens.get(m.params.requestId)?.dispose();
      this._listens.delete(m.params.requestId);
    }
  }
}
