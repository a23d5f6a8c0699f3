// Servers in the user setting `mcpHarness.servers` run in a remote window (code-server is one, like
// Remote SSH or a container) when the user adds them with the settings editor after the window has
// loaded; servers put in the workspace's own settings are reported, not run.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  findNotification, mcpStatusItem, openViewContainer, runCommand, serverTreeRow, waitForHoverText, waitForText, waitForWorkbench,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  // A server of its own: the user settings written here must not reach other scenarios.
  const server = await ctx.startCodeServer({});
  const folder = join(dirname(ctx.workspace), 'no-config');
  mkdirSync(folder, { recursive: true });
  await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
  await waitForWorkbench(page);
  const item = mcpStatusItem(page);
  await waitForText(item, /^\s*MCP 0\/0 · 0 tools$/, { timeout: 90_000 });

  // The user opens their settings.json and adds a server, as they would by hand.
  const settingsFile = join(server.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  settings['mcpHarness.servers'] = {
    'from-user-settings': { command: 'node', args: [join(ctx.extensionPath, 'test/fixtures/servers/fixture.mjs'), '--name=from-user-settings'] },
  };
  await runCommand(page, 'Preferences: Open User Settings (JSON)');
  const editor = page.locator('.monaco-editor', { has: page.locator('.view-lines') }).filter({ hasText: 'workbench.startupEditor' }).first();
  await editor.waitFor({ timeout: 30_000 });
  await editor.locator('.view-lines').click();
  // Pasted, as typing would get brackets closed and lines indented by the editor.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  await page.evaluate((text) => navigator.clipboard.writeText(text), JSON.stringify(settings, null, 2));
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await page.keyboard.press('Control+S');
  await fileMatching(settingsFile, (text) => JSON.parse(text)['mcpHarness.servers']?.['from-user-settings'] !== undefined);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-usersettings-edited.png') });
  await page.keyboard.press('Escape');

  // It runs (a user's own server needs no approval), and the view says where it comes from.
  await waitForText(item, /^\s*MCP 1\/1 · 14 tools$/, { timeout: 60_000 });
  await openViewContainer(page, 'MCP Servers');
  const row = serverTreeRow(page, 'from-user-settings');
  await waitForText(row.locator('.label-description'), /^14 tools$/);
  await waitForHoverText(page, row.locator('.monaco-icon-label'), [/^from-user-settings: running/, /^Defined in: settings\.json mcpHarness\.servers\["from-user-settings"\]$/m, /^Server: from-user-settings /m]);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-usersettings-running.png') });

  // The same setting in the workspace's settings is not run, and says so.
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({
    'mcpHarness.servers': { 'from-workspace-settings': { command: 'node', args: [join(ctx.extensionPath, 'test/fixtures/servers/fixture.mjs')] } },
  }, null, 2));
  const warning = await findNotification(page, /^MCP: mcpHarness\.servers in workspace settings \(from-workspace-settings\) is not used/, { timeout: 60_000 });
  assert.match(await warning.locator('.notification-list-item-message').innerText(), /put these servers in \.vscode\/mcp\.json/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-usersettings-workspace-ignored.png') });
  assert.equal(await serverTreeRow(page, 'from-workspace-settings').count(), 0, 'the workspace-settings server is not listed');
  await waitForText(item, /^\s*MCP 1\/1 · 14 tools$/);
}

/** The file's text once `check` accepts it (the workbench writes it asynchronously). */
async function fileMatching(file, check, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 100))) {
    const text = readFileSync(file, 'utf8');
    try {
      if (check(text)) return text;
    } catch {
      // not valid JSON yet
    }
    if (Date.now() > deadline) throw new Error(`${file} was not saved as expected:\n${text}`);
  }
}
