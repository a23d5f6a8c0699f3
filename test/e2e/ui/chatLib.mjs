// Helpers for the chat scenarios: a scratch copy of the chat workspace pointed at a fake model, and
// the chat panel's controls by their accessible names.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approveFromNotification, openViewContainer, runCommand, serverTreeRow, waitForText, waitForWorkbench, webview } from './lib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** A scratch copy of test/e2e/fixtures/chat-workspace with these workspace settings (and `files`, by relative path). */
export function chatWorkspace(settings, files = {}) {
  return scratchWorkspace('chat-workspace', settings, files);
}

/**
 * A scratch workspace named `name` (a copy of test/e2e/fixtures/NAME when there is one, else empty)
 * with these workspace settings and `files` (by relative path), alone in a fresh temporary folder
 * (its parent, free for a scenario's own files).
 */
export function scratchWorkspace(name, settings, files = {}) {
  const dir = join(mkdtempSync(join(tmpdir(), `mcp-harness-${name}-`)), name);
  const fixture = join(ROOT, 'test/e2e/fixtures', name);
  if (existsSync(fixture)) cpSync(fixture, dir, { recursive: true });
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  writeFileSync(join(dir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/**
 * A copy of demo/ as a fresh clone has it (no gitignored `.harness/`), beside a link to this
 * checkout's node_modules as its `${workspaceFolder}/..` paths expect. Remove `dirname(result)` after.
 */
export function freshDemo() {
  const parent = mkdtempSync(join(tmpdir(), 'mcp-harness-demo-'));
  symlinkSync(join(ROOT, 'node_modules'), join(parent, 'node_modules'), 'dir');
  const demo = join(parent, 'demo');
  const harness = join(ROOT, 'demo', '.harness');
  cpSync(join(ROOT, 'demo'), demo, { recursive: true, filter: (src) => src !== harness && !src.startsWith(`${harness}/`) });
  return demo;
}

/** Lines the counter server wrote (`call count`, `cancelled slow_count`). */
export function counterLog(dir) {
  const file = join(dir, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** Opens the workspace, starts its server (answering the notification) and the chat view. */
export async function openChatWorkspace(page, url) {
  await page.goto(url);
  await waitForWorkbench(page);
  await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
  // The chat has its own container (the secondary side bar); once it has loaded it no longer takes
  // the focus (which would close the Notification Center under the question).
  const chat = await openChat(page);
  await approveFromNotification(page, { count: 1 });
  await waitForText(serverTreeRow(page, 'counter').locator('.label-description'), /^3 tools$/, { timeout: 90_000 });
  return chat;
}

/** "MCP: Open Chat", then the chat's document once its message box is shown and has the focus. */
export async function openChat(page) {
  await runCommand(page, 'MCP: Open Chat');
  const chat = webview(page);
  await messageBox(chat).waitFor({ timeout: 60_000 });
  await waitFocused(messageBox(chat), 'the message box, after "MCP: Open Chat",');
  return chat;
}

export function messageBox(chat) {
  return chat.getByRole('textbox', { name: 'Message' });
}

export function button(scope, name) {
  return scope.getByRole('button', { name, exact: true });
}

/** Sends a message with Enter. */
export async function send(chat, text) {
  await messageBox(chat).fill(text);
  await messageBox(chat).press('Enter');
}

/** Waits until no turn runs (Send enabled again). */
export async function waitIdle(chat, { timeout = 30_000 } = {}) {
  await chat.locator('mcp-composer vscode-button:not([disabled])', { hasText: /^\s*Send\s*$/ }).waitFor({ timeout });
}

/** The last tool card, and its state as the card shows it (`data-state`). */
export function lastCard(chat) {
  return chat.locator('mcp-tool-card').last();
}

export async function waitCardState(card, state, { timeout = 30_000 } = {}) {
  await card.locator(`.state[data-state="${state}"]`).waitFor({ timeout });
}

/** Picks a colour theme in the theme picker (Ctrl+K Ctrl+T) by its exact name. */
export async function setColorTheme(page, name) {
  await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } });
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+T');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(name);
  const row = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) }).first();
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  const kind = /High Contrast/.test(name) ? (/Light/.test(name) ? 'hc-light' : 'hc-black') : /Light/.test(name) ? 'vs' : 'vs-dark';
  await page.locator(`.monaco-workbench.${kind}`).waitFor({ timeout: 30_000 });
  // Each webview gets the theme's colours in one message, which also names the theme on its body.
  const webviews = await page.locator('iframe.webview.ready').count();
  for (let i = 0; i < webviews; i++) {
    const doc = page.frameLocator(`iframe.webview.ready >> nth=${i}`).frameLocator('iframe#active-frame');
    await doc.locator(`body[data-vscode-theme-name="${name}"]`).waitFor({ state: 'attached', timeout: 30_000 });
  }
}

