import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { toWebRequest, writeResponse } from '../../../src/core/serve/nodeWebBridge';
import { closers } from './listenerRig';

/** A loopback server whose handler gets the Node request and response. */
async function serveWith(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => Promise<void> | void) {
  const server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    await handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return (server.address() as AddressInfo).port;
}

describe('toWebRequest', () => {
  it('carries the method, URL, every header value and the body of a POST', async () => {
    let seen: Request | undefined;
    const port = await serveWith((req, res, body) => {
      seen = toWebRequest(req, body, new AbortController().signal);
      res.end();
    });
    await fetch(`http://127.0.0.1:${port}/mcp?x=1`, { method: 'POST', body: '{"a":1}', headers: { 'X-Two': 'one' } });
    expect(seen!.method).toBe('POST');
    expect(seen!.url).toBe(`http://127.0.0.1:${port}/mcp?x=1`);
    expect(seen!.headers.get('x-two')).toBe('one');
    expect(await seen!.text()).toBe('{"a":1}');
  });

  it('leaves out the body of a GET or HEAD, and of a request that had none', async () => {
    const bodies: Array<string | null> = [];
    const port = await serveWith(async (req, res) => {
      const request = toWebRequest(req, req.method === 'DELETE' ? undefined : 'ignored', new AbortController().signal);
      bodies.push(`${req.method} ${request.body === null ? 'none' : await request.text()}`);
      res.end();
    });
    for (const method of ['GET', 'HEAD', 'DELETE']) await fetch(`http://127.0.0.1:${port}/`, { method });
    expect(bodies).toEqual(['GET none', 'HEAD none', 'DELETE none']);
  });

  it('takes the loopback address as host when the request names none', async () => {
    let url = '';
    const port = await serveWith((req, res) => {
      url = toWebRequest(req, undefined, new AbortController().signal).url;
      res.end();
    });
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end('GET /path HTTP/1.0\r\n\r\n'));
      socket.on('close', () => resolve());
      socket.resume();
    });
    expect(url).toBe('http://127.0.0.1/path');
  });
});

describe('writeResponse', () => {
  it('writes the status, headers (each cookie on its own) and body', async () => {
    const port = await serveWith((_req, res) => {
      const headers = new Headers({ 'content-type': 'text/plain' });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return writeResponse(res, new Response('hello', { status: 201, headers }));
    });
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(201);
    expect(answer.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(answer.headers.get('content-type')).toBe('text/plain');
    expect(await answer.text()).toBe('hello');
  });

  it('ends a response that has no body', async () => {
    const port = await serveWith((_req, res) => writeResponse(res, new Response(null, { status: 204 })));
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(204);
  });

  it('stops reading a streamed body when the client goes away', async () => {
    let cancelled = false;
    let written: Promise<void> | undefined;
    const port = await serveWith((_req, res) => {
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode('data: first\n\n')),
        cancel: () => void (cancelled = true),
      });
      written = writeResponse(res, new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
    });
    const controller = new AbortController();
    const answer = await fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal });
    const reader = answer.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    controller.abort();
    await expect.poll(() => cancelled).toBe(true);
    await written;
  });
});
