// Remote sign-in, the real way round, with an authorization server nobody here wrote: oidc-provider
// (test/fixtures/servers/oidcAuthServer.mjs, its user already signed in) in front of an MCP server
// that accepts only its tokens, in the workspace's .mcp.json. The tree shows it as "sign-in
// required"; its Sign In action asks "Sign in to remote&co at 127.0.0.1:PORT?", VS Code opens the
// authorization URL in a new browser tab, the provider registers the client, runs its login and
// consent steps (cookies and redirects) and redirects to the URL `asExternalUri` gave
// (code-server's /callback), VS Code hands it to the extension's URI handler and the sign-in
// finishes: the tools show. "MCP: Sign Out of Server..." forgets the tokens again.
// The tokens are in VS Code's secret storage only: not in any file of the workspace or of the
// server (settings, logs), and never in the server's output channel.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setColorTheme } from './chatLib.mjs';
import { approveFromNotification, expandRow, extensionLog, findNotification, hoverText, openViewContainer, runCommand, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';

const OAUTH_SERVER = resolve(fileURLToPath(new URL('../../fixtures/servers/oidcAuthServer.mjs', import.meta.url)));
const EXTENSION_ID = 'mcp-harness.mcp-harness';

export async function run(ctx) {
  const { page } = ctx;
  const oauth = await startOAuthServer();
  const folder = join(mkdtempSync(join(tmpdir(), 'mcp-harness-signin-')), 'signin-workspace');
  try {
    const { mcpUrl } = oauth;
    mkdirSync(folder);
    writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { 'remote&co': { url: mcpUrl } } }, null, 2));
    // A server of its own: the secret storage (the browser's) and the logs then hold this run only.
    const server = await ctx.startCodeServer({});
    await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    const row = serverTreeRow(page, 'remote&co');
    await row.waitFor({ timeout: 90_000 });
    await approveFromNotification(page, { count: 1 });
    const description = row.locator('.label-description');
    await waitForText(description, /^sign-in required$/, { timeout: 60_000 });
    assert.equal((await oauth.stats()).authorizations, 0, 'nothing may open a browser before the user signs in');
    // Hovered, the row shows its inline Sign In action.
    await themedScreenshots(page, ctx, 'ui-signin-required', row);
    const sealedBefore = (await sealedSecrets(page)) ?? '';

    // Sign In from the row's inline action; the modal question names the server and the authorization host.
    await row.hover();
    await row.locator('.action-label[aria-label="Sign In"]').click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.equal((await dialog.locator('.dialog-message-detail').innerText()).trim(), `Sign in to remote&co at ${new URL(oauth.base).host}?`);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-signin-confirm.png') });
    const popup = page.context().waitForEvent('page', { timeout: 30_000 });
    const browserVisited = [];
    page.context().on('request', (r) => { if (r.isNavigationRequest()) browserVisited.push(r.url()); });
    await dialog.locator('.monaco-button', { hasText: /^Sign In$/ }).click();

    // The browser tab VS Code opened: the authorization URL, then the redirect to code-server's callback.
    const tab = await popup;
    // code-server's callback page (under its versioned static path) hands the redirect to the workbench.
    const isCallback = (url) => url.origin === server.url && /\/callback$/.test(url.pathname);
    await tab.waitForURL(isCallback, { timeout: 30_000 }).catch((error) => {
      throw new Error(`the tab did not reach ${server.url}/…/callback; it is at ${tab.url()} after ${browserVisited.join(', ')}`, { cause: error });
    });
    await tab.waitForLoadState('load');
    const callback = new URL(tab.url());
    // The authorization server is on the server machine's loopback: the browser reaches it through
    // code-server's port forwarding (/proxy/PORT/), as it would from another machine.
    const proxied = `${server.url}/proxy/${new URL(oauth.base).port}/auth?`;
    const authorization = browserVisited.find((u) => u.startsWith(proxied));
    assert.ok(authorization, `the tab went to the authorization endpoint first; it visited ${browserVisited.join(', ')}`);
    const redirectUri = new URL(new URL(authorization).searchParams.get('redirect_uri'));
    assert.ok(isCallback(redirectUri), `redirect_uri is code-server's callback: ${redirectUri}`);
    assert.equal(redirectUri.searchParams.get('vscode-authority'), EXTENSION_ID);
    assert.equal(callback.searchParams.get('vscode-authority'), EXTENSION_ID);
    assert.ok(callback.searchParams.get('code'), 'the redirect carries the authorization code');
    assert.ok(callback.searchParams.get('state'), 'the redirect carries the state');

    // The extension's URI handler finished the sign-in: the server runs with its two tools.
    await waitForText(description, /^2 tools$/, { timeout: 60_000 });
    await tab.close();
    await page.bringToFront();
    const after = await oauth.stats();
    assert.equal(after.authorizations, 1);
    assert.equal(after.codeExchanges, 1);
    await expandRow(row);
    await serverTreeRow(page, 'Tools').waitFor();
    await expandRow(serverTreeRow(page, 'Tools'));
    await serverTreeRow(page, 'whoami').waitFor({ timeout: 30_000 });
    await serverTreeRow(page, 'echo').waitFor();
    await themedScreenshots(page, ctx, 'ui-signin-signed-in');

    // The tokens are kept, but in no file of the workspace or of the server (settings, state, logs),
    // not in the server's output channel and nowhere readable in the browser's storage: the one
    // place left is VS Code's secret storage, which code-server's workbench keeps sealed (AES-GCM)
    // in the browser.
    const secrets = await oauth.secrets();
    assert.equal(secrets.accessTokens.length, 1);
    const leaks = [...secrets.codes, ...secrets.accessTokens, ...secrets.refreshTokens];
    // The "MCP: remote" output channel's log file (VS Code leaves the colon out of the file name).
    const serverLog = await extensionLog(server.userDataDir, { channel: 'MCP remote&co' });
    assert.match(serverLog, /\S/, 'the server has written its log');
    assert.deepEqual(leaks.filter((s) => serverLog.includes(s)), [], 'no token or code in the server log');
    assert.deepEqual(filesContaining([folder, server.root], leaks), [], 'no token or code in a file');
    assert.deepEqual(await browserStorageContaining(page, leaks), [], 'no token or code readable in the browser');
    const sealed = await sealedSecrets(page);
    assert.ok(sealed && sealed.length > sealedBefore.length, 'the secret storage grew by the sign-in');

    // A new window (a new extension host) is signed in from the secret storage: no browser, no code.
    await page.reload();
    await waitForWorkbench(page);
    await showRow(page, row);
    await waitForText(description, /^2 tools$/, { timeout: 90_000 });
    const reloaded = await oauth.stats();
    assert.equal(reloaded.authorizations, 1, 'no new authorization after a reload');
    assert.equal(reloaded.codeExchanges, 1, 'no new code exchange after a reload');
    await expandRow(row);
    await expandRow(serverTreeRow(page, 'Tools'));
    await serverTreeRow(page, 'whoami').waitFor({ timeout: 30_000 });

    // Sign out: the tokens are forgotten, the tools go, the server asks for a sign-in again.
    await runCommand(page, 'MCP: Sign Out of Server...');
    const pick = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: /^remote&co$/ }) }).first();
    await pick.click();
    await findNotification(page, 'MCP: signed out of remote&co.');
    await waitForText(description, /^sign-in required$/, { timeout: 60_000 });
    await serverTreeRow(page, 'whoami').waitFor({ state: 'detached', timeout: 30_000 });
    // The sealed secrets shrink by the tokens (and the client registration) that were forgotten.
    await waitFor(async () => ((await sealedSecrets(page)) ?? '').length < sealed.length, 'the secret storage to shrink');
    assert.equal((await oauth.stats()).authorizations, 1, 'signing out opens no browser');
  } finally {
    oauth.stop();
    rmSync(resolve(folder, '..'), { recursive: true, force: true });
  }
}

