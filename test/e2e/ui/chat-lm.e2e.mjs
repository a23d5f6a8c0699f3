// The chat on VS Code's Language Model API: a second extension registers a model with
// vscode.lm.registerLanguageModelChatProvider; with `mcpHarness.chat.provider` at its default
// (`auto`) the chat picks it, offers the tools as LanguageModelChatTool, and the model's tool call
// goes through the same permission card before the counter server runs it.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForText } from './lib.mjs';
import { button, chatWorkspace, counterLog, lastCard, openChatWorkspace, send, waitCardState, waitIdle } from './chatLib.mjs';

const LM_EXTENSION = resolve(fileURLToPath(new URL('../fixtures/lm-provider-extension', import.meta.url)));

export async function run(ctx) {
  const { page } = ctx;
  // VS Code's chat features are off in the shared server's defaults; the model API needs them on.
  // The model extension is installed (a workbench URL loads only one extension from source).
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-harness-lm-'));
  const vsix = join(scratch, 'lm-provider.vsix');
  const vsce = resolve(ctx.extensionPath, 'node_modules/@vscode/vsce/vsce');
  const packed = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], { cwd: LM_EXTENSION, encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`packaging the test model extension failed:\n${packed.stdout}${packed.stderr}`);
  const server = await ctx.startCodeServer({ vsix: [vsix], settings: { 'chat.disableAIFeatures': false } });
  const folder = chatWorkspace({});
  try {
    const chat = await openChatWorkspace(page, server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForText(chat.locator('mcp-chat-header'), /Scripted LM/, { timeout: 60_000 });
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-lm-1-model.png') });

    await send(chat, 'count with the VS Code model');
    const card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-lm-2-card.png') });
    assert.deepEqual(counterLog(folder), []);
    await button(card, 'Allow once').click();
    await waitCardState(card, 'done');
    await waitForText(chat.locator('mcp-chat-item .md'), /LM result:[\s\S]*call number 1/);
    await waitIdle(chat);
    assert.deepEqual(counterLog(folder), ['call count']);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-chat-lm-3-answer.png') });
  } finally {
    rmSync(dirname(folder), { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}
