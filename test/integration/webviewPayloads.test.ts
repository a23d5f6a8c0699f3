import * as path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without types, shared with esbuild.mjs
import { hljsLanguages } from '../../scripts/webviewBuild.mjs';
import { repoPath } from '../support/servers';

// The chat webview's Markdown rendering (webview/markdown.ts, what model answers go through) in a
// real Chromium page without the webview's CSP, so only the sanitizer stands between a payload
// and the page: nothing may run, and no handler or script URL may survive.
let browser: Browser;
let page: Page;

/** Runs in the page: renders one payload, lets handlers fire and links be clicked, reports what survived. */
const PROBE = `async (text) => {
  const out = document.getElementById('out');
  const { renderMarkdown, onDidLoadLanguage } = window.webviewMarkdown;
  out.innerHTML = renderMarkdown(text);
  // A code block shows plain until its grammar has loaded; then the highlighted form is probed too.
  if (out.querySelector('code[data-language]:not([data-highlighted])')) {
    await new Promise((r) => onDidLoadLanguage(r));
    out.innerHTML = renderMarkdown(text);
    if (!out.querySelector('code[data-highlighted]')) throw new Error('the code block was not highlighted');
  }
  await new Promise((r) => setTimeout(r, 50));
  out.querySelectorAll('a').forEach((a) => a.click());
  await new Promise((r) => setTimeout(r, 50));
  const handlers = [...out.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => el.tagName + '.' + a.name));
  const urls = [...out.querySelectorAll('[href],[src],[action],[data]')].map((el) => el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('action') ?? el.getAttribute('data') ?? '');
  const tags = [...out.querySelectorAll('script,iframe,object,embed,form,style,svg,math')].map((el) => el.tagName);
  return { pwned: window.__pwned ?? null, handlers, scriptUrls: urls.filter((u) => /^\\s*(javascript|data|vbscript):/i.test(u)), tags };
}`;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [repoPath('webview/markdown.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'webviewMarkdown',
    platform: 'browser',
    absWorkingDir: path.resolve(repoPath('.')),
    logLevel: 'silent',
    // One script: the grammars are inlined here instead of being chunks.
    plugins: [hljsLanguages],
  });
  // The same Debian chromium the e2e suite drives (test/e2e/ui/lib.mjs), kept off the network.
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'] });
  page = await browser.newPage();
  await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
});

afterAll(async () => {
  await browser?.close();
});

const PAYLOADS = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<svg onload="window.__pwned = \'svg\'"></svg>',
  '<iframe src="javascript:window.top.__pwned = \'iframe\'"></iframe>',
  '[click](javascript:window.__pwned=%22link%22)',
  '[click](JaVaScRiPt:window.__pwned=1)',
  '![img](javascript:window.__pwned=1)',
  '<a href="javascript:window.__pwned=1">x</a>',
  '<details open ontoggle="window.__pwned=\'details\'">x</details>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=\'mxss\'"></style></mglyph></table></mtext></math>',
  '```html\n<script>window.__pwned = "fence"</script>\n```',
  '`<img src=x onerror=window.__pwned=1>`',
  '<form action="javascript:window.__pwned=1"><input type=submit></form>',
  '<object data="data:text/html,<script>parent.__pwned=1</script>"></object>',
  '<div style="background:url(javascript:window.__pwned=1)">x</div>',
  '[x](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xPC9zY3JpcHQ+)',
  '<a href="&#106;avascript:window.__pwned=1">x</a>',
];

describe('chat Markdown rendering in a real browser', () => {
  it.each(PAYLOADS)('renders %j inert', async (payload) => {
    const found = await page.evaluate(`(${PROBE})(${JSON.stringify(payload)})`);
    expect(found).toEqual({ pwned: null, handlers: [], scriptUrls: [], tags: [] });
  });
});
