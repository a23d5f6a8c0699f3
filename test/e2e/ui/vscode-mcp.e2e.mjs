// The gateway offered to VS Code's own MCP support: with `mcpHarness.serve.offerToVsCode` on, the
// extension registers it through vscode.lm.registerMcpServerDefinitionProvider and VS Code's
// "MCP: List Servers" lists "MCP Harness: <folder>"; VS Code starts it and finds its tools. With
// the setting off it is not offered, and turning it off again takes it away.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openViewContainer, runCommand, waitForText, waitForWorkbench } from './lib.mjs';

const SETTING = 'mcpHarness.serve.offerToVsCode';

export async function run(ctx) {
  const { page } = ctx;
  const folder = join(mkdtempSync(join(tmpdir(), 'mcp-harness-offer-')), 'offer-workspace');
  const settingsFile = join(folder, '.vscode', 'settings.json');
  mkdirSync(dirname(settingsFile), { recursive: true });
  writeFileSync(join(folder, 'notes.md'), '# Notes\n');
  const setOffer = (on) => writeFileSync(settingsFile, JSON.stringify({ [SETTING]: on }, null, 2));
  const label = 'MCP Harness: offer-workspace';
  setOffer(false);
  try {
    // VS Code's MCP support is part of its AI features, which the shared server turns off.
    const server = await ctx.startCodeServer({ settings: { 'chat.disableAIFeatures': false } });
    await page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    // The extension is active once its view has loaded.
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });

    const off = await listServers(page);
    assert.ok(!off.some((l) => l.includes('MCP Harness')), `offered with the setting off: ${off.join(' | ')}`);
    await page.keyboard.press('Escape');

    setOffer(true);
    const on = await waitForListed(page, (rows) => rows.some((l) => l.includes(label)));
    assert.ok(on.some((l) => /Stopped/.test(l) && l.includes('MCP Harness Gateway')), `listed as the provider's, stopped: ${on.join(' | ')}`);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-vscode-mcp-listed.png') });
    await row(page, label).click();
    // VS Code's own actions for the server; Start Server has it run `mcp-harness serve --gateway`.
    await row(page, 'Start Server').click();
    await waitForListed(page, (rows) => rows.some((l) => l.includes(label) && /Running/.test(l)));
    await row(page, label).click();
    await row(page, 'Show Output').click();
    const output = page.locator('.part.panel .view-lines');
    // The editor renders spaces as no-break spaces: \s matches both.
    const text = await waitForText(output, /Discovered\s4\stools/, { timeout: 60_000 });
    // The gateway's own stderr line (wrapped in the editor) names the built-in read-only tools.
    for (const tool of ['read_file', 'list_directory', 'glob_search', 'grep_search']) assert.ok(text.includes(tool), `${tool} in ${text}`);
    await page.screenshot({ path: join(ctx.resultsDir, 'ui-vscode-mcp-started.png') });

    setOffer(false);
    // Turned off, the provider is unregistered and VS Code drops the server.
    await waitForListed(page, (rows) => !rows.some((l) => l.includes('MCP Harness')));
  } finally {
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}

function row(page, text) {
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: text }).first();
}

/** "MCP: List Servers": the rows of its quick pick (left open). */
async function listServers(page) {
  // The focus goes to the editor area first (right of the quick input, above the panel): keys
  // pressed inside a webview (the chat view's) do not open the command palette.
  await page.locator('.monaco-workbench').click({ position: { x: 1200, y: 450 } });
  await runCommand(page, 'MCP: List Servers');
  const widget = page.locator('.quick-input-widget');
  // The list always starts with "Add Server..."; the servers are set in the same update.
  await widget.locator('.quick-input-list .monaco-list-row').first().waitFor();
  return (await widget.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

async function waitForListed(page, predicate, timeout = 60_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const rows = await listServers(page);
    if (predicate(rows)) return rows;
    await page.keyboard.press('Escape');
    if (Date.now() > deadline) throw new Error(`"MCP: List Servers" did not change as expected; it lists ${rows.join(' | ')}`);
    await new Promise((r) => setTimeout(r, 250)); // then asks again (the list shows what was true when it opened)
  }
}

