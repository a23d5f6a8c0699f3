// A long conversation (200 messages, 50 tool cards) comes back when the chat opens again: the time
// from "MCP: Open Chat" to the restored history is printed (not asserted). Then the panel in a light,
// a dark and a high-contrast theme, with a permission card and a highlighted code block showing.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FAKE_MODEL_ID, startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { runCommand, waitForText, waitForWorkbench, webview } from './lib.mjs';
import { button, chatWorkspace, counterLog, lastCard, messageBox, openChat, openChatWorkspace, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace({
    'mcpHarness.chat.provider': 'openai',
    'mcpHarness.chat.openai.baseUrl': model.baseUrl,
    'mcpHarness.chat.openai.model': FAKE_MODEL_ID,
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

    // Close the view and open it again, three times: each opening builds a new webview.
    const figures = [];
    for (let i = 0; i < 3; i++) {
      await runCommand(page, 'View: Hide Secondary Side Bar');
      await page.locator('iframe.webview.ready').waitFor({ state: 'detached', timeout: 30_000 }).catch(() => {});
      const started = Date.now();
      await runCommand(page, 'MCP: Open Chat');
      chat = webview(page);
      const app = chat.locator(`mcp-chat-app[data-restored-items="${items}"]`);
      await app.waitFor({ timeout: 60_000 });
      figures.push({
        openToRestoredMs: Date.now() - started,
        pageMs: Number(await app.getAttribute('data-page-to-restored-ms')),
        renderMs: Number(await app.getAttribute('data-restore-ms')),
      });
    }
    ctx.log(`panel open to restored history (${items} items), per opening: ${figures.map((f) => `command to restored ${f.openToRestoredMs} ms, page start to restored ${f.pageMs} ms, rendering ${f.renderMs} ms`).join('; ')}`);

    // After a window reload too.
    await page.reload();
    await waitForWorkbench(page);
    chat = await openChat(page);
    const restored = chat.locator(`mcp-chat-app[data-restored-items="${items}"]`);
    await restored.waitFor({ timeout: 60_000 });
    ctx.log(`after a reload: page start to restored ${await restored.getAttribute('data-page-to-restored-ms')} ms, rendering ${await restored.getAttribute('data-restore-ms')} ms`);

    // Themes: a highlighted code block and a pending permission card.
    await button(chat, 'New Chat').click();
    await messageBox(chat).fill('```js\nconst answer = 42; // the code block\nconsole.log(`answer: ${answer}`);\n```');
    await messageBox(chat).press('Enter');
    await chat.locator('mcp-chat-item .code-block .hljs-keyword').first().waitFor();
    await waitIdle(chat);
    await send(chat, 'slow please');
    await waitCardState(lastCard(chat), 'waiting_for_approval');
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark'], ['Dark High Contrast', 'high-contrast'], ['Light High Contrast', 'high-contrast-light']]) {
      await setColorTheme(page, theme);
      await page.waitForTimeout(500); // the webview repaints with the new variables
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
