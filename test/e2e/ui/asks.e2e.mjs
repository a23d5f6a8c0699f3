// Servers that ask, with the reference server: it offers its elicitation, URL and sampling tools
// and their task-augmented (-async) variants (19 in all); trigger-elicitation-request shows a form card whose values are checked before
// Submit sends them, and Decline declines; trigger-url-elicitation names the page's host and opens
// nothing when declined; trigger-sampling-request shows the sampling card and, allowed once, is
// answered by the chat's model (the loopback fake model). Screenshots light and dark.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { FAKE_MODEL_ID, startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { approveFromNotification, openViewContainer, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, lastCard, openChat, scratchWorkspace, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = scratchWorkspace('asks-workspace', {
    ...model.chatSettings,
    // The tool calls themselves are allowed: the cards under test are the servers' questions.
    'mcpHarness.permissions.allow': ['mcp__everything__*'],
    'mcpHarness.sampling.maxTokens': { everything: 80 },
  });
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-asks-${name}.png`) });
  const resultOf = async (card) => (await card.locator('vscode-collapsible[title="Result"] pre').textContent()) ?? '';
  try {
    await page.goto(ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    const chat = await openChat(page);
    await approveFromNotification(page, { count: 1 });
    await waitForText(serverTreeRow(page, 'everything').locator('.label-description'), /^19 tools$/, { timeout: 90_000 });
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));

    // A form: rendered from the schema, checked on Submit, the values reach the server.
    await send(chat, '/call mcp__everything__trigger-elicitation-request {}');
    let ask = chat.locator('mcp-ask-card').first();
    await waitForText(ask, /everything asks for information/);
    assert.equal(await ask.locator('#f-email').getAttribute('type'), 'email');
    assert.equal(await ask.locator('#f-integer').inputValue(), '42');
    assert.equal(await ask.locator('#f-integer').getAttribute('max'), '100');
    assert.equal(await ask.locator('#f-titledSingleSelectEnum option:checked').innerText(), 'Superman');
    for (const name of ['Submit', 'Decline', 'Cancel']) await button(ask, name).waitFor();
    await ask.locator('#f-email').fill('not an address');
    await button(ask, 'Submit').click();
    await waitForText(ask.locator('[role="alert"]'), /String is required/);
    await waitForText(ask.locator('[role="alert"]'), /must be an email address/);
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark']]) {
      await setColorTheme(page, theme);
      await shot(`form-${file}`);
    }
    await ask.locator('#f-name').fill('Ada Lovelace');
    await ask.locator('#f-email').fill('ada@example.com');
    await button(ask, 'Submit').click();
    let card = lastCard(chat);
    await waitCardState(card, 'done');
    let result = await resultOf(card);
    assert.match(result, /Name: Ada Lovelace/);
    assert.match(result, /Email: ada@example.com/);
    assert.match(result, /Favorite Integer: 42/);
    await waitIdle(chat);
    assert.equal(await chat.locator('mcp-ask-card').count(), 0, 'the answered card should be gone');

    // Decline.
    await send(chat, '/call mcp__everything__trigger-elicitation-request {}');
    ask = chat.locator('mcp-ask-card').first();
    await button(ask, 'Decline').click();
    card = lastCard(chat);
    await waitCardState(card, 'done');
    assert.match(await resultOf(card), /declined/);
    await waitIdle(chat);

    // A page: its host first; declined, nothing opens.
    const pages = page.context().pages().length;
    await send(chat, '/call mcp__everything__trigger-url-elicitation {"url":"https://login.example.com/start?session=1","message":"Sign in to continue"}');
    ask = chat.locator('mcp-ask-card').first();
    await waitForText(ask.locator('.host'), /^login\.example\.com$/);
    await button(ask, 'Open login.example.com').waitFor();
    await shot('url');
    await button(ask, 'Decline').click();
    await waitCardState(lastCard(chat), 'done');
    assert.equal(page.context().pages().length, pages, 'a declined page was opened');
    await waitIdle(chat);

    // Sampling: the card, then the chat's model answers, capped by the server's limit.
    await send(chat, '/call mcp__everything__trigger-sampling-request {"prompt":"hello there","maxTokens":500}');
    ask = chat.locator('mcp-ask-card').first();
    await waitForText(ask, /everything wants to use the model/);
    await waitForText(ask, /System prompt: You are a helpful test server\./);
    await waitForText(ask, /Max tokens: 80 \(asked for 500/);
    for (const name of ['Allow once', 'Allow for this session', 'Deny']) await button(ask, name).waitFor();
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark']]) {
      await setColorTheme(page, theme);
      await shot(`sampling-${file}`);
    }
    const requests = model.requests.length;
    await button(ask, 'Allow once').click();
    await waitForText(ask.locator('.result'), /Echo:\s+Resource trigger-sampling-request context: hello there/);
    await shot('sampling-answered');
    card = lastCard(chat);
    await waitCardState(card, 'done');
    // The server quotes the model's answer as JSON (its newlines escaped).
    assert.match(await resultOf(card), /"text": "Echo:(\\n)+Resource trigger-sampling-request context: hello there"/);
    const sent = model.requests.at(-1);
    assert.equal(model.requests.length, requests + 1);
    assert.equal(sent.max_tokens ?? sent.max_completion_tokens, 80);
    assert.equal(sent.messages[0].role, 'system');
    await button(ask, 'Dismiss').click();
    await chat.locator('mcp-ask-card').waitFor({ state: 'detached' });
  } finally {
    await model.close();
  }
}
