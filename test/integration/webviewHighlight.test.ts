import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without types, shared with esbuild.mjs
import { WEBVIEW_MAIN_BUDGET_BYTES, webviewBuildOptions } from '../../scripts/webviewBuild.mjs';
import { repoPath } from '../support/servers';

// The webview's code highlighting as the extension ships it (scripts/webviewBuild.mjs, minified):
// the page's module stays in its budget, and a grammar is fetched from its own chunk the first
// time a block of its language is shown, under a policy like the chat page's (scripts only by
// nonce), served over loopback HTTP to a real Chromium.
let dir: string;
let server: http.Server;
let browser: Browser;
let page: Page;
const fetched: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-harness-webview-build-'));
  await build({
    ...webviewBuildOptions({ production: true, outdir: dir, entryPoints: { webview: 'webview/main.ts', markdown: 'webview/markdown.ts' } }),
    absWorkingDir: path.resolve(repoPath('.')),
    logLevel: 'silent',
  });
  const nonce = randomBytes(16).toString('base64');
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'`;
  const pageHtml = `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${csp}"></head><body><div id="out"></div>
<script nonce="${nonce}">document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.blockedURI + ' ' + e.violatedDirective)); window.__violations = [];</script>
<script type="module" nonce="${nonce}">import * as md from './markdown.js'; window.webviewMarkdown = md;</script></body></html>`;
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(pageHtml);
    }
    fetched.push(url);
    const file = path.join(dir, path.normalize(url));
    try {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction('window.webviewMarkdown !== undefined');
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Renders `text` in the page; when a block waits for its grammar, renders again once it has loaded. */
const RENDER = `async (text) => {
  const out = document.getElementById('out');
  const { renderMarkdown, onDidLoadLanguage } = window.webviewMarkdown;
  out.innerHTML = renderMarkdown(text);
  const first = out.querySelector('code').outerHTML;
  if (out.querySelector('code[data-language]:not([data-highlighted])')) {
    await new Promise((r) => onDidLoadLanguage(r));
    out.innerHTML = renderMarkdown(text);
  }
  return { first, then: out.querySelector('code').outerHTML };
}`;

const render = (text: string) => page.evaluate(`(${RENDER})(${JSON.stringify(text)})`) as Promise<{ first: string; then: string }>;

describe('code highlighting in the webview bundle', () => {
  it('keeps the page module in its budget, with one chunk per grammar beside it', () => {
    const main = statSync(path.join(dir, 'webview.js')).size;
    expect(main).toBeLessThanOrEqual(WEBVIEW_MAIN_BUDGET_BYTES);
    const chunks = readdirSync(path.join(dir, 'chunks'));
    expect(chunks.filter((c) => /^python-\w+\.js$/.test(c))).toHaveLength(1);
    expect(chunks.length).toBeGreaterThan(150);
  });

  it('fetches a grammar the first time its language shows, and highlights with it', async () => {
    const before = fetched.filter((f) => f.startsWith('/chunks/python-'));
    expect(before).toEqual([]);
    const { first, then } = await render('```py\ndef answer():\n    return 42\n```');
    expect(first).not.toContain('hljs-keyword');
    expect(first).toContain('data-language="python"');
    expect(then).toContain('<span class="hljs-keyword">def</span>');
    expect(fetched.filter((f) => f.startsWith('/chunks/python-'))).toHaveLength(1);
    // Already there: highlighted on the first render, nothing fetched again.
    const again = await render('```python\nimport os\n```');
    expect(again.first).toContain('<span class="hljs-keyword">import</span>');
    expect(fetched.filter((f) => f.startsWith('/chunks/python-'))).toHaveLength(1);
    expect(await page.evaluate('window.__violations')).toEqual([]);
  });

  it('loads no grammar for a block without a known language', async () => {
    const count = fetched.length;
    const { first, then } = await render('```\nplain text\n```\n\n```klingon\nnuqneH\n```');
    expect(first).toBe('<code class="hljs">plain text\n</code>');
    expect(then).toBe(first);
    expect(fetched.length).toBe(count);
  });
});
