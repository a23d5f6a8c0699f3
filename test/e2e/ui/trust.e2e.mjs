// In an untrusted workspace the servers from its files are listed, not started; once the user
// grants trust they ask for approval, and on "Start" they run.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  approveFromNotification, FIXTURE_SERVERS, mcpStatusItem, openServersView, runCommand, serverTreeRow, toolTotal, waitForServersSettled, waitForText,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const server = await ctx.startCodeServer({ trust: true });
  await openServersView(page, server.workbenchUrl({ folder: ctx.workspace, extensionDevelopmentPath: ctx.extensionPath }));
  for (const name of FIXTURE_SERVERS) {
    await waitForText(serverTreeRow(page, name).locator('.label-description'), /^workspace is not trusted$/, { timeout: 60_000 });
  }
  await waitForText(mcpStatusItem(page), /^\s*MCP 0\/4 · 0 tools$/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-trust-untrusted.png') });

  await runCommand(page, 'Workspaces: Manage Workspace Trust');
  const trust = page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
  await trust.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-trust-editor.png') });
  await trust.click();
  await waitForText(page.locator('.workspace-trust-editor'), /You trust this folder/);
  // The trust editor opens as a modal editor; the command palette does not open over it.
  await page.locator('.codicon-close[aria-label^="Close Modal Editor"]').click();
  await page.locator('.workspace-trust-editor').waitFor({ state: 'hidden' });
  for (const name of FIXTURE_SERVERS) {
    await waitForText(serverTreeRow(page, name).locator('.label-description'), /^needs your approval to start$/, { timeout: 30_000 });
  }

  // Trusted now, the servers still wait for the user's approval, then run.
  const question = await approveFromNotification(page, { count: FIXTURE_SERVERS.length, timeout: 60_000 });
  assert.equal(question, `Start 4 MCP servers from .mcp.json? ${FIXTURE_SERVERS.join(', ')}`);
  const total = toolTotal(await waitForServersSettled(page));
  await waitForText(mcpStatusItem(page), new RegExp(`^\\s*MCP 3/4 · ${total} tools$`));
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-trust-granted.png') });
}
