// Helpers for the chat scenarios: a scratch copy of the chat workspace pointed at a fake model, and
// the chat panel's controls by their accessible names.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approveFromNotification, openViewContainer, runCommand, serverTreeRow, waitForText, waitForWorkbench, webview } from './lib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** A scratch copy of test/e2e/fixtures/chat-workspace with these workspace settings. */
export function chatWorkspace(settings) {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcp-harness-chat-')), 'chat-workspace');
  cpSync(join(ROOT, 'test/e2e/fixtures/chat-workspace'), dir, { recursive: true });
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  writeFileSync(join(dir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
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

/** "MCP: Open Chat", then the chat's document once its message box is shown. */
export async function openChat(page) {
  await runCommand(page, 'MCP: Open Chat');
  const chat = webview(page);
  await messageBox(chat).waitFor({ timeout: 60_000 });
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
}
