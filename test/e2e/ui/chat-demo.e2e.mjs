// The demo workspace as `npm start` opens it: the chat talks to "Demo model (offline, scripted)" on
// loopback through the OpenAI-compatible provider, with no key, and the whole loop shows: message,
// tool-call card, permission card, result, answer.
import * as assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_MODEL_ID, DEMO_MODEL_PORT, startDemoModel } from '../../../demo/model/demoModel.mjs';
import { approveFromNotification, openViewContainer, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, lastCard, openChat, send, waitCardState, waitIdle } from './chatLib.mjs';

const DEMO = resolve(fileURLToPath(new URL('../../../demo', import.meta.url)));

export async function run(ctx) {
  const { page } = ctx;
  let model;
  try {
    model = await startDemoModel();
  } catch (error) {
    throw new Error(`the demo model needs port ${DEMO_MODEL_PORT} (demo/.vscode/settings.json): ${error.code ?? error.message}`);
  }
  try {
    await page.goto(ctx.server.workbenchUrl({ folder: DEMO, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    const chat = await openChat(page);
    await approveFromNotification(page, { count: 3 });
    await waitForText(serverTreeRow(page, 'everything').locator('.label-description'), /^\d+ tools$/, { timeout: 90_000 });
    await page.locator('.pane-header[aria-label^="MCP Servers"]').click();
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(DEMO_MODEL_ID.replace(/[()]/g, '\\$&')));

    await send(chat, 'what can you do?');
    await waitForText(chat.locator('mcp-chat-item .md'), /add 2 and 3/);
    await waitIdle(chat);

    await send(chat, 'add 2 and 3');
    const card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    assert.match(await card.locator('.muted').first().innerText(), /everything · mcp__everything__get-sum/);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-demo-1-card.png') });
    await button(card, 'Allow once').click();
    await waitCardState(card, 'done');
    await waitForText(chat.locator('mcp-chat-item .md'), /The sum of 2 and 3 is 5/);
    await waitIdle(chat);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-demo-2-answer.png') });
  } finally {
    await model.close();
  }
}
