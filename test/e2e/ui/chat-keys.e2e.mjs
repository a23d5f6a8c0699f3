// The chat by keyboard alone, and cards that show risk, in the fresh demo workspace with the demo
// model: a write gets a warning card leading with Preview Change (which opens the diff editor)
// and a short diff; Alt+C reaches the card from the message box and Alt+A allows it; Enter in an
// empty message box answers nothing; Enter in the reason box denies with that reason; Up/Down
// walk earlier prompts; a card with 80-line arguments keeps Allow once in view.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEMO_MODEL_PORT, startDemoModel } from '../../../demo/model/demoModel.mjs';
import { approveFromNotification, openViewContainer, runCommand, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, freshDemo, inView, isFocused, lastCard, messageBox, openChat, themedShots, waitCardState, waitFocused, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-chat-keys-${name}.png`) });
  let model;
  try {
    model = await startDemoModel();
  } catch (error) {
    throw new Error(`the demo model needs port ${DEMO_MODEL_PORT}: ${error.code ?? error.message}`);
  }
  const demo = freshDemo();
  try {
    await page.goto(ctx.server.workbenchUrl({ folder: demo, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    await openChat(page);
    await approveFromNotification(page, { count: 3 });
    await waitForText(serverTreeRow(page, 'filesystem').locator('.label-description'), /^\d+ tools$/, { timeout: 90_000 });
    let chat = await openChat(page);
    const box = messageBox(chat);

    // A write: warning card, Preview Change first, the diff on the card.
    await page.keyboard.type('write hello to notes.txt');
    await page.keyboard.press('Enter');
    let card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await card.locator('.card.changes').waitFor();
    await waitForText(card.locator('pre.diff'), /\+hello/);
    assert.equal(await button(card, 'Allow once').getAttribute('secondary'), '', 'Allow once must not be the primary button of a write');
    assert.equal(await button(card, 'Preview Change').getAttribute('secondary'), null);
    assert.match(await button(card, 'Allow once').getAttribute('title'), /Alt\+A/);
    await shot('1-write-card');

    // Enter in the empty message box answers nothing.
    assert.ok(await isFocused(box), 'the message box keeps the focus after Send');
    await page.keyboard.press('Enter');
    await waitCardState(card, 'waiting_for_approval');

    // Alt+C: to the card (its first button, Preview Change); Enter opens the diff editor.
    await page.keyboard.press('Alt+C');
    await waitFocused(button(card, 'Preview Change'), 'the card, after Alt+C,');
    await page.keyboard.press('Enter');
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30_000 });
    await waitForText(page.locator('.tabs-container .tab.active'), /proposed change/);
    assert.ok(!existsSync(join(demo, 'notes.txt')), 'a preview wrote the file');
    // The diff editor beside the warning card, in each theme.
    await themedShots(page, ctx.resultsDir, 'ui-chat-keys-2-preview-diff');

    // Back in the chat by "MCP: Open Chat"; Alt+C, Alt+A allows once.
    chat = await openChat(page);
    card = lastCard(chat);
    await waitFocused(messageBox(chat), 'the message box, after MCP: Open Chat,');
    await page.keyboard.press('Alt+C');
    await waitFocused(button(card, 'Preview Change'), 'the card, after Alt+C,');
    // The card with the keyboard focus on it, in each theme (a theme pick takes the focus: Alt+C again).
    const focusCard = async () => {
      await messageBox(chat).click();
      await page.keyboard.press('Alt+C');
      await waitFocused(button(card, 'Preview Change'), 'the card, after Alt+C,');
    };
    await themedShots(page, ctx.resultsDir, 'ui-chat-keys-2b-keyboard-card', { show: focusCard });
    await page.keyboard.press('Alt+A');
    await waitCardState(card, 'done');
    await waitIdle(chat);
    assert.equal(readFileSync(join(demo, 'notes.txt'), 'utf8'), 'hello\n');

    // Deny with a reason, by keyboard: Shift+Tab from the message box reaches the reason box.
    await box.focus();
    await page.keyboard.type('echo keyboard only');
    await page.keyboard.press('Enter');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    const reason = card.getByRole('textbox', { name: 'Reason for denying (optional)' });
    for (let i = 0; i < 4 && !(await isFocused(reason)); i++) await page.keyboard.press('Shift+Tab');
    assert.ok(await isFocused(reason), 'Shift+Tab from the message box reaches the reason box');
    await page.keyboard.type('not by keyboard');
    await page.keyboard.press('Enter');
    await waitCardState(card, 'denied');
    await waitForText(chat.locator('mcp-chat-item .md').last(), /not by keyboard/);
    await waitIdle(chat);

    // Up and Down in the empty message box walk the earlier prompts.
    await box.focus();
    await page.keyboard.press('ArrowUp');
    assert.equal(await box.inputValue(), 'echo keyboard only');
    await page.keyboard.press('ArrowUp');
    assert.equal(await box.inputValue(), 'write hello to notes.txt');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await box.inputValue(), '');

    // 80 edits (over 300 lines of arguments): collapsed, Allow once in view, "Show all" opens them.
    const edits = Array.from({ length: 80 }, (_, i) => ({ oldText: `line ${i}`, newText: `LINE ${i}` }));
    await box.fill(`/call mcp__filesystem__edit_file ${JSON.stringify({ path: 'notes.txt', edits })}`);
    await box.press('Enter');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await card.locator('pre.clamped').waitFor();
    assert.ok(await inView(button(card, 'Allow once')), 'Allow once of a card with long arguments is out of view');
    assert.ok(await inView(button(card, 'Deny')));
    await themedShots(page, ctx.resultsDir, 'ui-chat-keys-3-long-arguments');
    await card.getByRole('button', { name: /^Show all \(\d+ lines\)$/ }).click();
    await card.locator('pre.clamped').waitFor({ state: 'detached' });
    await page.keyboard.press('Alt+C');
    await page.keyboard.press('Alt+D');
    await waitCardState(card, 'denied');
    await waitIdle(chat);

    // Remembered approvals run the next call without a card, and say so; one revoked, its next call
    // asks again while the other still runs without asking.
    const allowForSession = async (text) => {
      await box.focus();
      await box.fill(text);
      await box.press('Enter');
      const asked = lastCard(chat);
      await waitCardState(asked, 'waiting_for_approval');
      await button(asked, 'Allow for this session').click();
      await waitCardState(asked, 'done');
      await waitIdle(chat);
    };
    /** Sends `text` and waits for the card of the call it makes, answered without asking. */
    const runsWithoutCard = async (text) => {
      const cards = await chat.locator('mcp-tool-card').count();
      await box.fill(text);
      await box.press('Enter');
      const ran = chat.locator('mcp-tool-card').nth(cards);
      await waitCardState(ran, 'done');
      await waitIdle(chat);
      assert.equal(await chat.locator('mcp-tool-card').count(), cards + 1);
      assert.equal(await ran.locator('.decided').innerText(), 'allowed for this session');
    };
    await allowForSession('echo one');
    await allowForSession('add 2 and 3');
    await runsWithoutCard('echo two');
    await runsWithoutCard('add 3 and 4');
    const approvalRow = (text) => page.locator('.quick-input-list .monaco-list-row', { hasText: text });
    const showApprovals = async () => {
      await runCommand(page, 'MCP: Manage Tool Approvals');
      await waitForText(approvalRow('everything · echo'), /allowed for this session/);
      await waitForText(approvalRow('everything · get-sum'), /allowed for this session/);
    };
    const hideApprovals = async () => {
      await page.keyboard.press('Escape');
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    };
    await themedShots(page, ctx.resultsDir, 'ui-chat-keys-5-manage-approvals', { show: showApprovals, hide: hideApprovals });
    await showApprovals();
    await approvalRow('everything · echo').click();
    await approvalRow('everything · echo').waitFor({ state: 'detached' });
    await waitForText(approvalRow('everything · get-sum'), /allowed for this session/);
    await hideApprovals();
    chat = await openChat(page);
    await box.fill('echo three');
    await box.press('Enter');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await page.keyboard.press('Alt+C');
    await page.keyboard.press('Alt+D');
    await waitCardState(card, 'denied');
    await waitIdle(chat);
    await runsWithoutCard('add 5 and 6');

    // The same conversation in an editor tab (a second webview, after the side bar's), caret in its box.
    await runCommand(page, 'MCP: Open Chat in Editor');
    await page.locator('.tabs-container .tab.active', { hasText: 'MCP Chat' }).waitFor({ timeout: 30_000 });
    const tab = page.frameLocator('iframe.webview.ready >> nth=1').frameLocator('iframe#active-frame');
    await waitForText(tab.locator('mcp-chat-item').filter({ hasText: 'echo three' }).first(), /echo three/, { timeout: 60_000 });
    await waitFocused(messageBox(tab), 'the message box of the editor tab');
    await page.keyboard.type('in the tab');
    assert.equal(await messageBox(tab).inputValue(), 'in the tab');
    await shot('4-editor-tab');
  } finally {
    await model.close();
    rmSync(dirname(demo), { recursive: true, force: true });
  }
}
