// MCP Apps in the real chat panel: the official basic example server's tool renders its app in the
// card (dark, light and high-contrast themes reach it), a button in the app calls a tool through a
// permission card that names the app, a link the app asks for is asked about first, a message it
// sends is shown as the app's, its state survives the panel being hidden, and a reload shows it
// again (or a Reopen action). Our fixture app tries every way out of its sandbox and reports, from
// inside, through a tool call the user allows; every attempt must have failed.
import * as assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { approveFromNotification, openViewContainer, runCommand, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, lastCard, openChat, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

function workspace() {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcp-harness-apps-')), 'apps-workspace');
  cpSync(join(ROOT, 'test/e2e/fixtures/apps-workspace'), dir, { recursive: true });
  return dir;
}

/** The document of a card's app: the chat page, the sandbox page, the app's own frame. */
function appDocument(card) {
  return card.locator('mcp-app-frame .frame iframe').contentFrame().locator('iframe').contentFrame();
}

/** The card that waits for an answer about a call an app made. */
function appCallCard(chat, app) {
  return chat.locator('mcp-tool-card').filter({ hasText: `Called by the app of "${app}"` }).last();
}

/** Polls `read` until `accept` takes its value (a state, not a fixed sleep). */
async function waitUntil(read, accept, what, { timeout = 30_000 } = {}) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await read().catch((e) => `(${e.message})`);
    if (accept(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)} after ${timeout / 1000} s`);
}

/** Runs `/call TOOL {}` and allows it once; resolves with its card, done. */
async function callAllowed(chat, tool) {
  // A turn the app's message started must end first: Enter while a turn runs is not a send.
  await waitIdle(chat, { timeout: 60_000 });
  await send(chat, `/call ${tool} {}`);
  await waitCardState(lastCard(chat), 'waiting_for_approval');
  // By its id: an app it shows may add cards after it.
  const card = chat.locator(`mcp-tool-card[data-id="${await lastCard(chat).getAttribute('data-id')}"]`);
  await button(card, 'Allow once').click();
  await waitCardState(card, 'done', { timeout: 60_000 });
  return card;
}

export async function run(ctx) {
  const { page } = ctx;
  const folder = workspace();
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-apps-${name}.png`) });
  try {
    const url = ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath });
    await page.goto(url);
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    let chat = await openChat(page);
    await approveFromNotification(page, { count: 2 });
    await waitForText(serverTreeRow(page, 'basic').locator('.label-description'), /^1 tool$/, { timeout: 90_000 });
    await waitForText(serverTreeRow(page, 'fixture').locator('.label-description'), /^\d+ tools$/, { timeout: 90_000 });

    // The example's tool renders its app, fed the call's result.
    let card = await callAllowed(chat, 'mcp__basic__get-time');
    await card.locator('mcp-app-frame .frame[data-status="ready"]').waitFor({ timeout: 60_000 });
    let app = appDocument(card);
    const first = await waitForText(app.locator('#server-time'), /^\d{4}-\d\d-\d\dT/);

    // The theme reaches the app: its document follows dark, light and high contrast.
    for (const [theme, file, expected] of [['Dark Modern', 'dark', 'dark'], ['Light Modern', 'light', 'light'], ['Dark High Contrast', 'high-contrast', 'dark'], ['Light High Contrast', 'high-contrast-light', 'light']]) {
      await setColorTheme(page, theme);
      await app.locator(`html[data-theme="${expected}"]`).waitFor({ timeout: 30_000 });
      if (file === 'high-contrast') {
        // High contrast draws borders in its contrast colour: the app gets it as its border variable.
        await waitUntil(() => app.locator('html').evaluate((el) => getComputedStyle(el).getPropertyValue('--color-border-primary').trim()), (v) => /^#6fc3df$/i.test(v), 'the high-contrast border variable in the app');
      }
      await card.scrollIntoViewIfNeeded();
      await shot(file);
    }
    await setColorTheme(page, 'Dark Modern');

    // A button in the app calls a tool: the gate asks on a card that names the app.
    await app.locator('#get-time-btn').click();
    const asked = appCallCard(chat, 'Get Time');
    await waitCardState(asked, 'waiting_for_approval');
    await shot('app-call-card');
    await button(asked, 'Allow once').click();
    await waitCardState(asked, 'done');
    const second = await waitUntil(() => app.locator('#server-time').innerText(), (t) => /^\d{4}-/.test(t) && t !== first, 'the time the app shows after its call');

    // Hidden and shown again: the app keeps its state (a restarted app would show the first time again).
    await runCommand(page, 'View: Hide Secondary Side Bar');
    await runCommand(page, 'MCP: Open Chat');
    chat = await openChat(page);
    card = chat.locator('mcp-tool-card').filter({ has: chat.locator('mcp-app-frame') }).first();
    app = appDocument(card);
    assert.equal(await waitForText(app.locator('#server-time'), /^\d{4}-/), second, 'the app lost its state when the panel was hidden');

    // A link the app asks for is asked about first (and not opened when the user says no).
    await app.locator('#open-link-btn').click();
    const dialog = page.locator('.monaco-dialog-box');
    await waitForText(dialog, /The app "Get Time" asks to open https:\/\/modelcontextprotocol\.io\//);
    await shot('link-question');
    await dialog.locator('.monaco-button', { hasText: /^Cancel$/ }).click();
    await dialog.waitFor({ state: 'detached' });

    // A message the app sends is shown as the app's.
    await app.locator('#send-message-btn').click();
    await waitForText(chat.locator('mcp-chat-item').filter({ hasText: 'This is message text.' }).locator('.role'), /^App "Get Time"$/);

    // The fixture app tries to leave its sandbox, then reports through a call the user allows.
    const escape = await callAllowed(chat, 'mcp__fixture__escape');
    await escape.locator('mcp-app-frame .frame[data-status="ready"]').waitFor({ timeout: 60_000 });
    const report = appCallCard(chat, 'Escape');
    await waitCardState(report, 'waiting_for_approval', { timeout: 60_000 });
    await shot('escape-report-card');
    await button(report, 'Allow once').click();
    await waitCardState(report, 'done');
    await waitForText(appDocument(escape).locator('#status'), /^reported$/);
    const result = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'));
    ctx.log(`escape attempts: ${JSON.stringify(result)}`);
    const escaped = Object.entries(result.attempts).filter(([, a]) => a.escaped);
    assert.deepEqual(escaped, [], 'an attempt of the fixture app escaped its sandbox');
    assert.ok(Object.keys(result.attempts).length >= 14, `too few attempts were reported: ${Object.keys(result.attempts).join(', ')}`);
    assert.equal(result.allowed, 'HTTP 200', 'the origin the app declared was not reachable: its policy is not the one it declared');
    assert.equal(result.allowedHits, 1);
    assert.equal(result.forbiddenHits, 0, 'a request outside the app\'s policy reached its server');
    assert.ok(!existsSync(join(folder, 'report.json.forged')), 'a forged message made a tool call');
    assert.equal(await chat.getByText('FORGED BY THE APP').count(), 0, 'a forged message was shown in the chat');
    assert.ok(page.url().startsWith(url.split('?')[0]), `the workbench navigated away: ${page.url()}`);
    await escape.scrollIntoViewIfNeeded();
    await shot('escape-reported');

    // A broken app: a clear message and Reopen, never a blank frame.
    const broken = await callAllowed(chat, 'mcp__fixture__wrong_mime');
    await waitForText(broken.locator('mcp-app-frame [role="alert"]'), /its MIME type is "text\/html", not "text\/html;profile=mcp-app"/);
    await button(broken.locator('mcp-app-frame'), 'Reopen').waitFor();
    assert.equal(await broken.locator('mcp-app-frame iframe').count(), 0);
    await shot('broken-app');

    // A reload: the app comes back, or says why and offers Reopen (then it comes back).
    await page.reload();
    await waitForWorkbench(page);
    chat = await openChat(page);
    card = chat.locator('mcp-tool-card').filter({ hasText: 'mcp__basic__get-time', has: chat.locator('mcp-app-frame') }).first();
    const frame = card.locator('mcp-app-frame');
    const ready = frame.locator('.frame[data-status="ready"]');
    const reopen = button(frame, 'Reopen');
    await ready.or(reopen).first().waitFor({ timeout: 90_000 });
    if (await reopen.isVisible()) {
      ctx.log(`after the reload: ${await frame.locator('[role="alert"]').innerText()}`);
      await waitForText(serverTreeRow(page, 'basic').locator('.label-description'), /^1 tool$/, { timeout: 90_000 });
      await reopen.click();
    }
    await frame.locator('.frame[data-status="ready"]').waitFor({ timeout: 60_000 });
    await waitForText(appDocument(card).locator('#server-time'), /^\d{4}-/);
    await card.scrollIntoViewIfNeeded();
    await shot('reloaded');
  } finally {
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
