// The view's commands with their effects on disk and on screen: the approval's "Show Commands" lists
// what would run; "Add Server..." writes the entry into .mcp.json and the server runs; "Remove
// Server..." takes it out again and the tree follows; "Open Configuration" creates and opens a file
// that does not exist yet; "Create .mcp.json" writes a valid starter file in a folder without one.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  FIXTURE_SERVERS, findNotification, mcpStatusItem, openServersView, openViewContainer, runCommand, serverTreeRow, toolTotal,
  waitForServersSettled, waitForText, waitForWorkbench,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  const repo = ctx.extensionPath;
  await openServersView(page, ctx.workbenchUrl());

  // "Show Commands" shows every command the approval would run, then starts them on "Start".
  const question = await findNotification(page, new RegExp(`^Start ${FIXTURE_SERVERS.length} MCP servers from \\.mcp\\.json\\?`), { timeout: 90_000 });
  await question.locator('.monaco-button', { hasText: /^Show Commands$/ }).click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor();
  const detail = (await dialog.locator('.dialog-message-detail').innerText()).trim();
  // As written in .mcp.json: variables are resolved when a server starts.
  assert.deepEqual(detail.split(/\n+/), [
    'everything: node ${env:MCP_HARNESS_REPO}/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    'fixture: node ${env:MCP_HARNESS_REPO}/test/fixtures/servers/fixture.mjs --fail-if-exists=${workspaceFolder}/fixture-down',
    'memory: node ${env:MCP_HARNESS_REPO}/node_modules/@modelcontextprotocol/server-memory/dist/index.js',
    'broken: mcp-harness-no-such-command',
  ]);
  assert.equal(await serverTreeRow(page, 'fixture').locator('.label-description').innerText(), 'needs your approval to start', 'nothing started while the commands are shown');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-commands-show-commands.png') });
  await dialog.locator('.monaco-button', { hasText: /^Start$/ }).click();
  const total = toolTotal(await waitForServersSettled(page));

  // Add Server: transport, name, command, where to save it.
  const configFile = join(ctx.workspace, '.mcp.json');
  await runCommand(page, 'MCP: Add Server');
  await step(page, /^Add MCP Server \(1\/4\): transport$/);
  await pick(page, 'stdio');
  await step(page, /^Add MCP Server \(2\/4\): name$/);
  await answer(page, 'added');
  await step(page, /^Add MCP Server \(3\/4\): command$/);
  await answer(page, `node ${repo}/test/fixtures/servers/fixture.mjs --name=added-server`);
  await step(page, /^Add MCP Server \(4\/4\): where to save it$/);
  await pick(page, '.mcp.json');
  const written = await fileMatching(configFile, (config) => config.mcpServers.added !== undefined);
  assert.deepEqual(written.mcpServers.added, { type: 'stdio', command: 'node', args: [`${repo}/test/fixtures/servers/fixture.mjs`, '--name=added-server'] });
  assert.deepEqual(Object.keys(written.mcpServers), [...FIXTURE_SERVERS, 'added'], 'the other entries are kept as they were');
  const added = serverTreeRow(page, 'added');
  await waitForText(added.locator('.label-description'), /^14 tools$/, { timeout: 60_000 });
  await waitForText(mcpStatusItem(page), new RegExp(`^\\s*MCP 4/5 · ${total + 14} tools$`));
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-commands-added.png') });

  // Remove Server: asks first, then the entry leaves the file and the row the tree.
  await runCommand(page, 'MCP: Remove Server');
  await pick(page, 'added');
  const confirm = page.locator('.monaco-dialog-box');
  await waitForText(confirm, /Remove MCP server "added" from \.mcp\.json\?/);
  await confirm.locator('.monaco-button', { hasText: /^Remove$/ }).click();
  const removed = await fileMatching(configFile, (config) => config.mcpServers.added === undefined);
  assert.deepEqual(Object.keys(removed.mcpServers), FIXTURE_SERVERS);
  await added.waitFor({ state: 'detached', timeout: 30_000 });
  await waitForText(mcpStatusItem(page), new RegExp(`^\\s*MCP 3/4 · ${total} tools$`));

  // Open Configuration on a file that does not exist yet creates it and opens it in an editor.
  const vscodeConfig = join(ctx.workspace, '.vscode', 'mcp.json');
  assert.equal(existsSync(vscodeConfig), false);
  await runCommand(page, 'MCP: Open Configuration');
  const row = quickPickRow(page, '.vscode/mcp.json');
  await waitForText(row, /does not exist yet: choosing it creates it/);
  await row.click();
  await page.locator('.tabs-container .tab.active', { hasText: 'mcp.json' }).waitFor();
  assert.deepEqual(JSON.parse(readFileSync(vscodeConfig, 'utf8')), { servers: {} });
  await waitForText(page.locator('.editor-group-container.active .monaco-editor .view-lines'), /"servers":\s\{\}/); // the editor renders spaces as no-break spaces
  await waitForText(page.locator('.editor-group-container.active .breadcrumbs-control'), /\.vscode.*mcp\.json/);

  // Create .mcp.json in a folder without one: a valid starter file, opened, and its server listed
  // waiting for approval (it is not started: it would download with npx).
  const empty = join(dirname(ctx.workspace), 'empty-folder');
  mkdirSync(empty, { recursive: true });
  await page.goto(ctx.server.workbenchUrl({ folder: empty, extensionDevelopmentPath: repo }));
  await waitForWorkbench(page);
  await waitForText(mcpStatusItem(page), /^\s*MCP 0\/0 · 0 tools$/, { timeout: 90_000 });
  await runCommand(page, 'MCP: Create .mcp.json');
  await page.locator('.tabs-container .tab.active', { hasText: '.mcp.json' }).waitFor();
  assert.deepEqual(JSON.parse(readFileSync(join(empty, '.mcp.json'), 'utf8')), {
    mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] } },
  });
  await openViewContainer(page, 'MCP Servers');
  await waitForText(serverTreeRow(page, 'memory').locator('.label-description'), /^needs your approval to start$/, { timeout: 60_000 });
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-commands-created-config.png') });
}

/** A row of the open quick pick whose label is `label`. */
function quickPickRow(page, label) {
  return page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
}

/** Waits until the quick input shows the step titled `title` (one widget serves every step). */
function step(page, title) {
  return waitForText(page.locator('.quick-input-widget .quick-input-title'), title, { timeout: 15_000 });
}

/** Picks `label` in the open quick pick. */
async function pick(page, label) {
  const row = quickPickRow(page, label);
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

/** Types `text` into the open input box and accepts it. */
async function answer(page, text) {
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor();
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/** The config file parsed (line comments dropped), once `check` accepts it. */
async function fileMatching(file, check, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 100))) {
    const text = readFileSync(file, 'utf8');
    let config;
    try {
      config = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    } catch {
      // being written
    }
    if (config && check(config)) return config;
    if (Date.now() > deadline) throw new Error(`${file} did not change as expected:\n${text}`);
  }
}
