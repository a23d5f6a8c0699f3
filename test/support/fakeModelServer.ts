import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ModelProviderError, type ModelStreamEvent } from '../../src/core/agent/types';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: any;
}

/** What to do with one request: write the response (it may keep the socket open, or destroy it). */
export type FakeHandler = (req: http.IncomingMessage, res: http.ServerResponse, body: any) => void | Promise<void>;

/**
 * A loopback HTTP server that plays one handler per request, in order, and records what it was
 * sent. Stands in for a hosted model API; handlers speak that API's real wire format.
 */
export class FakeModelServer {
  readonly requests: RecordedRequest[] = [];
  /** Resolves for each request when its connection closes (the client hung up or we ended). */
  readonly closed: Promise<void>[] = [];
  private readonly _server = http.createServer((req, res) => void this._handle(req, res));
  private _handlers: FakeHandler[] = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this._server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this._server.address() as AddressInfo).port}`;
  }

  /** Queues handlers for the next requests. */
  enqueue(...handlers: FakeHandler[]): void {
    this._handlers.push(...handlers);
  }

  async stop(): Promise<void> {
    this._server.closeAllConnections();
    await new Promise<void>((resolve) => this._server.close(() => resolve()));
  }

  private async _handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Keep the raw text.
    }
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    this.closed.push(new Promise((resolve) => res.on('close', () => resolve())));
    const handler = this._handlers.shift();
    if (!handler) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no handler queued' } }));
      return;
    }
    await handler(req, res, body);
  }
}

/** Writes server-sent events: `[event name or null, data]`. */
export function sse(events: Array<[string | null, unknown]>, options: { end?: boolean; dropAfter?: boolean } = {}): FakeHandler {
  return async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const text = events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
    // Flushed to the socket before anything else happens to it.
    await new Promise<void>((resolve) => res.write(text, () => resolve()));
    if (options.dropAfter) {
      // Let the client read what was sent, then cut the connection without ending the response.
      await new Promise((resolve) => setTimeout(resolve, 50));
      res.socket?.destroy();
    } else if (options.end ?? true) res.end();
  };
}

/** A JSON error answer with optional headers. */
export function jsonError(status: number, body: unknown, headers: Record<string, string> = {}): FakeHandler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}

/** OpenAI chat.completion.chunk events. */
export const openAiChunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_760_000_000,
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
export const openAiUsage = (prompt: number, completion: number) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_760_000_000,
  model: 'gpt-test',
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

/** Drains a provider stream: the events it yielded, and the provider error that ended it, if any. */
export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<{ events: ModelStreamEvent[]; error?: ModelProviderError }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const e of stream) events.push(e);
  } catch (err) {
    if (!(err instanceof ModelProviderError)) throw err;
    return { events, error: err };
  }
  return { events };
}

/**
 * Starts a stream against a server that never answers, stops it once the request has arrived, and
 * resolves what the stream ended with (a provider should end with `aborted`, "Stopped.").
 */
export async function stopBeforeTheAnswer(server: FakeModelServer, start: (signal: AbortSignal) => AsyncIterable<ModelStreamEvent>): Promise<ModelProviderError | undefined> {
  const stop = new AbortController();
  const before = server.requests.length;
  server.enqueue(() => new Promise<void>(() => {})); // never answers
  const pending = collect(start(stop.signal));
  while (server.requests.length === before) await new Promise((r) => setTimeout(r, 5));
  stop.abort();
  return (await pending).error;
}
