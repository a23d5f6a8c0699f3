import { describe, expect, it } from 'vitest';
import { assertAllowedAuthUrl, assertBrowserUrl, guardAuthFetch, isAllowedAuthUrl, McpAuthEndpointError } from '../../../src/core/auth/McpAuthFetchGuard';

const server = 'http://mcp.internal:8080/mcp';

describe('which OAuth URLs may be called', () => {
  it('takes https anywhere, http on loopback names, and nothing else', () => {
    expect(isAllowedAuthUrl('https://auth.example.com/token')).toBe(true);
    for (const url of ['http://localhost:9/x', 'http://127.0.0.1/x', 'http://[::1]:8/x', 'http://app.localhost/x']) expect(isAllowedAuthUrl(url)).toBe(true);
    for (const url of ['http://auth.example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'ftp://localhost/x', 'not a url']) expect(isAllowedAuthUrl(url)).toBe(false);
    expect(isAllowedAuthUrl('http://mcp.internal:8080/oauth/token', server)).toBe(true);
    expect(isAllowedAuthUrl('http://mcp.internal:8081/oauth/token', server)).toBe(false);
    expect(isAllowedAuthUrl('http://mcp.internal:8080/x', 'not a url')).toBe(false);
  });

  it('names a refused URL by its scheme and host only', () => {
    expect(() => assertAllowedAuthUrl('http://evil.example/token?secret=1', 'token endpoint')).toThrow(
      new McpAuthEndpointError('refused the token endpoint http://evil.example/token: OAuth endpoints must be https: (or http: on a loopback address)'),
    );
    expect(() => assertAllowedAuthUrl('mailto:a@b.c', 'authorization endpoint')).toThrow('refused the authorization endpoint mailto: URL: OAuth endpoints must be');
    expect(() => assertAllowedAuthUrl('::', 'issuer')).toThrow('refused the issuer URL that does not parse:');
    assertAllowedAuthUrl('https://ok.example/x', 'issuer');
  });

  it('opens only web pages in a browser', () => {
    assertBrowserUrl(new URL('http://example.com'), 'page');
    expect(() => assertBrowserUrl(new URL('file:///x'), 'authorization page')).toThrow('refused the authorization page file: URL: only https: and http: addresses are opened');
    expect(new McpAuthEndpointError('x').name).toBe('McpAuthEndpointError');
  });
});

describe('guardAuthFetch', () => {
  const sent: string[] = [];
  const base = async (url: string | URL, init?: RequestInit) => {
    sent.push(`${init?.method ?? 'GET'} ${String(url)}`);
    if (String(url).endsWith('/empty')) return new Response(null, { status: 204 });
    return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
  };

  it('passes MCP traffic as it is: the server URL with any query, event streams, JSON-RPC bodies', async () => {
    const guarded = guardAuthFetch(base, { serverUrl: server });
    await guarded('http://mcp.internal:8080/mcp?session=1', { method: 'POST' });
    await guarded('http://other.example/events', { headers: { accept: 'text/event-stream' } });
    await guarded('http://other.example/rpc', { method: 'POST', body: '  {"jsonrpc": "2.0", "id": 1}' });
    expect(sent.splice(0)).toEqual(['POST http://mcp.internal:8080/mcp?session=1', 'GET http://other.example/events', 'POST http://other.example/rpc']);
    await expect(guarded('http://other.example/token', { method: 'POST', body: 'grant_type=x' })).rejects.toThrow(McpAuthEndpointError);
    expect(sent).toEqual([]);
  });

  it('answers an OAuth request with its body read whole, and a body-less status without one', async () => {
    const guarded = guardAuthFetch(base, { serverUrl: server });
    const answer = await guarded('https://auth.example/token', { method: 'POST' });
    expect(await answer.json()).toEqual({ ok: true });
    expect(answer.headers.get('content-type')).toBe('application/json');
    const empty = await guarded('https://auth.example/empty');
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('gives up on a silent authorization server, counting in seconds or milliseconds', async () => {
    const silent = async (_url: string | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
    await expect(guardAuthFetch(silent, { serverUrl: server, timeoutMs: 30 })('https://auth.example/.well-known/x')).rejects.toThrow(
      'the authorization server did not answer GET https://auth.example/.well-known/x within 30 ms',
    );
    const stop = new AbortController();
    const pending = guardAuthFetch(silent, { serverUrl: server, timeoutMs: 60_000, signal: () => stop.signal })('https://auth.example/token', { method: 'POST' });
    stop.abort(new Error('the connection was given up'));
    await expect(pending).rejects.toThrow('the connection was given up');
  });

  it('refuses an answer larger than it reads, declared or streamed', async () => {
    const declared = async () => new Response('x', { headers: { 'content-length': '5000' } });
    await expect(guardAuthFetch(declared, { serverUrl: server, maxBytes: 1000 })('https://auth.example/meta')).rejects.toThrow(
      "the authorization server's answer to GET https://auth.example/meta is larger than 1000 B; not read",
    );
    const streamed = async () => new Response('y'.repeat(3000));
    await expect(guardAuthFetch(streamed, { serverUrl: server, maxBytes: 1000 })('https://auth.example/meta')).rejects.toThrow('is larger than 1000 B');
  });
});
