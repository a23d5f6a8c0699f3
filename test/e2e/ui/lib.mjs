// Playwright helpers for driving the VS Code workbench served by code-server.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** Flags for a headless Debian chromium in a container, kept off the network except for the workbench. */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * Launches chromium with a throwaway profile (and HOME, so nothing lands in the user's).
 * The caller's own signal handlers close it: Playwright's would exit the process first.
 * @returns {Promise<{ page: import('playwright-core').Page, context: import('playwright-core').BrowserContext, close: () => Promise<void> }>}
 */
export async function launchBrowser({ executablePath = process.env.CHROMIUM || '/usr/bin/chromium' } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'mcp-harness-chromium-'));
  const env = { ...process.env, HOME: profile, XDG_CONFIG_HOME: join(profile, '.config'), XDG_CACHE_HOME: join(profile, '.cache') };
  let context;
  try {
    context = await chromium.launchPersistentContext(join(profile, 'profile'), {
      executablePath, env, headless: true, args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 },
      handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  let closed;
  const close = () => (closed ??= context.close().catch(() => {}).finally(() => rmSync(profile, { recursive: true, force: true })));
  return { page, context, close };
}

/** Waits until the workbench has rendered (6-8 s after navigation here). */
export async function waitForWorkbench(page, { timeout = 60_000 } = {}) {
  await page.locator('.monaco-workbench').waitFor({ timeout });
  await page.locator('.part.statusbar').waitFor({ timeout });
}

/**
 * Runs a command by its palette title, e.g. `Notifications: Show Notifications`. The palette lists the
 * commands known when it opens, so while an extension is still starting it is reopened until the
 * command shows up. It is also reopened when it closes before the title is typed (something took
 * the focus, e.g. a webview that has just loaded).
 */
export async function runCommand(page, title, { timeout = 30_000 } = {}) {
  await typeCommand(page, title, { timeout });
  await page.keyboard.press('Enter');
}

/** Opens the palette with `title` typed and its row shown, for Enter to run (see runCommand). */
export async function typeCommand(page, title, { timeout = 30_000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    await input.waitFor({ timeout: Math.max(deadline - Date.now(), 1) });
    try {
      await input.fill(`>${title}`, { timeout: Math.min(5_000, Math.max(deadline - Date.now(), 1)) });
      await row.waitFor({ timeout: Math.min(3_000, Math.max(deadline - Date.now(), 1)) });
      break;
    } catch (error) {
      if (Date.now() >= deadline) throw new Error(`command "${title}" not found in the palette (or the palette kept closing)`, { cause: error });
    }
  }
}

/**
 * The Notification Center's entry whose message contains `text` (a string, or a regular expression
 * over the message alone). With the smoke-test driver, notifications never show as toasts, only here.
 */
export async function findNotification(page, text, { timeout = 15_000 } = {}) {
  await showNotifications(page);
  const message = page.locator('.notification-list-item-message', { hasText: text });
  const item = page.locator('.notifications-center .notification-list-item', { has: message }).first();
  await item.waitFor({ timeout });
  return item;
}

/** Messages currently in the Notification Center, newest first. */
export async function notificationMessages(page) {
  await showNotifications(page);
  return page.locator('.notifications-center .notification-list-item .notification-list-item-message').allInnerTexts();
}

async function showNotifications(page) {
  const center = page.locator('.notifications-center');
  if (!(await center.isVisible())) {
    await runCommand(page, 'Notifications: Show Notifications');
    await center.waitFor();
  }
}

/**
 * Opens a view container (e.g. the extension's own) by its activity bar label. Clicking the item of
 * the container already shown would hide the side bar, so that is left alone.
 */
export async function openViewContainer(page, label, { timeout = 30_000 } = {}) {
  const item = page.locator('.activitybar .action-item', { has: page.locator(`[aria-label^="${cssString(label)}"]`) }).first();
  await item.waitFor({ timeout });
  const checked = (await item.getAttribute('class'))?.split(/\s+/).includes('checked');
  if (!checked || !(await page.locator('.part.sidebar').isVisible())) await item.click();
  await page.locator('.part.sidebar').waitFor({ timeout });
}

/**
 * A row of a tree or list, by text. With `view`, only rows inside the view whose header title starts
 * with it (e.g. `Servers`). With `exact`, the row's label (not its description) is exactly `text`:
 * `Tools` then finds the group, not a server described as `14 tools`.
 */
export function treeRow(page, text, { view, exact = false } = {}) {
  const scope = view
    ? page.locator('.pane', { has: page.locator(`.pane-header[aria-label^="${cssString(view)}"]`) })
    : page.locator('.part.sidebar, .part.panel, .part.auxiliarybar');
  const rows = scope.locator('.monaco-list-row');
  const label = page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(text)}$`) });
  return (exact ? rows.filter({ has: label }) : rows.filter({ hasText: text })).first();
}

/** The status bar item whose text contains `text`. */
export function statusBarItem(page, text) {
  return page.locator('.part.statusbar .statusbar-item', { hasText: text }).first();
}

/**
 * Hovers `locator` and returns the text of the hover it opens (status bar items and tree rows use the
 * workbench's own hover widget, not the browser's `title`).
 */
export async function hoverText(page, locator, { timeout = 10_000 } = {}) {
  const shown = page.locator('.workbench-hover, .monaco-hover:not(.hidden)').filter({ visible: true, hasText: /\S/ });
  // A hover can stay after the pointer has left its target; still showing, it would be read for the new one.
  await page.mouse.move(0, 0);
  if ((await shown.count()) > 0) await page.keyboard.press('Escape');
  await shown.first().waitFor({ state: 'hidden', timeout });
  await locator.hover();
  const hover = shown.last();
  await hover.waitFor({ timeout });
  return (await hover.innerText()).trim();
}

/**
 * Hovers `locator` until its hover text matches every pattern, and returns that text. A hover shows
 * what was true when it opened, so each try opens it again.
 */
export async function waitForHoverText(page, locator, patterns, { timeout = 30_000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    // A tree re-rendered under the pointer (a server changing state) can swallow the hover: try again.
    const text = await hoverText(page, locator).catch((error) => {
      if (Date.now() > deadline) throw error;
      return '';
    });
    if (patterns.every((p) => p.test(text))) return text;
    if (Date.now() > deadline) throw new Error(`expected a hover matching ${patterns.join(' and ')} within ${timeout / 1000} s, got "${text}"`);
  }
}

/**
 * Waits until the text of `locator` (its first element) matches `pattern` and returns that text. On
 * timeout the error says what was shown instead.
 */
export async function waitForText(locator, pattern, { timeout = 30_000 } = {}) {
  const target = locator.first();
  const match = locator.filter({ hasText: pattern }).first();
  try {
    await match.waitFor({ timeout });
  } catch {
    const seen = await target.innerText({ timeout: 1_000 }).catch(() => undefined);
    throw new Error(`expected ${pattern} within ${timeout / 1000} s, ${seen === undefined ? 'but nothing was shown' : `got "${seen.trim()}"`}`);
  }
  return (await match.innerText()).trim();
}

/** The HTML document of the active webview (outer frame, then the frame holding the extension's HTML). */
export function webview(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function closeQuickInput(page) {
  if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
}

function escapeRegExp(value) {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function cssString(value) {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}

// MCP Harness's own UI, on the fixture workspace (test/e2e/fixtures/workspace).

/** The fixture workspace's servers in the order of its .mcp.json, which the view keeps. */
export const FIXTURE_SERVERS = ['everything', 'fixture', 'memory', 'broken'];

/** Row descriptions once every fixture server has settled: three running, `broken` failing to start. */
const SETTLED = { everything: /^\d+ tools$/, fixture: /^(\d+ of )?14 tools$/, memory: /^\d+ tools$/, broken: /^command not found/ };

/** The workbench's DOM id for the status bar item: the extension's id, then the item's own. */
const STATUS_ITEM_ID = 'mcp-harness.mcp-harness.mcpHarness.status';

/** The extension's status bar item (`MCP 3/4 · 37 tools`). */
export function mcpStatusItem(page) {
  return page.locator(`.part.statusbar .statusbar-item[id="${STATUS_ITEM_ID}"]`);
}

/** A row of the "MCP Servers" view whose label is `label`: a server, a group (`Tools`) or a tool. */
export function serverTreeRow(page, label) {
  return treeRow(page, label, { view: 'MCP Servers', exact: true });
}

/** The codicon a tree row shows for its item, e.g. `pass-filled` or `error`. */
export async function rowIcon(row) {
  const classes = (await row.locator('.custom-view-tree-node-item-icon').getAttribute('class')) ?? '';
  return /\bcodicon-([\w-]+)/.exec(classes.replace(/\bcodicon-colored\b/, ''))?.[1];
}

/** Expands a tree row unless it already is (a click on an expanded row would collapse it). */
export async function expandRow(row, { timeout = 30_000 } = {}) {
  if ((await row.getAttribute('aria-expanded')) !== 'true') await row.locator('.monaco-tl-twistie').click();
  await row.and(row.page().locator('[aria-expanded="true"]')).waitFor({ timeout });
}

/** Opens the workbench at `url` and the "MCP Servers" container, once its view lists every fixture server. */
export async function openServersView(page, url, { timeout = 90_000 } = {}) {
  await page.goto(url);
  await waitForWorkbench(page);
  await openViewContainer(page, 'MCP Servers', { timeout });
  for (const name of FIXTURE_SERVERS) await serverTreeRow(page, name).waitFor({ timeout });
}

/**
 * Answers "Start N MCP servers from .mcp.json?" with Start in the Notification Center and returns the
 * question as it was shown. `count` is the number of servers it must ask about.
 */
export async function approveFromNotification(page, { count, timeout = 90_000 } = {}) {
  const servers = count === undefined ? '\\d+ MCP servers?' : `${count} MCP ${count === 1 ? 'server' : 'servers'}`;
  const item = await findNotification(page, new RegExp(`^Start ${servers} from \\.mcp\\.json\\?`), { timeout });
  const question = (await item.locator('.notification-list-item-message').innerText()).trim();
  await item.locator('.monaco-button', { hasText: /^Start$/ }).click();
  await item.waitFor({ state: 'detached', timeout: 10_000 });
  return question;
}

/**
 * Waits until the fixture servers have settled (three running, `broken` in error, the status bar no
 * longer spinning) and returns each row's description by server name.
 */
export async function waitForServersSettled(page, { timeout = 90_000 } = {}) {
  const descriptions = {};
  for (const [name, pattern] of Object.entries(SETTLED)) {
    descriptions[name] = await waitForText(serverTreeRow(page, name).locator('.label-description'), pattern, { timeout });
  }
  await mcpStatusItem(page).locator('.codicon-plug').waitFor({ timeout });
  return descriptions;
}

/** Total tools of the running fixture servers, from their rows' descriptions (`14 tools`). */
export function toolTotal(descriptions) {
  return Object.values(descriptions).reduce((sum, d) => sum + Number(/^(\d+) tools?$/.exec(d)?.[1] ?? 0), 0);
}

/** The usual start of a scenario: the fixture workspace open, its servers approved and settled. Resolves the total tool count. */
export async function openApprovedWorkspace(ctx) {
  await openServersView(ctx.page, ctx.workbenchUrl());
  await approveFromNotification(ctx.page, { count: FIXTURE_SERVERS.length });
  return toolTotal(await waitForServersSettled(ctx.page));
}

/**
 * The text of the extension's own log ("MCP Harness" output channel) of the newest window on a
 * code-server, from the log file VS Code writes in its user data folder.
 */
export async function extensionLog(userDataDir, { channel = 'MCP Harness', timeout = 10_000 } = {}) {
  const files = (dir) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []).flatMap((e) => {
    const full = join(dir, e.name);
    return e.isDirectory() ? files(full) : e.name === `${channel}.log` ? [full] : [];
  });
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 200))) {
    const newest = files(join(userDataDir, 'logs')).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (newest) return readFileSync(newest, 'utf8');
    if (Date.now() > deadline) throw new Error(`no "${channel}.log" under ${userDataDir}/logs`);
  }
}
