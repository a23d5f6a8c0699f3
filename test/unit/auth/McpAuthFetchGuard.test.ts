import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardAuthFetch, isAllowedAuthUrl } from '../../../src/core/auth/McpAuthFetchGuard';

describe('isAllowedAuthUrl', () => {
  it.each([
    ['https://auth.example.com/authorize', true],
    ['http://127.0.0.1:8080/token', true],
    ['http://localhost/authorize', true],
    ['http://[::1]:9000/register', true],
    ['http://app.localhost/authorize', true],
    ['http://auth.example.com/authorize', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['ftp://example.com/x', false],
    ['not a url', false],
  ])('%s: %s', (url, allowed) => {
    expect(isAllowedAuthUrl(url)).toBe(allowed);
  });

  it('allows plain http on the origin of the MCP server the user configured, and no other', () => {
    expect(isAllowedAuthUrl('http://intranet:8080/token', 'http://intranet:8080/mcp')).toBe(true);
    expect(isAllowedAuthUrl('http://intranet:8081/token', 'http://intranet:8080/mcp')).toBe(false);
  });
});

describe('guardAuthFetch against a loopback server', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('x'.repeat(3000));
      } else if (req.url === '/slow') {
        // Never answered.
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('reads a small answer, refuses a large one and gives up on a silent one, naming the request', async () => {
    const guarded = guardAuthFetch(undefined, { serverUrl: `${base}/mcp`, maxBytes: 1000, timeoutMs: 200 });
    expect(await (await guarded(`${base}/.well-known/oauth-authorization-server`)).json()).toEqual({ ok: true });
    await expect(guarded(`${base}/big`)).rejects.toThrow(`the authorization server's answer to GET ${base}/big is larger than 1000 B; not read`);
    await expect(guarded(`${base}/slow`)).rejects.toThrow(`the authorization server did not answer GET ${base}/slow within 200 ms`);
    await expect(guarded('file:///etc/passwd')).rejects.toThrow('refused the OAuth request to file: URL');
  });

  it('passes MCP traffic through untouched', async () => {
    const guarded = guardAuthFetch(undefined, { serverUrl: `${base}/big`, maxBytes: 1000, timeoutMs: 200 });
    expect((await (await guarded(`${base}/big`)).text()).length).toBe(3000);
  });
});
