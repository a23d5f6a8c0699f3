// The demo workspace as a fresh clone has it (no gitignored `.harness/`), with the chat talking to
// "Demo model (offline, scripted)" on loopback: "MCP: Open Chat" puts the caret in the message box,
// the chat has the full height of its own side bar, the empty chat offers the README's examples,
// and each of them answers correctly the first time (the memory server writes into a folder the
// harness created before starting it).
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEMO_MODEL_ID, DEMO_MODEL_PORT, startDemoModel } from '../../../demo/model/demoModel.mjs';
import { approveFromNotification, openViewContainer, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, freshDemo, lastCard, messageBox, openChat, send, themedShots, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-chat-demo-${name}.png`) });
  let model;
  try {
    model = await startDemoModel();
  } catch (error) {
    throw new Error(`the demo model needs port ${DEMO_MODEL_PORT} (demo/.vscode/settings.json): ${error.code ?? error.message}`);
  }
  const demo = freshDemo();
  assert.equal(existsSync(join(demo, '.harness')), false);
  try {
    await page.goto(ctx.server.workbenchUrl({ folder: demo, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    await openChat(page);
    await approveFromNotification(page, { count: 3 });
    await waitForText(serverTreeRow(page, 'everything').locator('.label-description'), /^\d+ tools$/, { timeout: 90_000 });
    await waitForText(serverTreeRow(page, 'memory').locator('.label-description'), /^\d+ tools$/, { timeout: 90_000 });

    // "MCP: Open Chat", then typing: the text lands in the message box.
    const chat = await openChat(page);
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(DEMO_MODEL_ID.replace(/[()]/g, '\\$&')));
    await page.keyboard.type('typed straight away');
    assert.equal(await messageBox(chat).inputValue(), 'typed straight away');
    const frame = await page.locator('iframe.webview.ready').first().boundingBox();
    assert.ok(frame && frame.height >= 540, `the chat is ${frame?.height} px high at 1400x900`);
    ctx.log(`chat view: ${Math.round(frame.width)} x ${Math.round(frame.height)} px at 1400x900`);
    await themedShots(page, ctx.resultsDir, 'ui-chat-demo-0-typed');
    await messageBox(chat).fill('');

    // The empty chat offers what the demo model understands; a click sends it.
    const suggestions = chat.getByRole('group', { name: 'Suggestions' });
    await button(suggestions, 'what do you remember?').waitFor();
    await shot('1-suggestions');
    const sentAt = Date.now();
    await button(suggestions, 'remember that the build uses esbuild').click();
    let card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    ctx.log(`first card on screen ${Date.now() - sentAt} ms after the suggestion was clicked`);
    assert.match(await card.locator('.muted').first().innerText(), /memory · mcp__memory__create_entities/);
    await button(card, 'Allow once').click();
    await waitCardState(card, 'done');
    await waitIdle(chat);
    assert.match(readFileSync(join(demo, '.harness', 'memory.jsonl'), 'utf8'), /the build uses esbuild/);

    await send(chat, 'what do you remember?');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitForText(chat.locator('mcp-chat-item .md').last(), /the build uses esbuild/);
    await waitIdle(chat);

    const before = await chat.locator('mcp-tool-card').count();
    await send(chat, 'what files are in this workspace?');
    for (let i = 0; i < 2; i++) {
      card = chat.locator('mcp-tool-card').nth(before + i);
      await waitCardState(card, 'waiting_for_approval');
      await button(card, 'Allow once').click();
      await waitCardState(card, 'done');
    }
    await waitForText(chat.locator('mcp-chat-item .md').last(), /\.mcp\.json/);
    await waitIdle(chat);

    await send(chat, 'echo hello world');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitForText(chat.locator('mcp-chat-item .md').last(), /hello world/);
    await waitIdle(chat);

    const answeredAt = Date.now();
    await send(chat, 'add 2 and 3');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitForText(chat.locator('mcp-chat-item .md').last(), /The sum of 2 and 3 is 5/);
    ctx.log(`"add 2 and 3": answer on screen ${Date.now() - answeredAt} ms after Send (the card's click included)`);
    await waitIdle(chat);
    await themedShots(page, ctx.resultsDir, 'ui-chat-demo-2-answers');

    // First token on screen after Send, for an answer without tools (printed, not asserted).
    const firstTokens = [];
    for (const text of ['hello', 'what can you do?', 'help']) {
      const answers = chat.locator('mcp-chat-item .md');
      const before = await answers.count();
      await messageBox(chat).fill(text);
      const sent = Date.now();
      await messageBox(chat).press('Enter');
      await answers.nth(before).filter({ hasText: /\S/ }).waitFor();
      firstTokens.push(Date.now() - sent);
      await waitIdle(chat);
    }
    ctx.log(`first token on screen after Send (demo model): ${firstTokens.join(' ms, ')} ms`);
  } finally {
    await model.close();
    rmSync(dirname(demo), { recursive: true, force: true });
  }
}
