import { describe, expect, it } from 'vitest';
import { assertBrowserUrl, guardAuthFetch } from '../../../src/core/auth/McpAuthFetchGuard';

// Where the guard draws its lines: exactly at the size limit, whole seconds, what counts as MCP traffic.
const server = 'http://mcp.internal:8080/mcp';
const big = 'z'.repeat(2000);
const answering = (body: string | null, headers: Record<string, string> = {}) => async () => new Response(body, { headers });
const silent = async (_url: string | URL, init?: RequestInit) =>
  new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)));

describe('guardAuthFetch limits', () => {
  it('reads an answer of exactly the limit, declared or streamed', async () => {
    const exact = 'a'.repeat(1000);
    expect(await (await guardAuthFetch(answering(exact), { serverUrl: server, maxBytes: 1000 })('https://auth.example/meta')).text()).toBe(exact);
    const streamed = async () => new Response(new Blob([exact]).stream());
    expect(await (await guardAuthFetch(streamed, { serverUrl: server, maxBytes: 1000 })('https://auth.example/meta')).text()).toBe(exact);
  });

  it('refuses a too large declared answer that has no body to cancel', async () => {
    const guarded = guardAuthFetch(answering(null, { 'content-length': '5000' }), { serverUrl: server, maxBytes: 1000 });
    await expect(guarded('https://auth.example/meta')).rejects.toThrow("the authorization server's answer to GET https://auth.example/meta is larger than 1000 B; not read");
  });

  it('counts a timeout of a second or more in seconds', async () => {
    await expect(guardAuthFetch(silent, { serverUrl: server, timeoutMs: 1000 })('https://auth.example/token', { method: 'post' })).rejects.toThrow(
      'the authorization server did not answer POST https://auth.example/token within 1 s',
    );
  });

  it('takes a request whose signal is null like one without', async () => {
    const guarded = guardAuthFetch(answering('{"ok":true}'), { serverUrl: server });
    expect(await (await guarded('https://auth.example/meta', { signal: null })).json()).toEqual({ ok: true });
  });

  it('passes event streams and JSON-RPC bodies through unbounded, and bounds what only looks like them', async () => {
    const guarded = guardAuthFetch(answering(big), { serverUrl: server, maxBytes: 1000 });
    const passes = async (init: RequestInit) => (await guarded('https://other.example/x', init)).text().then((t) => t.length === big.length, () => false);
    const bounded = async (init: RequestInit) => guarded('https://other.example/x', init).then(() => false, (e: Error) => /larger than/.test(e.message));
    expect(await passes({ headers: { accept: 'application/json, text/event-stream' } })).toBe(true);
    expect(await passes({ method: 'POST', body: '\n[{"jsonrpc" : "2.0"}]' })).toBe(true);
    expect(await bounded({ headers: { accept: 'application/json' } })).toBe(true);
    expect(await bounded({ method: 'POST', body: 'x={"jsonrpc":"2.0"}' })).toBe(true);
    expect(await bounded({ method: 'POST', body: '{"grant_type":"x"}' })).toBe(true);
    expect(await bounded({ method: 'POST', body: `{"pad":"${'p'.repeat(5000)}","jsonrpc":"2.0"}` })).toBe(true);
  });
});

describe('assertBrowserUrl', () => {
  it('opens https pages', () => {
    expect(() => assertBrowserUrl(new URL('https://auth.example/authorize'), 'authorization page')).not.toThrow();
  });
});
