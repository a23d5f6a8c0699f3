// "Add Context..." in the chat: the active file, the selection, a file picked from the workspace
// and the problems of the active file, each a removable chip; what stays attached reaches the
// model (a fake on loopback that records its requests) as text with its path, once, and nothing
// is attached to a message without the user's action.
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { FAKE_MODEL_ID, startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { waitForText } from './lib.mjs';
import { addContext, button, chatWorkspace, contextChips, openChatWorkspace, openFile, send, themedShots, waitIdle } from './chatLib.mjs';

const BROKEN = '{\n  "name": "context fixture",\n  "port": 8080\n  "debug": true\n}\n';
const NOTES = '# Notes\n\nThe deploy script lives in scripts/deploy.sh.\n';

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace(model.chatSettings, { 'broken.json': BROKEN, 'notes.md': NOTES });
  const lastUserMessage = () => model.requests.at(-1).messages.filter((m) => m.role === 'user').at(-1).content;
  try {
    const chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));

    // An editor with a selection (lines 2-3: name and port) and a problem (the missing comma).
    await openFile(page, 'broken.json');
    // Keys go to the editor only once it has the focus (opening it moves the focus a moment later).
    await page.locator('.part.editor .monaco-editor.focused').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    await waitForText(page.locator('.part.statusbar [id="status.editor.selection"]'), /selected/);
    await waitForText(page.locator('.part.statusbar [id="status.problems"]'), /[1-9]/, { timeout: 60_000 });

    await addContext(page, chat, 'Active File');
    await waitForText(contextChips(chat), /^broken\.json/);
    await addContext(page, chat, 'Selection');
    await waitForText(contextChips(chat).nth(1), /^broken\.json:2-3/);
    await addContext(page, chat, 'Problems of the Active File');
    await waitForText(contextChips(chat).nth(2), /^Problems in broken\.json/);
    await addContext(page, chat, 'File...');
    const file = page.locator('.quick-input-list .monaco-list-row', { hasText: 'notes.md' }).first();
    await file.click();
    await waitForText(contextChips(chat).nth(3), /^notes\.md/);
    await themedShots(page, ctx.resultsDir, 'ui-chat-context-1-chips');

    // A chip removed is not sent.
    await chat.getByRole('button', { name: 'Remove broken.json', exact: true }).click();
    await waitForText(contextChips(chat).first(), /^broken\.json:2-3/);
    assert.equal(await contextChips(chat).count(), 3);

    await send(chat, 'what is wrong here?');
    await waitForText(chat.locator('mcp-chat-item .md').last(), /Echo:\s*what is wrong here\?/);
    await waitIdle(chat);
    assert.equal(await contextChips(chat).count(), 0, 'the chips go with the message');
    const sent = lastUserMessage();
    assert.match(sent, /^what is wrong here\?/);
    assert.match(sent, /<context kind="selection" path="broken\.json:2-3">\n {2}"name": "context fixture",\n {2}"port": 8080\n<\/context>/);
    assert.match(sent, /<context kind="problems" path="broken\.json">\n\d+:\d+ error: [^\n]+/);
    assert.ok(sent.includes(`<context kind="file" path="notes.md">\n${NOTES}\n</context>`), `the picked file, whole, with its path: ${sent}`);
    assert.doesNotMatch(sent, /<context kind="file" path="broken\.json">/, 'the removed chip was sent');
    await waitForText(chat.locator('mcp-chat-item .attached').last(), /Attached: broken\.json:2-3, Problems in broken\.json, notes\.md/);
    await themedShots(page, ctx.resultsDir, 'ui-chat-context-2-sent');

    // The next message goes alone.
    await send(chat, 'and now?');
    await waitForText(chat.locator('mcp-chat-item .md').last(), /Echo:\s*and now\?/);
    await waitIdle(chat);
    assert.equal(lastUserMessage(), 'and now?');
    assert.equal(await button(chat, 'Add Context...').count(), 1);
  } finally {
    await model.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
