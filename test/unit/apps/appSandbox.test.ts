import { afterEach, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/client';
import { appCspHeader, sanitizeCsp } from '../../../src/core/apps/appCsp';
import { isAppCallable, isAppOnlyTool, readUiResource, toolUiOf, UI_MIME_TYPE } from '../../../src/core/apps/appResource';
import { AppSandboxServer, sandboxPageUrl } from '../../../src/core/apps/AppSandboxServer';
import { clientCapabilities } from '../../../src/core/mcp/McpClientHandlers';

const tool = (meta?: Record<string, unknown>): Tool => ({ name: 't', inputSchema: { type: 'object' }, ...(meta ? { _meta: meta } : {}) });

describe('an app\'s declared policy', () => {
  it('keeps origins and names everything else it leaves out', () => {
    const { csp, ignored } = sanitizeCsp({
      connectDomains: ['https://api.example.com', 'wss://live.example.com:8443/', "https://x.com; script-src 'unsafe-eval'", '*', "'self'"],
      resourceDomains: ['https://*.cdn.example.com', 'data:', 'https://cdn.example.com/path/app.js'],
      frameDomains: [42 as unknown as string],
    });
    expect(csp).toEqual({ connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'], resourceDomains: ['https://*.cdn.example.com'] });
    expect(ignored).toEqual(['"https://x.com; script-src \'unsafe-eval\'"', '"*"', '"\'self\'"', '"data:"', '"https://cdn.example.com/path/app.js"', '42']);
  });

  it('builds a policy that allows inline code and only the declared origins', () => {
    expect(appCspHeader({})).toBe(
      "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'none'; worker-src blob:; object-src 'none'; form-action 'none'",
    );
    const header = appCspHeader({ connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] });
    expect(header).toContain("script-src 'unsafe-inline' https://cdn.example.com;");
    expect(header).toContain('connect-src https://api.example.com;');
    expect(header).not.toContain("'self'");
  });
});

describe("a tool's UI", () => {
  it('reads the resource URI as the extension does, and who may call the tool', async () => {
    // The extension's package is ESM only (the tests compile as CommonJS).
    const { getToolUiResourceUri, isToolVisibilityAppOnly } = await import('@modelcontextprotocol/ext-apps/app-bridge');
    const cases = [tool(), tool({ ui: { resourceUri: 'ui://a/b.html' } }), tool({ 'ui/resourceUri': 'ui://old.html' }), tool({ ui: { resourceUri: 'ui://new.html' }, 'ui/resourceUri': 'ui://old.html' })];
    for (const t of cases) expect(toolUiOf(t)).toEqual(getToolUiResourceUri(t) === undefined ? undefined : { resourceUri: getToolUiResourceUri(t) });
    expect(toolUiOf(tool({ ui: { resourceUri: 'https://x/app.html' } }))).toEqual({ error: 'The tool "t" declares a UI that cannot be shown: "https://x/app.html" is not a ui:// resource.' });
    for (const visibility of [undefined, ['app'], ['model'], ['model', 'app']]) {
      const t = tool(visibility ? { ui: { visibility } } : undefined);
      expect(isAppOnlyTool(t)).toBe(isToolVisibilityAppOnly(t));
      expect(isAppCallable(t)).toBe(visibility === undefined || visibility.includes('app'));
    }
  });

  it('is declared to servers only by a host that renders apps', () => {
    const always = { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} };
    expect(clientCapabilities({}).extensions).toEqual(always);
    expect(clientCapabilities({ apps: true }).extensions).toEqual({ ...always, 'io.modelcontextprotocol/ui': { mimeTypes: [UI_MIME_TYPE] } });
  });

  it('reads a resource given as a blob, and keeps only known permissions', async () => {
    const html = '<html><body>hi</body></html>';
    const read = await readUiResource('s', 'ui://a.html', {
      offersResources: () => true,
      read: async () => ({ contents: [{ uri: 'ui://a.html', mimeType: UI_MIME_TYPE, blob: Buffer.from(html).toString('base64'), _meta: { ui: { permissions: { camera: {}, usb: {} }, csp: { connectDomains: ['nope'] } } } }] }),
    });
    expect(read).toEqual({ ok: true, value: { uri: 'ui://a.html', html, csp: {}, permissions: { camera: {} }, notes: ['Left out of its content security policy (not an origin): "nope".'] } });
    const other = await readUiResource('s', 'ui://a.html', { offersResources: () => true, read: async () => ({ contents: [{ uri: 'ui://b.html', mimeType: UI_MIME_TYPE, text: html }] }) });
    expect(other).toEqual({ ok: false, error: 'Cannot show the app ui://a.html of server "s": the server\'s answer holds no content for that URI.' });
  });
});

describe('the sandbox page', () => {
  let server: AppSandboxServer | undefined;
  afterEach(() => server?.dispose());

  it('serves the proxy under the policy in its URL, sandboxed, and nothing else', async () => {
    server = new AppSandboxServer();
    const base = await server.start();
    expect(await server.start()).toBe(base);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sandbox$/);
    const response = await fetch(sandboxPageUrl(base, { connectDomains: ['https://api.example.com', 'https://x; img-src *'] }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toBe(`${appCspHeader({ connectDomains: ['https://api.example.com'] })}; sandbox allow-scripts`);
    const page = await response.text();
    expect(page).toContain("app.setAttribute('sandbox', 'allow-scripts')");
    expect(page).toContain('ui/notifications/sandbox-proxy-ready');
    expect((await fetch(new URL('/other', base))).status).toBe(404);
    expect((await fetch(`${base}?csp=%7B`)).status).toBe(400);
    expect((await fetch(base, { method: 'POST' })).status).toBe(404);
  });
});
