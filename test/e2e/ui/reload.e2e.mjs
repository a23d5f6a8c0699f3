// "MCP: Reload Servers" from the palette restarts the server in error and reports what it did; an edit
// of .mcp.json in the editor adds a server to the view by itself, applied as a diff (the failed server
// is not restarted by it).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  approveFromNotification, extensionLog, findNotification, mcpStatusItem, openApprovedWorkspace, rowIcon, runCommand, serverTreeRow, toolTotal, waitForHoverText, waitForServersSettled, waitForText,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const total = await openApprovedWorkspace(ctx);

  await runCommand(page, 'MCP: Reload Servers');
  const summary = await findNotification(page, /^MCP: \+\d+ added/, { timeout: 60_000 });
  assert.equal((await summary.locator('.notification-list-item-message').innerText()).trim(),
    'MCP: +0 added, 1 restarted, 0 removed, 3 unchanged');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-reload-summary.png') });
  // Restarted, `broken` fails again the same way; the others kept running.
  await waitForHoverText(page, serverTreeRow(page, 'broken').locator('.monaco-icon-label'), [/^broken: error/, /^Restarts: 1$/m]);
  assert.equal(toolTotal(await waitForServersSettled(page)), total);
  assert.equal(await rowIcon(serverTreeRow(page, 'broken')), 'error');
  await waitForText(mcpStatusItem(page), new RegExp(`^\\s*MCP 3/4 · ${total} tools$`));
  await page.mouse.move(0, 0);
  await runCommand(page, 'Notifications: Clear All Notifications');

  // Open .mcp.json from the view's own command and add a server at the top of "mcpServers".
  const configFile = join(ctx.workspace, '.mcp.json');
  const original = readFileSync(configFile, 'utf8');
  const line = original.split('\n').findIndex((l) => l.includes('"mcpServers": {')) + 1;
  assert.ok(line > 0, '.mcp.json has an "mcpServers" object');
  await runCommand(page, 'MCP: Open Configuration');
  await page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: /^\.mcp\.json$/ }) }).click();
  const editor = page.locator('.editor-group-container.active .monaco-editor');
  await page.locator('.tabs-container .tab.active', { hasText: '.mcp.json' }).waitFor();
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input').fill(`:${line}`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('End');
  const entry = '\n    "second": { "command": "node", "args": ["${env:MCP_HARNESS_REPO}/test/fixtures/servers/fixture.mjs", "--name=second"] },';
  await page.keyboard.insertText(entry);
  await page.keyboard.press('Home'); // twice: first to the indentation, then to column 1
  await page.keyboard.press('Home');
  // code-server may also save by itself after a delay; either way the file on disk gets the edit.
  await page.keyboard.press('Control+S');
  await page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached' });
  const text = await fileContaining(configFile, '"second"');
  const saved = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
  assert.deepEqual(Object.keys(saved.mcpServers), ['second', 'everything', 'fixture', 'memory', 'broken'], 'the edit was saved as typed');
  ctx.log('saved .mcp.json with a new server');

  // The view picks the change up by itself: the new server waits for its own approval.
  const second = serverTreeRow(page, 'second');
  await waitForText(second.locator('.label-description'), /^needs your approval/, { timeout: 60_000 });
  const question = await approveFromNotification(page, { count: 1 });
  assert.match(question, /^Start 1 MCP server from \.mcp\.json\? second$/);
  await waitForText(second.locator('.label-description'), /^14 tools$/, { timeout: 60_000 });
  assert.equal(await rowIcon(second), 'pass-filled');
  await waitForText(mcpStatusItem(page), new RegExp(`^\\s*MCP 4/5 · ${total + 14} tools$`));
  // The watcher applied the edit as a diff, not as "Reload Servers": one server added, the failed one
  // not restarted again (still one restart), the rest untouched.
  const applied = await lastLogLine(ctx.server.userDataDir, /\] configuration: \+1 added/);
  assert.match(applied, /\] configuration: \+1 added, 0 restarted, 0 removed, 4 unchanged, 0 config errors$/);
  await waitForHoverText(page, serverTreeRow(page, 'broken').locator('.monaco-icon-label'), [/^broken: error/, /^Restarts: 1$/m]);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-reload-added-server.png') });
}

/** The extension log's last "configuration:" line matching `pattern`, once there is one (the log is written asynchronously). */
async function lastLogLine(userDataDir, pattern, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 200))) {
    // Other applies that change nothing (`+0 added, …`) may follow; the one that matches is wanted.
    const lines = (await extensionLog(userDataDir)).split('\n').filter((l) => /\] configuration: /.test(l));
    const last = lines.filter((l) => pattern.test(l)).at(-1) ?? lines.at(-1) ?? '';
    if (pattern.test(last) || Date.now() > deadline) return last;
  }
}

/** The file's text once it contains `needle` (it is written by the workbench, asynchronously). */
async function fileContaining(file, needle, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 100))) {
    const text = readFileSync(file, 'utf8');
    if (text.includes(needle)) return text;
    if (Date.now() > deadline) throw new Error(`${file} was not saved with ${needle}:\n${text}`);
  }
}
