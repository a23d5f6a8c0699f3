// A tool's checkbox decides whether the agent may use it: unchecking one lowers the enabled-tool count
// in the status bar and on its Tools group, survives a window reload, and checking it restores both.
// "MCP: Show Tools" keeps listing every tool.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  expandRow, mcpStatusItem, openApprovedWorkspace, runCommand, serverTreeRow, waitForServersSettled, waitForText, waitForWorkbench,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const total = await openApprovedWorkspace(ctx);
  const status = mcpStatusItem(page);
  assert.equal((await status.innerText()).trim(), `MCP 3/4 · ${total} tools`);

  const { tools, echo, checkbox } = await showFixtureTools(page);
  assert.equal(await checkbox.getAttribute('aria-checked'), 'true');
  assert.equal(await tools.locator('.label-description').innerText(), '14');

  await checkbox.click();
  await waitForText(status, new RegExp(`^\\s*MCP 3/4 · ${total - 1} tools$`));
  await waitForText(tools.locator('.label-description'), /^13 of 14 enabled$/);
  await waitForText(serverTreeRow(page, 'fixture').locator('.label-description'), /^13 of 14 tools$/);
  assert.equal(await checkbox.getAttribute('aria-checked'), 'false');
  assert.equal(await serverTreeRow(page, 'add').locator('.custom-view-tree-node-item-checkbox').getAttribute('aria-checked'), 'true', 'only echo was unchecked');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-toolcheckbox-unchecked.png') });
  ctx.log(`unchecked ${await echo.locator('.label-name').innerText()}: ${total - 1} tools enabled`);

  // "MCP: Show Tools" lists every tool the servers offer, the unchecked one marked as such.
  await runCommand(page, 'MCP: Show Tools');
  const quickInput = page.locator('.quick-input-widget');
  await waitForText(quickInput.locator('.quick-input-title'), new RegExp(`^MCP tools \\(${total}, ${total - 1} enabled\\)$`));
  await quickInput.locator('input').fill('mcp__fixture__echo');
  const picked = quickInput.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: /^mcp__fixture__echo$/ }) });
  await picked.waitFor();
  assert.match(await picked.innerText(), /fixture · disabled for the agent/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-toolcheckbox-show-tools.png') });
  await page.keyboard.press('Escape');
  await quickInput.waitFor({ state: 'hidden' });

  // The choice is remembered for the workspace: after a reload, echo is still off. The window comes
  // back with the view open and expanded as it was (clicking its container now would close it).
  await page.reload();
  await waitForWorkbench(page);
  await waitForServersSettled(page);
  await waitForText(status, new RegExp(`^\\s*MCP 3/4 · ${total - 1} tools$`));
  const again = await showFixtureTools(page);
  await waitForText(again.tools.locator('.label-description'), /^13 of 14 enabled$/);
  assert.equal(await again.checkbox.getAttribute('aria-checked'), 'false');

  await again.checkbox.click();
  await waitForText(status, new RegExp(`^\\s*MCP 3/4 · ${total} tools$`));
  await waitForText(again.tools.locator('.label-description'), /^14$/);
  assert.equal(await again.checkbox.getAttribute('aria-checked'), 'true');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-toolcheckbox-rechecked.png') });
}

/** Expands fixture > Tools and returns the group's row, echo's row and echo's checkbox. */
async function showFixtureTools(page) {
  await expandRow(serverTreeRow(page, 'fixture'));
  const tools = serverTreeRow(page, 'Tools');
  await expandRow(tools);
  const echo = serverTreeRow(page, 'echo');
  await echo.waitFor();
  assert.equal(await echo.getAttribute('aria-level'), '3');
  return { tools, echo, checkbox: echo.locator('.custom-view-tree-node-item-checkbox') };
}
