import * as net from 'node:net';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ServeHttpListener } from '../../../src/core/serve/ServeHttpListener';
import { client, closers, initialize, listen, post, rawPost, recordingAudit } from './listenerRig';

const MAX_BODY = 4 * 1024 * 1024;
const refusal = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/** One HTTP/1.0 request written by hand (no Host header at all); the whole answer. */
function rawHttp10(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('ServeHttpListener refusals', () => {
  it('needs a token or OAuth to be made at all', async () => {
    const { mcp } = await listen();
    expect(() => new ServeHttpListener(mcp, { port: 0 })).toThrow('serve over HTTP needs a token, OAuth, or both');
  });

  it('answers each refusal as a JSON-RPC error the client can read', async () => {
    const { url, listener } = await listen({ maxSessions: 1 });
    const base = new URL(url);
    const notFound = await fetch(new URL('/other', base), { method: 'POST' });
    expect(notFound.headers.get('content-type')).toBe('application/json');
    expect(await notFound.json()).toEqual(refusal(-32000, 'not found: the MCP endpoint is /mcp'));
    expect(await (await fetch(url, { method: 'POST', body: initialize })).json()).toEqual(
      refusal(-32000, 'unauthorized: send "Authorization: Bearer <token>" (the token mcp-harness serve printed, or MCP_HARNESS_TOKEN)'),
    );
    expect(await (await post(url, initialize, { Origin: 'http://evil.example' })).json()).toEqual(refusal(-32000, 'forbidden: Origin "http://evil.example" is not allowed'));
    expect(JSON.parse((await rawPost(url, { Host: 'evil.example' })).body)).toEqual(refusal(-32000, 'forbidden: Host "evil.example" is not allowed'));
    expect(await (await post(url, '[]', { 'mcp-session-id': 'gone' })).json()).toEqual(refusal(-32001, 'session not found (ended, or idle too long): initialize again'));
    expect(await (await post(url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }))).json()).toEqual(
      refusal(-32000, 'bad request: no Mcp-Session-Id header, and the request is not initialize (nor a 2026-07-28 request)'),
    );
    expect(await (await post(url, 'x'.repeat(MAX_BODY + 1))).json()).toEqual(refusal(-32000, `request body larger than ${MAX_BODY} bytes`));
    await client(url);
    expect(listener.sessionCount).toBe(1);
    expect(await (await post(url, initialize)).json()).toEqual(refusal(-32000, 'too many sessions: 1 are open; try again later'));
  });

  it('reads a body of exactly the size limit', async () => {
    const { url, logs } = await listen();
    const answer = await post(url, ' '.repeat(MAX_BODY - 2) + '{}');
    expect(answer.status).toBe(400);
    const late = await post(url, 'x'.repeat(MAX_BODY + 1));
    expect(late.status).toBe(413);
    expect(logs.filter((l) => l.startsWith('request failed'))).toEqual([]);
  });

  it('refuses a request that names no Host at all', async () => {
    const { url } = await listen();
    const answer = await rawHttp10(Number(new URL(url).port), 'POST /mcp HTTP/1.0\r\nAuthorization: Bearer secret-token\r\nContent-Length: 2\r\n\r\n{}');
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(answer).toContain('forbidden: Host \\"\\" is not allowed');
  });

  it('takes a Host by its whole name, with or without a port', async () => {
    const { url } = await listen();
    const status = async (host: string) => (await rawPost(url, { Host: host })).status;
    expect(await status('localhost')).toBe(200);
    expect(await status('LOCALHOST:99')).toBe(200);
    expect(await status('evil:localhost')).toBe(403);
    expect(await status('localhost:80evil')).toBe(403);
    expect(await status('bad:host:name')).toBe(403);
  });

  it('takes an Origin it was told of, else only a loopback http(s) origin on its own port', async () => {
    const { url } = await listen({ allowedOrigins: ['http://localhost:6274'] });
    const port = new URL(url).port;
    const status = async (origin: string) => (await post(url, initialize, { Origin: origin })).status;
    expect(await status('http://localhost:6274')).toBe(200);
    expect(await status(`http://[::1]:${port}`)).toBe(200);
    expect(await status(`ftp://localhost:${port}`)).toBe(403);
    expect(await status('http://localhost:1')).toBe(403);
    expect(await status('https://localhost')).toBe(403);
    expect(await status(`http://evil.example:${port}`)).toBe(403);
  });
});

