// The status bar item: servers running of those meant to run and enabled tools, warning colours while
// a server is in error, a tooltip with every server's state, and a click that reveals the view.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  FIXTURE_SERVERS, hoverText, mcpStatusItem, runCommand, serverTreeRow, toolTotal, waitForHoverText, waitForServersSettled,
  waitForText, waitForWorkbench,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  await page.goto(ctx.workbenchUrl());
  await waitForWorkbench(page);
  const item = mcpStatusItem(page);

  // Nothing approved yet: nothing runs, and waiting is not an error.
  await waitForText(item, /MCP 0\/4 · 0 tools/, { timeout: 90_000 });
  assert.equal(await hasWarningColours(item), false, 'no warning colours before any server failed');
  await waitForHoverText(page, item, [
    /^MCP servers: 0 of 4 running, 0 tools enabled/,
    ...FIXTURE_SERVERS.map((name) => new RegExp(`^${name}: not started: needs your approval to start`, 'm')),
  ]);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-statusbar-awaiting-approval.png') });

  await runCommand(page, 'MCP: Allow Workspace Servers to Start', { timeout: 60_000 });
  // The view is not open: the status bar item reveals it.
  await item.click();
  const descriptions = await waitForServersSettled(page);
  const total = toolTotal(descriptions);
  ctx.log('settled:', JSON.stringify(descriptions), `total ${total}`);
  assert.ok(total > 14, `everything and memory offer tools too (total ${total})`);
  assert.equal(await serverTreeRow(page, 'fixture').isVisible(), true, 'the click revealed the MCP Servers view');

  const text = (await item.innerText()).trim();
  assert.equal(text, `MCP 3/4 · ${total} tools`);
  assert.equal(await item.locator('.codicon-plug').count(), 1, 'plug icon, no spinner');
  assert.equal(await hasWarningColours(item), true, 'warning colours while broken is in error');
  assert.equal(await item.locator('[aria-label]').first().getAttribute('aria-label'), `MCP: 3 of 4 servers running, ${total} tools, 1 in error`);

  const tip = await hoverText(page, item);
  ctx.log('tooltip:', JSON.stringify(tip));
  assert.match(tip, new RegExp(`^MCP servers: 3 of 4 running, ${total} tools enabled`));
  for (const name of ['everything', 'fixture', 'memory']) assert.match(tip, new RegExp(`^${name}: running$`, 'm'));
  assert.match(tip, /^broken: error: command not found: "mcp-harness-no-such-command" \(is it installed and on PATH\?\)$/m);
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-statusbar-tooltip.png') });
}

/**
 * Whether the item is painted in the theme's warning colours: the workbench marks it as a warning and
 * its computed background is the theme's `statusBarItem.warningBackground`. Moves the pointer away.
 */
async function hasWarningColours(item) {
  await item.page().mouse.move(0, 0); // hovered, the item shows its hover background instead
  return item.evaluate((el) => {
    const probe = document.createElement('div');
    probe.style.backgroundColor = 'var(--vscode-statusBarItem-warningBackground)';
    el.appendChild(probe);
    const warning = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return el.classList.contains('warning-kind') && getComputedStyle(el).backgroundColor === warning && warning !== 'rgba(0, 0, 0, 0)';
  });
}
