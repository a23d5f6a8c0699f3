// An organisation's server policy in user settings (`mcpHarness.serverPolicy`, application scope):
// with it on, the server it allows runs and the other is listed, never started, its row saying
// "not allowed by your organisation's policy" with the rule; a policy in the workspace's settings
// is not read; with the policy taken out of the user settings, both run. A third, sandboxed entry
// the policy allows runs under the sandbox: its row says "sandboxed" and its tooltip what it may reach.
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  mcpStatusItem, openViewContainer, rowIcon, runCommand, serverTreeRow, waitForHoverText, waitForText, waitForWorkbench,
} from './lib.mjs';
import { setColorTheme } from './chatLib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const fixture = join(ctx.extensionPath, 'test/fixtures/servers/fixture.mjs');
  const servers = {
    'team-files': { command: 'node', args: [fixture, '--name=team-files'] },
    'stray-tool': { command: 'node', args: [fixture, '--name=stray-tool'] },
    'team-boxed': { command: 'node', args: [fixture, '--name=team-boxed'], sandbox: { network: { allowedDomains: ['api.example.com'] } } },
  };
  const policy = { allow: [{ command: 'node * --name=team-*' }] };
  // A server of its own: the user settings written here must not reach other scenarios.
  const server = await ctx.startCodeServer({ settings: { 'mcpHarness.servers': servers, 'mcpHarness.serverPolicy': policy } });
  const folder = join(dirname(ctx.workspace), 'policy-ws');
  mkdirSync(join(folder, '.vscode'), { recursive: true });
  // A workspace that tries to lift the policy: application settings are not read from it.
  writeFileSync(join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'mcpHarness.serverPolicy': { allow: [{ command: '*' }] } }, null, 2));
  await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
  await waitForWorkbench(page);
  const item = mcpStatusItem(page);

  // Policy on: one runs, the other is listed with the rule and never started.
  await waitForText(item, /^\s*MCP 2\/3 · 28 tools$/, { timeout: 90_000 });
  await openViewContainer(page, 'MCP Servers');
  const allowed = serverTreeRow(page, 'team-files');
  const refused = serverTreeRow(page, 'stray-tool');
  await waitForText(allowed.locator('.label-description'), /^14 tools$/);
  const boxed = serverTreeRow(page, 'team-boxed');
  await waitForText(boxed.locator('.label-description'), /^14 tools · sandboxed$/);
  const sandboxLine = /^Sandbox: Reads: the workspace and system folders, not the rest of your home folder; Writes: nowhere; Network: api\.example\.com$/m;
  // The mark and the tooltip as a person sees them, in a dark, a high-contrast and (last, as before) a light theme.
  for (const [theme, file] of [['Dark Modern', 'dark'], ['Dark High Contrast', 'high-contrast'], ['Light Modern', 'light']]) {
    await setColorTheme(page, theme);
    await waitForHoverText(page, boxed.locator('.monaco-icon-label'), [sandboxLine]);
    await page.screenshot({ path: join(ctx.resultsDir, `ui-policy-sandboxed-${file}.png`) });
    await page.mouse.move(0, 0);
  }
  const description = await waitForText(
    refused.locator('.label-description'),
    /^not allowed by your organisation's policy: no "allow" rule in user settings \(mcpHarness\.serverPolicy\) matches command "node .*fixture\.mjs --name=stray-tool" or fingerprint sha256:[0-9a-f]{64}$/,
  );
  assert.ok(description, 'the refused row names the policy and what it did not match');
  assert.equal(await rowIcon(refused), 'shield');
  await waitForHoverText(page, refused.locator('.monaco-icon-label'), [/^stray-tool: not started: not allowed by your organisation's policy/, /^Fingerprint: sha256:[0-9a-f]{64}$/m]);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-policy-on.png') });

  // "Start Server" on the refused one does not start it: no approval overrides the policy.
  await runCommand(page, 'MCP: Start Server');
  await page.locator('.quick-input-widget').waitFor({ state: 'visible' });
  await page.keyboard.type('stray-tool');
  await page.keyboard.press('Enter');
  await waitForText(item, /^\s*MCP 2\/3 · 28 tools$/);
  await waitForText(refused.locator('.label-description'), /^not allowed by your organisation's policy/);

  // Policy off: the user takes it out of their settings.json in the editor (a remote window reads
  // user settings from the workbench, so a change on disk alone is not seen).
  const settingsFile = join(server.userDataDir, 'User', 'settings.json');
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
  delete settings['mcpHarness.serverPolicy'];
  await runCommand(page, 'Preferences: Open User Settings (JSON)');
  // Monaco renders only the lines in view, and the policy is below the servers: find the editor by its first lines.
  const editor = page.locator('.monaco-editor', { has: page.locator('.view-lines') }).filter({ hasText: 'mcpHarness.servers' }).first();
  await editor.waitFor({ timeout: 30_000 });
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+A');
  // One line, inserted as a whole; what the editor closed after it (a brace, a quote) is removed.
  await page.keyboard.insertText(JSON.stringify(settings));
  await page.keyboard.press('Shift+Control+End');
  await page.keyboard.press('Delete');
  await page.keyboard.press('Control+S');
  await fileMatching(settingsFile, (text) => JSON.parse(text)['mcpHarness.serverPolicy'] === undefined);
  await page.keyboard.press('Escape');
  await waitForText(item, /^\s*MCP 3\/3 · 42 tools$/, { timeout: 60_000 });
  await waitForText(refused.locator('.label-description'), /^14 tools$/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-policy-off.png') });
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
