// Hooks in a real VS Code: the chat workspace gets a .harness/hooks.json with a PreToolUse hook (bash)
// that blocks the counter server's `notes` tool and a PostToolUse hook (node) that adds a note for
// the model after `count`. The hooks wait for approval (a notification), the tree lists them with
// where they come from, the blocked call's card shows the hook's reason and the server never sees
// it, the note reaches the model (the loopback fake records what it was sent), and "MCP: Show Hook
// Log" has every run.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from '../support/fakeOpenAiModel.mjs';
import { expandRow, extensionLog, findNotification, runCommand, serverTreeRow, waitForText } from './lib.mjs';
import { button, chatWorkspace, counterLog, lastCard, openChatWorkspace, send, waitCardState, waitIdle } from './chatLib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = chatWorkspace(model.chatSettings);
  const denyLog = join(folder, 'deny-hook.log');
  mkdirSync(join(folder, '.harness'), { recursive: true });
  writeFileSync(
    join(folder, '.harness', 'hooks.json'),
    JSON.stringify(
      {
        hooks: {
          PreToolUse: [{ matcher: 'mcp__counter__notes', hooks: [{ type: 'command', command: `bash ${join(ROOT, 'test/fixtures/hooks/deny.sh')} ${denyLog} notes are off limits in this repository` }] }],
          PostToolUse: [{ matcher: 'mcp__counter__count', hooks: [{ type: 'command', command: `node ${join(ROOT, 'test/fixtures/hooks/scripted.mjs')} --mode=note "--reason=audited: the count was recorded"` }] }],
        },
      },
      null,
      2,
    ),
  );
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-hooks-${name}.png`) });
  try {
    const chat = await openChatWorkspace(page, ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));

    // A workspace's hooks are commands a repository chose: they wait for approval.
    const question = await findNotification(page, /^Run 2 hooks from \.harness\/hooks\.json \(PreToolUse, PostToolUse\)\?/, { timeout: 60_000 });
    await shot('1-approval');
    await question.locator('.monaco-button', { hasText: /^Allow$/ }).click();
    await question.waitFor({ state: 'detached', timeout: 10_000 });

    // The tree lists them with where they come from.
    const hooksRow = serverTreeRow(page, 'Hooks');
    await waitForText(hooksRow.locator('.label-description'), /^2$/);
    await expandRow(hooksRow);
    await waitForText(serverTreeRow(page, 'PreToolUse mcp__counter__notes').locator('.label-description'), /deny\.sh .* · \.harness\/hooks\.json:\d+$/);
    await waitForText(serverTreeRow(page, 'PostToolUse mcp__counter__count').locator('.label-description'), /--mode=note .* · \.harness\/hooks\.json:\d+$/);
    await shot('2-tree');

    // PreToolUse denies: no permission card, the card ends denied with the hook's reason, the server saw nothing.
    await send(chat, 'notes please');
    let card = lastCard(chat);
    await waitCardState(card, 'denied');
    await waitForText(card.locator('pre'), /notes are off limits in this repository/);
    await waitIdle(chat);
    await shot('3-denied-by-hook');
    assert.ok(!counterLog(folder).includes('call notes'), 'a call a hook denied reached the server');
    assert.ok(existsSync(denyLog), 'the deny hook did not run');
    assert.equal(JSON.parse(readFileSync(denyLog, 'utf8').trim()).tool_name, 'mcp__counter__notes');
    const denied = model.requests.at(-1).messages.at(-1);
    assert.equal(denied.role, 'tool');
    assert.match(denied.content, /Not run: blocked by the PreToolUse hook "bash .*deny\.sh.*": notes are off limits in this repository/);

    // PostToolUse adds a note: the model reads it after the tool's output.
    await send(chat, 'count please');
    card = lastCard(chat);
    await waitCardState(card, 'waiting_for_approval');
    await button(card, 'Allow once').click();
    await waitCardState(card, 'done');
    await waitIdle(chat);
    assert.deepEqual(counterLog(folder), ['call count']);
    const result = model.requests.at(-1).messages.at(-1);
    assert.equal(result.role, 'tool');
    assert.match(result.content, /<\/tool_output>\n<hook_note hook="node [^"]*--mode=note[^"]*">\naudited: the count was recorded\n<\/hook_note>$/);
    await shot('4-note');

    // The hook log has every run.
    await runCommand(page, 'MCP: Show Hook Log');
    const log = await logMatching(ctx.server.userDataDir, /PostToolUse mcp__counter__count ok/);
    assert.match(log, /PreToolUse mcp__counter__notes deny \d+ ms: notes are off limits in this repository <- bash .*deny\.sh/);
    assert.match(log, /PostToolUse mcp__counter__count ok \d+ ms \(changed context\)/);
    await shot('5-hook-log');
    ctx.log(`model requests: ${model.requests.length}, server log: ${counterLog(folder).join(', ')}`);
  } finally {
    await model.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}

async function logMatching(userDataDir, pattern, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 200))) {
    const text = await extensionLog(userDataDir, { channel: 'MCP Hooks' }).catch(() => '');
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the hook log does not match ${pattern}:\n${text}`);
  }
}
