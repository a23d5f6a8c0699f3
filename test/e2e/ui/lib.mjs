// Playwright helpers for driving the VS Code workbench served by code-server.
import { mkdtempSync, rmSync } from 'node:fs';
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
 * command shows up.
 */
export async function runCommand(page, title, { timeout = 30_000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    await closeQuickInput(page);
    await page.keyboard.press('F1');
    await input.waitFor({ timeout: Math.max(deadline - Date.now(), 1) });
    await input.fill(`>${title}`);
    try {
      await row.waitFor({ timeout: Math.min(3_000, Math.max(deadline - Date.now(), 1)) });
      break;
    } catch (error) {
      if (Date.now() >= deadline) throw new Error(`command "${title}" not found in the palette`, { cause: error });
    }
  }
  await page.keyboard.press('Enter');
}

/**
 * The Notification Center's entry whose text contains `text`. With the smoke-test driver, notifications
 * never show as toasts, only here.
 */
export async function findNotification(page, text, { timeout = 15_000 } = {}) {
  await showNotifications(page);
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
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
 * with it (e.g. `Servers`).
 */
export function treeRow(page, text, { view } = {}) {
  const scope = view
    ? page.locator('.pane', { has: page.locator(`.pane-header[aria-label^="${cssString(view)}"]`) })
    : page.locator('.part.sidebar, .part.panel, .part.auxiliarybar');
  return scope.locator('.monaco-list-row', { hasText: text }).first();
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
  await page.mouse.move(0, 0);
  await locator.hover();
  const hover = page.locator('.workbench-hover, .monaco-hover:not(.hidden)').filter({ hasText: /\S/ }).last();
  await hover.waitFor({ timeout });
  return (await hover.innerText()).trim();
}

/** The HTML document of the active webview (outer frame, then the frame holding the extension's HTML). */
export function webview(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

async function closeQuickInput(page) {
  if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
}

function cssString(value) {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
}
