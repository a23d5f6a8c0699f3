// Two tool calls a model gave the same id, in one message: each gets its own card, each card is
// answered on its own (Deny on one, Allow once on the other), exactly the allowed one reaches the
// server, and the turn ends without Stop.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { startFakeModel, FAKE_MODEL_ID } from '../support/fakeOpenAiModel.mjs';
import { waitForText } from './lib.mjs';
import { button, chatWorkspace, counterLog, openChatWorkspace, send, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace(model.chatSettings);
  try {
    const chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));
    await send(chat, 'twins please');
    const cards = chat.locator('mcp-tool-card');
    await waitCardState(cards.nth(0), 'waiting_for_approval');
    await waitCardState(cards.nth(1), 'waiting_for_approval');
    assert.equal(await cards.count(), 2, 'one card per call');
    const first = cards.filter({ hasText: 'twins please #1' });
    const second = cards.filter({ hasText: 'twins please #2' });
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-duplicate-ids-cards.png') });
    await first.getByRole('textbox', { name: 'Reason for denying (optional)' }).fill('not the first');
    await button(first, 'Deny').click();
    await waitCardState(first, 'denied');
    // The other card still waits, and its own answer applies to its own call.
    await waitCardState(second, 'waiting_for_approval');
    await button(second, 'Allow once').click();
    await waitCardState(second, 'done');
    await waitIdle(chat);
    assert.deepEqual(counterLog(folder), ['call count'], 'exactly the allowed call reached the server');
    const results = model.requests.at(-1).messages.filter((m) => m.role === 'tool');
    assert.equal(results.length, 2);
    assert.match(results.map((r) => r.content).join('\n'), /not the first/);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-duplicate-ids-answered.png') });
  } finally {
    await model.close();
  }
}
