// The packaged extension, installed from its .vsix into a code-server of its own and loaded from the
// extensions folder as a user's VS Code would (no extensionDevelopmentPath): the view, the approval
// and the status bar work from the package alone.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  mcpStatusItem, openServersView, rowIcon, runCommand, serverTreeRow, toolTotal, treeRow, waitForServersSettled,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const vsix = ctx.vsix ?? (await ctx.packageVsix());
  ctx.log(`${vsix}: ${(statSync(vsix).size / 1024).toFixed(0)} KiB`);
  const { publisher, name, version, displayName } = JSON.parse(readFileSync(join(ctx.extensionPath, 'package.json'), 'utf8'));
  const server = await ctx.startCodeServer({ vsix: [vsix] });
  const installed = readdirSync(server.extensionsDir);
  assert.ok(installed.includes(`${publisher}.${name}-${version}`), `installed: ${installed.join(', ')}`);

  await openServersView(page, server.workbenchUrl({ folder: ctx.workspace }));
  assert.doesNotMatch(await page.title(), /Extension Development Host/, 'a regular window, not a development one');

  await runCommand(page, 'MCP: Allow Workspace Servers to Start', { timeout: 60_000 });
  const descriptions = await waitForServersSettled(page);
  const total = toolTotal(descriptions);
  assert.equal(descriptions.fixture, '14 tools');
  assert.equal(await rowIcon(serverTreeRow(page, 'fixture')), 'pass-filled');
  assert.equal(await rowIcon(serverTreeRow(page, 'broken')), 'error');
  assert.equal((await mcpStatusItem(page).innerText()).trim(), `MCP 3/4 · ${total} tools`);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-vsix-servers.png') });

  // The Extensions view lists it as installed, with the time its activation took.
  await runCommand(page, 'Extensions: Show Installed Extensions');
  const entry = treeRow(page, displayName);
  await entry.waitFor({ timeout: 30_000 });
  const listed = await entry.innerText();
  assert.match(listed, /^\d+ms$/m, `activation time shown: ${JSON.stringify(listed)}`);
  assert.match(listed, new RegExp(`^${publisher}$`, 'm'));
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-vsix-installed.png') });
}
