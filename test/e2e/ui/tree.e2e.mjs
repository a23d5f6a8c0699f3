// The "MCP Servers" view: servers waiting for approval, approved from the notification, then each with
// its state, tool count or error, a tooltip, and the fixture server's tools with their checkboxes.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  approveFromNotification, expandRow, FIXTURE_SERVERS, hoverText, mcpStatusItem, openServersView, rowIcon,
  serverTreeRow, waitForServersSettled, waitForText,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  await openServersView(page, ctx.workbenchUrl());
  ctx.log('view lists every server');

  // Workspace servers start only once the user approves them: until then each waits, nothing runs.
  for (const name of FIXTURE_SERVERS) {
    const row = serverTreeRow(page, name);
    await waitForText(row.locator('.label-description'), /^needs your approval/);
    assert.equal(await rowIcon(row), 'shield', `${name} shows the waiting icon`);
  }
  assert.match(await mcpStatusItem(page).innerText(), /MCP 0\/4 · 0 tools/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-tree-awaiting-approval.png') });

  const question = await approveFromNotification(page, { count: 4 });
  assert.match(question, /^Start 4 MCP servers from \.mcp\.json\? everything, fixture, memory, broken$/);
  ctx.log('approved from the notification');

  const descriptions = await waitForServersSettled(page);
  ctx.log('settled:', JSON.stringify(descriptions));
  for (const name of ['everything', 'fixture', 'memory']) {
    assert.equal(await rowIcon(serverTreeRow(page, name)), 'pass-filled', `${name} shows the running icon`);
  }
  assert.equal(descriptions.broken, 'command not found: "mcp-harness-no-such-command" (is it installed and on PATH?)');
  assert.equal(await rowIcon(serverTreeRow(page, 'broken')), 'error');

  const brokenTip = await hoverText(page, serverTreeRow(page, 'broken').locator('.monaco-icon-label'));
  ctx.log('broken tooltip:', JSON.stringify(brokenTip));
  assert.match(brokenTip, /^broken: error/);
  assert.match(brokenTip, /Command: mcp-harness-no-such-command/);
  assert.match(brokenTip, /Defined in: \.mcp\.json mcpServers\.broken \(line \d+\)/);
  assert.match(brokenTip, /Error: command not found: "mcp-harness-no-such-command"/);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-tree-error-tooltip.png') });

  const fixtureTip = await hoverText(page, serverTreeRow(page, 'fixture').locator('.monaco-icon-label'));
  assert.match(fixtureTip, /^fixture: running/);
  assert.match(fixtureTip, /Transport: stdio/);
  assert.match(fixtureTip, /Offers: 14 tools, 0 resources, 0 prompts/);
  assert.doesNotMatch(fixtureTip, /Error/);
  await page.mouse.move(0, 0);

  // fixture > Tools > one row per tool, each with a checked checkbox.
  await expandRow(serverTreeRow(page, 'fixture'));
  const tools = serverTreeRow(page, 'Tools');
  assert.equal(await tools.getAttribute('aria-level'), '2');
  assert.equal(await tools.locator('.label-description').innerText(), '14');
  await expandRow(tools);
  const echo = serverTreeRow(page, 'echo');
  await echo.waitFor();
  assert.equal(await echo.getAttribute('aria-level'), '3');
  assert.equal(await echo.locator('.label-description').innerText(), 'Returns its text argument');
  assert.equal(await serverTreeRow(page, 'everything').getAttribute('aria-expanded'), 'false', 'only fixture is expanded');
  const toolRows = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]');
  assert.equal(await toolRows.count(), 14, 'one row per fixture tool');
  const checkboxes = toolRows.locator('.custom-view-tree-node-item-checkbox');
  assert.equal(await checkboxes.count(), 14, 'every tool row has a checkbox');
  assert.deepEqual(new Set(await checkboxes.evaluateAll((boxes) => boxes.map((b) => b.getAttribute('aria-checked')))), new Set(['true']));
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-tree-tools.png') });
}
