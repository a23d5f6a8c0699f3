import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { appCspHeader } from '../../../src/core/apps/appCsp';
import { AppSandboxServer, sandboxPageUrl } from '../../../src/core/apps/AppSandboxServer';
import { SANDBOX_PROXY_PAGE } from '../../../src/core/apps/sandboxProxyPage';

/** An IPv4 address of this machine other than loopback, if it has one. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !a.internal)?.address;

describe("an app's policy header", () => {
  it('lists several origins of a kind, and frame and base origins when declared', () => {
    const header = appCspHeader({
      resourceDomains: ['https://a.example.com', 'https://b.example.com'],
      connectDomains: ['https://api.example.com', 'wss://live.example.com'],
      frameDomains: ['https://embed.example.com'],
      baseUriDomains: ['https://base.example.com'],
    });
    expect(header).toBe(
      "default-src 'none'; script-src 'unsafe-inline' https://a.example.com https://b.example.com; style-src 'unsafe-inline' https://a.example.com https://b.example.com; " +
        'img-src data: blob: https://a.example.com https://b.example.com; font-src data: https://a.example.com https://b.example.com; media-src data: blob: https://a.example.com https://b.example.com; ' +
        "connect-src https://api.example.com wss://live.example.com; frame-src https://embed.example.com; base-uri https://base.example.com; worker-src blob:; object-src 'none'; form-action 'none'",
    );
  });
});

describe('the sandbox page server', () => {
  let server: AppSandboxServer | undefined;
  afterEach(() => server?.dispose());
  const started = async () => {
    server = new AppSandboxServer();
    return server.start();
  };

  it('answers with the empty policy and hardening headers when the URL declares nothing', async () => {
    const base = await started();
    const response = await fetch(base);
    expect(response.status).toBe(200);
    const names = ['content-type', 'content-security-policy', 'cache-control', 'referrer-policy', 'x-content-type-options', 'cross-origin-resource-policy'];
    expect(Object.fromEntries(names.map((name) => [name, response.headers.get(name)]))).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `${appCspHeader({})}; sandbox allow-scripts`,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
    });
    expect(await response.text()).toBe(SANDBOX_PROXY_PAGE);
  });

  it('serves the page under a path prefix, and to HEAD requests', async () => {
    const base = await started();
    const prefixed = new URL(base);
    prefixed.pathname = `/proxy/1234${prefixed.pathname}`;
    const response = await fetch(sandboxPageUrl(prefixed.href, { connectDomains: ['https://api.example.com'] }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain('connect-src https://api.example.com;');
    const head = await fetch(base, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-security-policy')).toBe(`${appCspHeader({})}; sandbox allow-scripts`);
  });

  it('gives the empty policy to a declaration that is not an object', async () => {
    const base = await started();
    for (const declared of ['5', 'null', '"https://api.example.com"']) {
      const response = await fetch(`${base}?csp=${encodeURIComponent(declared)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toBe(`${appCspHeader({})}; sandbox allow-scripts`);
    }
  });

  it('says in plain text what it does not serve and what it cannot read', async () => {
    const base = await started();
    const missing = await fetch(new URL('/sandbox/other', base));
    expect([missing.status, missing.headers.get('content-type'), await missing.text()]).toEqual([404, 'text/plain', 'not found']);
    const put = await fetch(base, { method: 'PUT' });
    expect([put.status, await put.text()]).toEqual([404, 'not found']);
    const bad = await fetch(`${base}?csp=not-json`);
    expect([bad.status, bad.headers.get('content-type'), await bad.text()]).toEqual([400, 'text/plain', 'csp is not JSON']);
  });

  it.skipIf(outside === undefined)('listens on loopback only', async () => {
    const port = new URL(await started()).port;
    await expect(fetch(`http://${outside}:${port}/sandbox`)).rejects.toThrow();
  });

  it('stops answering once disposed, and may be disposed before it starts or twice', async () => {
    new AppSandboxServer().dispose();
    const base = await started();
    expect((await fetch(base)).status).toBe(200);
    server!.dispose();
    server!.dispose();
    await expect(fetch(base)).rejects.toThrow();
  });
});
