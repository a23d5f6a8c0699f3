// A long conversation (200 messages, 50 tool cards) comes back when the chat opens again: the time
// from "MCP: Open Chat" to the restored history is printed (not asserted). Then the panel in a light,
// a dark and a high-contrast theme, with a permission card and a highlighted code block showing.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { runCommand, typeCommand, waitForText, waitForWorkbench, webview } from './lib.mjs';
import { button, chatWorkspace, counterLog, lastCard, messageBox, openChat, openChatWorkspace, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace({
    ...model.chatSettings,
    'mcpHarness.permissions.allow': ['mcp__counter__count'],
  });
  try {
    let chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));

    // 50 parallel calls allowed by the rule (no card asks), then 99 more exchanges: 200 messages.
    await send(chat, 'bulk 50');
    await waitForText(chat.locator('mcp-chat-item .md'), /Result: call number/, { timeout: 60_000 });
    await waitIdle(chat);
    assert.equal(counterLog(folder).length, 50);
    assert.equal(await chat.locator('mcp-tool-card').count(), 50);
    for (let i = 1; i < 100; i++) {
      await send(chat, `message ${i}`);
      await waitForText(chat.locator('mcp-chat-item .md').last(), new RegExp(`message ${i}\\s*$`));
      await waitIdle(chat);
    }
    const items = await chat.locator('mcp-chat-item, mcp-tool-card').count();
    ctx.log(`conversation: ${items} items (200 messages, 50 tool cards, 100 usage lines)`);

    // Hidden and shown again, three times: the view keeps its page (an app in a card keeps its
    // state), so the history is on screen at once, without a restore.
    const shown = [];
    for (let i = 0; i < 3; i++) {
      await runCommand(page, 'View: Hide Secondary Side Bar');
      await page.locator('iframe.webview.ready').first().waitFor({ state: 'hidden', timeout: 30_000 });
      await typeCommand(page, 'MCP: Open Chat');
      const started = Date.now();
      await page.keyboard.press('Enter');
      chat = webview(page);
      await messageBox(chat).waitFor({ timeout: 60_000 });
      assert.equal(await chat.locator('mcp-chat-item, mcp-tool-card').count(), items, 'the history changed while the panel was hidden');
      shown.push(Date.now() - started);
    }
    ctx.log(`panel hidden and shown again (${items} items kept), Enter on "MCP: Open Chat" to the history on screen: ${shown.map((ms) => `${ms} ms`).join(', ')}`);

    // A window reload builds a new page, three times: each restores the whole history.
    const figures = [];
    for (let i = 0; i < 3; i++) {
      await page.reload();
      await waitForWorkbench(page);
      await typeCommand(page, 'MCP: Open Chat');
      const started = Date.now();
      await page.keyboard.press('Enter');
      chat = webview(page);
      const app = chat.locator(`mcp-chat-app[data-restored-items="${items}"]`);
      await app.waitFor({ timeout: 60_000 });
      figures.push({
        commandToRestoredMs: Date.now() - started,
        pageMs: Number(await app.getAttribute('data-page-to-restored-ms')),
        initMs: Number(await app.getAttribute('data-page-to-init-ms')),
        renderMs: Number(await app.getAttribute('data-restore-ms')),
      });
    }
    ctx.log(`after a window reload, panel open to restored history (${items} items), per reload: ${figures.map((f) => `Enter on "MCP: Open Chat" to restored ${f.commandToRestoredMs} ms, page start to restored ${f.pageMs} ms (state arrived at ${f.initMs} ms, rendering ${f.renderMs} ms)`).join('; ')}`);
    await messageBox(chat).waitFor();

    // Themes: a highlighted code block and a pending permission card.
    await button(chat, 'New Chat').click();
    // The new conversation is on screen before anything is sent into it.
    await chat.locator('mcp-chat-item').first().waitFor({ state: 'detached' });
    // Two languages whose grammars are fetched when their first block shows (under the page's policy).
    await messageBox(chat).fill('```js\nconst answer = 42; // the code block\nconsole.log(`answer: ${answer}`);\n```\n\n```python\ndef answer() -> int:\n    return 42  # a long line that scrolls sideways instead of wrapping in a narrow side bar\n```');
    await messageBox(chat).press('Enter');
    await chat.locator('mcp-chat-item .code-block code[data-language="javascript"] .hljs-keyword').first().waitFor();
    await chat.locator('mcp-chat-item .code-block code[data-language="python"] .hljs-keyword').first().waitFor();
    await waitIdle(chat);
    await send(chat, 'slow please');
    await waitCardState(lastCard(chat), 'waiting_for_approval');
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark'], ['Dark High Contrast', 'high-contrast'], ['Light High Contrast', 'high-contrast-light']]) {
      await setColorTheme(page, theme);
      await page.screenshot({ path: join(ctx.resultsDir, `ui-chat-theme-${file}.png`) });
    }
    await button(lastCard(chat), 'Deny').click();
    await waitCardState(lastCard(chat), 'denied');
    assert.ok(!counterLog(folder).includes('call slow_count'));
  } finally {
    await model.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
