// Servers configured elsewhere: one in the profile's own user mcp.json (VS Code's "MCP: Open User
// Configuration") shows in our tree with its origin; a second extension (test/fixtures/provider-extension,
// packaged and installed beside ours) registers one through our exported API and it comes and goes with that registration; "MCP: Import
// Servers..." lists a server from Claude Desktop's file in HOME with its file and line and writes it
// into the user setting, where it runs.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openViewContainer, runCommand, serverTreeRow, waitForHoverText, waitForText, waitForWorkbench } from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const fixture = join(ctx.extensionPath, 'test/fixtures/servers/fixture.mjs');
  const providerVsix = await packageProvider(ctx);
  const server = await ctx.startCodeServer({ vsix: [providerVsix], env: { PROVIDER_FIXTURE_SERVER: fixture } });
  const home = join(server.root, 'home');
  // Written before the window opens, as a user who set these up long ago would have.
  const profileFile = join(server.userDataDir, 'User', 'mcp.json');
  writeFileSync(profileFile, `{\n  // VS Code's own user configuration\n  "servers": {\n    "profiled": { "type": "stdio", "command": "node", "args": ["${fixture}", "--name=profiled"] }\n  }\n}\n`);
  const desktopFile = join(home, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(dirname(desktopFile), { recursive: true });
  writeFileSync(desktopFile, JSON.stringify({ mcpServers: { desk: { command: 'node', args: [fixture, '--name=desk'] } } }, null, 2));
  const folder = join(dirname(ctx.workspace), 'discover-workspace');
  mkdirSync(folder, { recursive: true });
  await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
  await waitForWorkbench(page);
  await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });

  // The profile's server is listed, waiting for approval like a workspace's, and says where it is from.
  const profiled = serverTreeRow(page, 'profiled');
  await waitForText(profiled.locator('.label-description'), /^needs your approval to start · VS Code \S*mcp\.json:4$/, { timeout: 90_000 });
  await waitForHoverText(page, profiled.locator('.monaco-icon-label'), [/^Defined in: VS Code: \S*User\/mcp\.json servers\.profiled \(line 4\)$/m]);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-discover-profile.png') });

  // The provider extension's server, namespaced by the provider, until it unregisters.
  const provided = serverTreeRow(page, 'provider-fixture:echo');
  await waitForText(provided.locator('.label-description'), /^needs your approval to start · extension provider-fixture$/, { timeout: 90_000 });
  await waitForHoverText(page, provided.locator('.monaco-icon-label'), [/^Defined in: extension provider-fixture `provider-fixture\["provider-fixture:echo"\]`$|^Defined in: extension provider-fixture /m]);
  await runCommand(page, 'Provider Fixture: Unregister Servers');
  await provided.waitFor({ state: 'detached', timeout: 30_000 });
  await runCommand(page, 'Provider Fixture: Register Servers');
  await provided.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-discover-provider.png') });

  // Import Servers: Claude Desktop's server is offered (and preselected) with its file and line;
  // the profile's is listed as configured already.
  await runCommand(page, 'MCP: Import Servers...');
  await waitForText(page.locator('.quick-input-widget .quick-input-title'), /^Import MCP Servers \(1\/2\): which servers$/, { timeout: 30_000 });
  const desk = quickPickRow(page, 'desk');
  await waitForText(desk, /Claude Desktop ~\/\.config\/Claude\/claude_desktop_config\.json:3/);
  await waitForText(quickPickRow(page, 'profiled'), /configured already as profiled/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-discover-import.png') });
  await page.keyboard.press('Enter');
  await waitForText(page.locator('.quick-input-widget .quick-input-title'), /^Import MCP Servers \(2\/2\): where to save them$/);
  await quickPickRow(page, 'User settings').click();

  // Written into the user setting as it was in Claude Desktop's file, and running (the user chose it).
  const settingsFile = join(server.userDataDir, 'User', 'settings.json');
  const settings = await jsonMatching(settingsFile, (s) => s['mcpHarness.servers']?.desk !== undefined);
  assert.deepEqual(settings['mcpHarness.servers'], { desk: { command: 'node', args: [fixture, '--name=desk'] } });
  await waitForText(serverTreeRow(page, 'desk').locator('.label-description'), /^14 tools$/, { timeout: 60_000 });
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-discover-imported.png') });
}

/** The provider fixture as a .vsix (vsce, as the extension itself is packaged). */
async function packageProvider(ctx) {
  const out = join(mkdtempSync(join(tmpdir(), 'mcp-harness-provider-')), 'provider-fixture.vsix');
  const vsce = join(ctx.extensionPath, 'node_modules', '@vscode', 'vsce', 'vsce');
  const args = [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out];
  const result = spawnSync(process.execPath, args, { cwd: join(ctx.extensionPath, 'test/fixtures/provider-extension'), encoding: 'utf8', input: '', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`packaging the provider fixture failed:\n${result.stdout}\n${result.stderr}`);
  return out;
}

function quickPickRow(page, label) {
  return page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
}

async function jsonMatching(file, check, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 100))) {
    const text = readFileSync(file, 'utf8');
    try {
      const value = JSON.parse(text);
      if (check(value)) return value;
    } catch {
      // being written
    }
    if (Date.now() > deadline) throw new Error(`${file} was not saved as expected:\n${text}`);
  }
}
