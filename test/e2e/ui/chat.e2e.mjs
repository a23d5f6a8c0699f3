// The chat against an OpenAI-compatible fake model on loopback that asks for a tool of the counter
// server (which records every call it runs): Deny runs nothing and the model gets the reason; Allow
// once runs it and the answer shows the result; Allow for this session runs the next call without a
// card; Stop during a slow call cancels it on the server; the chat and its history survive a reload.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startFakeModel, FAKE_MODEL_ID } from '../support/fakeOpenAiModel.mjs';
import { expandRow, rowIcon, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, chatWorkspace, counterLog, lastCard, messageBox, openChat, openChatWorkspace, send, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace(model.chatSettings);
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-chat-${name}.png`) });
  try {
    let chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));
    await shot('1-open');

    // Deny with a reason: the server sees nothing, the model gets the reason.
    await send(chat, 'count please');
    let card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    for (const name of ['Allow once', 'Allow for this session', 'Always allow in this workspace', 'Deny', 'Allow all tools of counter for this session']) {
      await button(card, name).waitFor();
    }
    assert.equal(await card.locator('.name').innerText(), 'Count a call');
    await shot('2-permission-card');
    await card.getByRole('textbox', { name: 'Reason for denying (optional)' }).fill('not today');
    await button(card, 'Deny').click();
    await waitCardState(card, 'denied');
    await waitForText(chat.locator('mcp-chat-item .md'), /Not run: The user denied this call\. Reason: not today/);
    await waitIdle(chat);
    assert.deepEqual(counterLog(folder), [], 'a denied call reached the server');
    const toolMessage = model.requests.at(-1).messages.at(-1);
    assert.equal(toolMessage.role, 'tool');
    assert.match(toolMessage.content, /not today/);
    await shot('3-denied');

    // Allow once: it runs, and the answer shows the result.
    await send(chat, 'count again');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitCardState(card, 'done');
    await waitForText(chat.locator('mcp-chat-item .md'), /Result: call number 1/);
    await waitIdle(chat);
    assert.deepEqual(counterLog(folder), ['call count']);
    await shot('4-allowed-once');

    // Allow for this session: this call and the next run, the next without a card.
    await send(chat, 'count for the session');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow for this session').click();
    await waitForText(chat.locator('mcp-chat-item .md'), /Result: call number 2/);
    await waitIdle(chat);
    const cards = await chat.locator('mcp-tool-card').count();
    await send(chat, 'count without asking');
    await waitForText(chat.locator('mcp-chat-item .md'), /Result: call number 3/);
    await waitIdle(chat);
    assert.equal(await chat.locator('mcp-tool-card').count(), cards + 1);
    await waitCardState(lastCard(chat), 'done');
    assert.equal(await button(lastCard(chat), 'Allow once').count(), 0, 'the session approval should have answered');
    assert.deepEqual(counterLog(folder), ['call count', 'call count', 'call count']);
    
    assert.match(await chat.locator('mcp-chat-item .usage').last().innerText(), /^This turn: [\d,]+ tokens in · [\d,]+ out$/);
    await shot('5-session');

    // Stop during a slow call: the card says cancelled and the server was told.
    await send(chat, 'slow please');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitCardState(card, 'running');
    await waitForText(card.locator('.progress'), /step \d/);
    await shot('6-running');
    await button(chat, 'Stop').click();
    await waitCardState(card, 'cancelled');
    await waitIdle(chat);
    await waitFor(() => counterLog(folder).includes('cancelled slow_count'), 'the server to see the cancellation');
    await shot('7-cancelled');

    // Escape in the panel stops too; a card still waiting is denied, so nothing runs.
    await send(chat, 'slow again');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await messageBox(chat).press('Escape');
    await waitCardState(card, 'cancelled');
    await waitIdle(chat);
    assert.equal(counterLog(folder).filter((l) => l === 'call slow_count').length, 1, 'a call stopped before approval ran');

    // A poisoned tool: flagged in the tree, and its card shows the hidden text made visible.
    await send(chat, 'notes please');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    const warnings = await card.locator('.warnings').innerText();
    assert.match(warnings, /Suspicious content/);
    assert.match(warnings, /<U\+200B>/);
    assert.match(warnings, /Ignore previous instructions/i);
    await shot('7b-poisoned-card');
    await button(card, 'Deny').click();
    await waitCardState(card, 'denied');
    await waitIdle(chat);
    assert.ok(!counterLog(folder).includes('call notes'));
    await expandRow(serverTreeRow(page, 'counter'));
    await expandRow(serverTreeRow(page, 'Tools'));
    await waitForText(serverTreeRow(page, 'notes').locator('.label-description'), /^⚠ suspicious/);
    assert.equal(await rowIcon(serverTreeRow(page, 'notes')), 'warning');
    await shot('7c-poisoned-tree');

    // A reload: the conversation comes back, and so does its entry in the history.
    await page.reload();
    await waitForWorkbench(page);
    chat = await openChat(page);
    await waitForText(chat.locator('mcp-chat-item').filter({ hasText: 'call number 3' }), /Result: call number 3/);
    await waitCardState(lastCard(chat), 'denied');
    await chat.locator('mcp-tool-card .state[data-state="cancelled"]').first().waitFor();
    await button(chat, 'History').click();
    await waitForText(chat.locator('mcp-chat-header li'), /Count please/);
    await shot('8-reloaded');

    // New Chat empties the transcript; the earlier one reopens from the history.
    await button(chat, 'New Chat').click();
    await chat.locator('mcp-tool-card').first().waitFor({ state: 'detached' });
    await button(chat, 'History').click();
    await chat.locator('mcp-chat-header li button', { hasText: 'count please' }).click();
    await waitForText(chat.locator('mcp-chat-item').filter({ hasText: 'call number 3' }), /call number 3/);
    ctx.log(`model requests: ${model.requests.length}, server log: ${counterLog(folder).join(', ')}`);
  } finally {
    await model.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}

async function waitFor(check, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