describe('ServeHttpListener binding', () => {
  it('binds 127.0.0.1 by default, so IPv6 loopback finds nobody', async () => {
    const { url } = await listen();
    const port = Number(new URL(url).port);
    await expect(fetch(`http://[::1]:${port}/mcp`, { method: 'POST' })).rejects.toThrow();
  });

  it('rejects listen when its port is taken', async () => {
    const { url, mcp } = await listen();
    const second = new ServeHttpListener(mcp, { port: Number(new URL(url).port), token: 't' });
    await expect(second.listen()).rejects.toThrow(/EADDRINUSE/);
  });

  it('bound to every interface, shows a loopback URL and takes any Host', async () => {
    const { url } = await listen({ host: '0.0.0.0' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect((await rawPost(url, { Host: 'mcp.team.example' })).status).toBe(200);
  });

  it('bound to every IPv6 interface, takes any Host and records IPv4 callers without the mapped prefix', async () => {
    const audit = recordingAudit();
    const { url } = await listen({ host: '::' }, { audit: audit.sink });
    expect(url).toMatch(/^http:\/\/\[::\]:\d+\/mcp$/);
    const v4 = url.replace('[::]', '127.0.0.1');
    expect((await rawPost(v4, { Host: 'mcp.team.example' })).status).toBe(200);
    const modern = await client(v4, { modern: true });
    await modern.callTool({ name: 'mcp__docs__echo', arguments: { text: 'hi' } });
    expect(audit.starts.at(-1)?.client).toMatchObject({ transport: 'http', remoteAddress: '127.0.0.1' });
  });

  it('bound to one address, takes that address as Host', async () => {
    const { url } = await listen({ host: '127.0.0.2' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
    expect((await rawPost(url, { Host: `127.0.0.2:${new URL(url).port}` })).status).toBe(200);
    expect((await rawPost(url, { Host: '127.0.0.3' })).status).toBe(403);
  });

  it('disconnects a client that does not finish sending its headers in time', async () => {
    const { url } = await listen({ headersTimeoutMs: 200 });
    const closed = await new Promise<boolean>((resolve) => {
      const socket = net.connect(Number(new URL(url).port), '127.0.0.1', () => socket.write('POST /mcp HTTP/1.1\r\nHost: localhost\r\n'));
      socket.on('data', () => undefined);
      socket.on('close', () => resolve(true));
    });
    expect(closed).toBe(true);
  });

  it('accepts a headers timeout longer than the request timeout', async () => {
    const { url } = await listen({ headersTimeoutMs: 120_000 });
    expect((await post(url, initialize)).status).toBe(200);
  });
});

describe('ServeHttpListener sessions', () => {
  it('opens a second session once the first finished initializing, and ends one on DELETE', async () => {
    const { url, listener } = await listen({ maxSessions: 2 });
    const first = await client(url);
    await client(url);
    expect(listener.sessionCount).toBe(2);
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    expect(listener.sessionCount).toBe(1);
  });

  it('records how each caller is connected, and keeps per-request servers out of the live sessions', async () => {
    const audit = recordingAudit();
    const { url, mcp } = await listen({}, { audit: audit.sink });
    const legacy = await client(url);
    await legacy.callTool({ name: 'mcp__docs__echo', arguments: { text: 'old' } });
    const modern = await client(url, { modern: true });
    await modern.callTool({ name: 'mcp__docs__echo', arguments: { text: 'new' } });
    expect(audit.starts.map((s) => s.client)).toEqual([
      expect.objectContaining({ transport: 'http', remoteAddress: '127.0.0.1', sessionId: (legacy.transport as StreamableHTTPClientTransport).sessionId }),
      expect.objectContaining({ transport: 'http', remoteAddress: '127.0.0.1', name: 'http-client' }),
    ]);
    expect(audit.starts[0].client).not.toHaveProperty('user');
    expect(mcp.sessionCount).toBe(1);
  });

  it('serves a GET stream on a session and answers a 2026-07-28 GET without one', async () => {
    const { url } = await listen();
    const sessionId = (await post(url, initialize)).headers.get('mcp-session-id')!;
    const controller = new AbortController();
    closers.push(() => controller.abort());
    const stream = await fetch(url, { headers: { Authorization: 'Bearer secret-token', Accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const plain = await fetch(url, { headers: { Authorization: 'Bearer secret-token', Accept: 'application/json, text/event-stream' } });
    expect(plain.status).toBe(405);
  });
});

describe('ServeHttpListener cancellation', () => {
  it('cancels the call a session client carried when its connection drops before the answer', async () => {
    const { url, started } = await listen();
    const cancelled: string[] = [];
    started[0].server.registerTool('hang', { description: 'Waits' }, (ctx) =>
      new Promise((resolve) => ctx.mcpReq.signal.addEventListener('abort', () => (cancelled.push('hang'), resolve({ content: [] })))),
    );
    const legacy = await client(url);
    await expect.poll(async () => (await legacy.listTools()).tools.some((t) => t.name === 'mcp__docs__hang')).toBe(true);
    const sessionId = (legacy.transport as StreamableHTTPClientTransport).sessionId!;
    const gone = new AbortController();
    const call = JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'mcp__docs__hang', arguments: {} } });
    const answered = fetch(url, {
      method: 'POST',
      body: call,
      signal: gone.signal,
      headers: { Authorization: 'Bearer secret-token', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    })
      .then((r) => r.text())
      .then(
        () => 'answered',
        (e: Error) => e.name,
      );
    await new Promise((r) => setTimeout(r, 100));
    gone.abort();
    await expect.poll(() => cancelled).toEqual(['hang']);
    expect(await answered).toBe('AbortError');
    // Another call on the session still goes through.
    expect(await legacy.callTool({ name: 'mcp__docs__echo', arguments: { text: 'after' } })).toMatchObject({ content: [{ text: 'after' }] });
  });
});
