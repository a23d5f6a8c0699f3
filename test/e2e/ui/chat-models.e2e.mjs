// Two models on two loopback endpoints (an OpenAI-compatible one and an Anthropic one, each
// recording what it is sent): the picker lists both and switches between them, each message goes
// to the picked one, and each conversation keeps its own choice. Retry sends the last message
// again in place of its answer; Edit puts it in the message box and Send replaces it: the model
// gets the new text, and neither the old message nor its answer.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAKE_ANTHROPIC_MODEL_ID, startFakeAnthropicModel } from '../support/fakeAnthropicModel.mjs';
import { FAKE_MODEL_ID, startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { waitForText } from './lib.mjs';
import { button, chatWorkspace, messageBox, openChatWorkspace, pickModel, send, shownModel, themedShots, waitFocused, waitIdle, waitUntil } from './chatLib.mjs';

/** The user messages a request carried, as text. */
const userTexts = (request) => request.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('')));

export async function run(ctx) {
  const { page } = ctx;
  const openai = await startFakeModel();
  const anthropic = await startFakeAnthropicModel();
  const folder = chatWorkspace({
    'mcpHarness.chat.provider': 'auto',
    'mcpHarness.chat.openai.baseUrl': openai.baseUrl,
    'mcpHarness.chat.openai.model': FAKE_MODEL_ID,
    'mcpHarness.chat.anthropic.baseUrl': anthropic.baseUrl,
    'mcpHarness.chat.anthropic.model': FAKE_ANTHROPIC_MODEL_ID,
  });
  const answers = (chat) => chat.locator('mcp-chat-item .md');
  try {
    const chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));
    // The picker offers both, each with its endpoint.
    const select = chat.locator('mcp-chat-header vscode-single-select');
    const options = chat.getByRole('option');
    const openPicker = async () => {
      await select.click();
      await waitForText(options.filter({ hasText: FAKE_ANTHROPIC_MODEL_ID }), new RegExp(`${FAKE_ANTHROPIC_MODEL_ID} · 127\\.0\\.0\\.1`));
    };
    const closePicker = async () => {
      await select.press('Escape');
      await options.first().waitFor({ state: 'hidden' });
    };
    await openPicker();
    const listed = (await options.allInnerTexts()).map((t) => t.trim());
    assert.equal(listed.filter((t) => /^fake-/.test(t)).length, 2, `the picker lists ${listed.join(' | ')}`);
    await closePicker();
    await themedShots(page, ctx.resultsDir, 'ui-chat-models-1-picker', { show: openPicker, hide: closePicker });

    // The first model answers the first message; the other endpoint is sent nothing.
    await pickModel(chat, new RegExp(FAKE_MODEL_ID));
    await send(chat, 'hello one');
    await waitForText(answers(chat).last(), /Echo:\s*hello one/);
    await waitIdle(chat);
    assert.equal(openai.requests.length, 1);
    assert.equal(anthropic.requests.length, 0);

    // Retry: the same message again, its old answer gone, the model sent the message once.
    await button(chat, 'Retry').click();
    await waitUntil(() => openai.requests.length === 2, 'the retried message to reach the model');
    await waitIdle(chat);
    assert.equal(openai.requests.length, 2);
    assert.deepEqual(userTexts(openai.requests[1]), ['hello one']);
    assert.equal(await chat.locator('mcp-chat-item').filter({ hasText: 'hello one' }).locator('.user').count(), 1);
    assert.equal(await answers(chat).count(), 1);

    // Switched, the next message goes to the other endpoint, with the conversation so far.
    await pickModel(chat, new RegExp(FAKE_ANTHROPIC_MODEL_ID));
    await send(chat, 'hello two');
    await waitForText(answers(chat).last(), /Anthropic echo: hello two/);
    await waitIdle(chat);
    assert.equal(openai.requests.length, 2);
    assert.equal(anthropic.requests.length, 1);
    assert.equal(anthropic.requests[0].model, FAKE_ANTHROPIC_MODEL_ID);
    assert.deepEqual(userTexts(anthropic.requests[0]), ['hello one', 'hello two']);

    // Edit: the last message in the box; Send replaces it and its answer.
    await button(chat, 'Edit').click();
    await waitFocused(messageBox(chat), 'the message box, after Edit,');
    assert.equal(await messageBox(chat).inputValue(), 'hello two');
    await chat.locator('mcp-composer .editing').waitFor();
    await themedShots(page, ctx.resultsDir, 'ui-chat-models-2-editing');
    await messageBox(chat).fill('hello edited');
    await messageBox(chat).press('Enter');
    await waitForText(answers(chat).last(), /Anthropic echo: hello edited/);
    await waitIdle(chat);
    assert.equal(anthropic.requests.length, 2);
    assert.deepEqual(userTexts(anthropic.requests[1]), ['hello one', 'hello edited']);
    assert.doesNotMatch(JSON.stringify(anthropic.requests[1].messages), /hello two/);
    assert.equal(await chat.locator('mcp-chat-item').filter({ hasText: 'hello two' }).count(), 0);

    // A new conversation on the first model; each conversation reopens with its own.
    await button(chat, 'New Chat').click();
    await chat.locator('mcp-chat-item').first().waitFor({ state: 'detached' });
    await pickModel(chat, new RegExp(FAKE_MODEL_ID));
    await send(chat, 'second conversation');
    await waitForText(answers(chat).last(), /Echo:\s*second conversation/);
    await waitIdle(chat);
    assert.equal(openai.requests.length, 3);
    assert.deepEqual(userTexts(openai.requests[2]), ['second conversation']);

    await button(chat, 'History').click();
    await chat.locator('mcp-chat-header li button.open', { hasText: /^Hello one$/i }).click();
    await waitForText(answers(chat).last(), /Anthropic echo: hello edited/);
    await waitForText(chat.locator('mcp-chat-header vscode-single-select'), new RegExp(FAKE_ANTHROPIC_MODEL_ID));
    await send(chat, 'back again');
    await waitForText(answers(chat).last(), /Anthropic echo: back again/);
    await waitIdle(chat);
    assert.equal(anthropic.requests.length, 3);
    assert.equal(openai.requests.length, 3);

    await button(chat, 'History').click();
    await chat.locator('mcp-chat-header li button.open', { hasText: /^Second conversation$/i }).click();
    await waitForText(answers(chat).last(), /Echo:\s*second conversation/);
    await waitForText(chat.locator('mcp-chat-header vscode-single-select'), new RegExp(FAKE_MODEL_ID));
    assert.match(await shownModel(chat), new RegExp(`^${FAKE_MODEL_ID} · 127\\.0\\.0\\.1:\\d+$`));
    await themedShots(page, ctx.resultsDir, 'ui-chat-models-3-switched');
  } finally {
    await openai.close();
    await anthropic.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