/** Whether `locator` has the focus inside its document. */
export function isFocused(locator) {
  return locator.evaluate((el) => el.matches(':focus'));
}

/** Waits until `locator` has the focus (focus moves between the workbench and a webview asynchronously). */
export async function waitFocused(locator, what, timeout = 30_000) {
  for (const deadline = Date.now() + timeout; !(await isFocused(locator)); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`${what} did not get the focus within ${timeout / 1000} s`);
  }
}

/** Whether the element's box lies inside its webview's viewport. */
export function inView(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
  });
}

/** Picks a model in the chat's picker by (part of) its label. */
export async function pickModel(chat, label) {
  await chat.locator('mcp-chat-header vscode-single-select').click();
  await chat.getByRole('option', { name: label }).click();
  await waitForText(chat.locator('mcp-chat-header vscode-single-select'), label);
}

/** The label of the model the picker shows now (its tooltip: the label itself is in the picker's shadow root). */
export async function shownModel(chat) {
  return (await chat.locator('mcp-chat-header vscode-single-select').getAttribute('title')) ?? '';
}

/** Opens a workspace file in the editor by Quick Open, and waits for its tab. */
export async function openFile(page, name) {
  await page.locator('.monaco-workbench .part.editor').click({ position: { x: 300, y: 300 } });
  const input = page.locator('.quick-input-widget input');
  for (const deadline = Date.now() + 30_000; ; ) {
    await page.keyboard.press('Control+P');
    if (await input.waitFor({ timeout: 5_000 }).then(() => true, () => false)) break;
    if (Date.now() > deadline) throw new Error('Quick Open did not open');
  }
  await input.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: name }).waitFor({ timeout: 30_000 });
}

/** "Add Context..." in the chat, then the row of its question whose label contains `choice`. */
export async function addContext(page, chat, choice) {
  await button(chat, 'Add Context...').click();
  const row = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: choice }) }).first();
  await row.waitFor({ timeout: 30_000 });
  await row.click();
}

/** The chips of what goes with the next message, by label. */
export function contextChips(chat) {
  return chat.locator('mcp-composer .chip');
}

/** The themes every proof is shown in, and the file name suffix of each; the last is the default's. */
export const THEMES = [['Light Modern', 'light'], ['Dark High Contrast', 'high-contrast'], ['Dark Modern', 'dark']];

/**
 * Screenshots in a light, a high-contrast and a dark theme (`<name>-light.png` ...), ending in the
 * dark one. Picking a theme moves the focus to the workbench: `show` (after each theme is set)
 * brings back what is to be seen (a dropdown, a quick pick), `hide` closes it again.
 */
export async function themedShots(page, resultsDir, name, { show, hide } = {}) {
  for (const [theme, file] of THEMES) {
    await setColorTheme(page, theme);
    await show?.();
    await page.screenshot({ path: join(resultsDir, `${name}-${file}.png`) });
    await hide?.();
  }
}

/** Polls `check` (sync or async) until it is true. */
export async function waitUntil(check, what, timeout = 30_000) {
  for (const deadline = Date.now() + timeout; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
  }
}