/** oidc-provider and its MCP server on free loopback ports: `base` is the issuer. */
async function startOAuthServer() {
  const child = spawn(process.execPath, [OAUTH_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port, mcpUrl] = await new Promise((resolvePort, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`the authorization server fixture exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /mcp (\S+)\nlistening (\d+)/.exec(out);
      if (m) resolvePort([Number(m[2]), m[1]]);
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    mcpUrl,
    secrets: () => fetch(`${base}/test/secrets`).then((r) => r.json()),
    stats: () => fetch(`${base}/test/stats`).then((r) => r.json()),
    stop: () => child.kill(),
  };
}

/**
 * Waits for `row` of the MCP Servers view after a reload. The workbench restores the side bar as it
 * was while it starts, and a click on the view container meanwhile can close it again: it is
 * opened again each second until the row shows.
 */
async function showRow(page, row, timeout = 90_000) {
  for (const deadline = Date.now() + timeout; !(await row.isVisible()); await new Promise((r) => setTimeout(r, 1000))) {
    if (Date.now() > deadline) throw new Error('the MCP Servers view did not show the server after the reload');
    // A short wait each time: a click that closed the side bar again is answered by the next one.
    await openViewContainer(page, 'MCP Servers', { timeout: 5000 }).catch(() => undefined);
  }
}

/** code-server's workbench keeps VS Code's secret storage sealed in the browser's localStorage, under this key. */
function sealedSecrets(page) {
  return page.evaluate(() => localStorage.getItem('secrets.provider'));
}

/** Keys of the browser's localStorage whose value contains one of `needles` in the clear. */
function browserStorageContaining(page, needles) {
  return page.evaluate((n) => Object.keys(localStorage).filter((k) => n.some((s) => localStorage.getItem(k).includes(s))), needles);
}

async function waitFor(condition, what, timeout = 30_000) {
  for (const deadline = Date.now() + timeout; !(await condition()); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Files under `dirs` whose bytes contain one of `needles`. */
function filesContaining(dirs, needles) {
  const hits = [];
  const visit = (path) => {
    let info;
    try {
      info = statSync(path);
    } catch {
      return; // gone meanwhile
    }
    if (info.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (info.isFile() && info.size < 50_000_000) {
      const text = readFileSync(path, 'latin1');
      if (needles.some((n) => text.includes(n))) hits.push(path);
    }
  };
  for (const dir of dirs) if (existsSync(dir)) visit(dir);
  return hits;
}

/** Screenshots of the current state in a dark and a light theme (ending in the light one), with `hover` hovered. */
async function themedScreenshots(page, ctx, name, hover) {
  for (const [theme, file] of [['Dark Modern', 'dark'], ['Light Modern', 'light']]) {
    await setColorTheme(page, theme);
    // The hover's own widget, once it shows (it opens after a delay).
    if (hover) await hoverText(page, hover);
    await page.screenshot({ path: join(ctx.resultsDir, `${name}-${file}.png`) });
  }
}
