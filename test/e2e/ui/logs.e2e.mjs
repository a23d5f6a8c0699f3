// "MCP: Show Server Log" opens that server's own output channel (its lines, not another server's);
// with the channel's log level at Trace, the JSON-RPC traffic of the next start is logged too.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { extensionLog, openApprovedWorkspace, runCommand, waitForText } from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  await openApprovedWorkspace(ctx);

  await runCommand(page, 'MCP: Show Server Log');
  await pick(page, 'fixture');
  // The editor renders spaces as no-break spaces: patterns below use \s.
  const output = page.locator('.part.panel .monaco-editor .view-lines');
  await waitForText(output, /\[harness\]\sconnected\sover\sstdio:\sfixture\s1\.2\.3,\sprotocol\s[\d-]+,\s14\stools/, { timeout: 30_000 });
  const text = await output.innerText();
  assert.ok(!text.includes('mcp-harness-no-such-command'), `the fixture's log shows another server's lines:\n${text}`);
  assert.ok(!text.includes('"jsonrpc"'), 'no JSON-RPC lines below Trace');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-logs-server-log.png') });

  // Trace for this channel, then a restart: the handshake appears, both directions.
  await runCommand(page, 'Developer: Set Log Level...');
  await pick(page, 'MCP: fixture');
  await pick(page, 'Trace');
  await runCommand(page, 'MCP: Restart Server');
  await pick(page, 'fixture');
  // On screen: the end of the traffic (the tools/list answer); the whole channel is in its log file.
  await waitForText(output, /"inputSchema":\{"type":"object"/, { timeout: 30_000 });
  const log = await channelLogMatching(ctx.server.userDataDir, /"method":"tools\/list"/);
  const lines = log.split('\n');
  const connected = lines.findIndex((l) => l.includes('[harness] connected over stdio'));
  // `[trace] → {...}` sent, `[trace] ← {...}` received: named by method, by the result's first key, or `error`.
  const traced = lines.slice(connected + 1).flatMap((l) => {
    const m = /\[trace\] ([→←]) (\{.*)$/.exec(l);
    if (!m) return [];
    return [`${m[1]} ${messageName(m[2])}`];
  });
  // Setting the level first tells the running server (`logging/setLevel`, answered `{}`); then the
  // handshake in order, both directions (none before the level was set): the 2026-07-28 probe,
  // which this 2025-era fixture refuses, then the classic handshake.
  assert.deepEqual(traced.slice(0, 2), ['→ logging/setLevel', '← result undefined']);
  assert.deepEqual(traced.slice(2, 9), [
    '→ server/discover', '← error', '→ initialize', '← result protocolVersion', '→ notifications/initialized', '→ tools/list', '← result tools',
  ]);
  assert.equal(lines.slice(0, connected).some((l) => l.includes('[trace]')), false, 'nothing traced before Trace was set');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-logs-trace.png') });
}

/** A traced message's name; long messages are cut in the log, so a result may not parse whole. */
function messageName(json) {
  try {
    const message = JSON.parse(json);
    return message.method ?? (message.result ? `result ${Object.keys(message.result)[0]}` : message.error ? 'error' : '?');
  } catch {
    const result = /^\{"(?:jsonrpc":"2\.0","|id":\d+,")*(?:id":\d+,")?result":\{"(\w+)"/.exec(json);
    return result ? `result ${result[1]}` : '?';
  }
}

/** Picks the quick pick row whose label is `label`. */
async function pick(page, label) {
  const name = page.locator('.label-name', { hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
  const row = page.locator('.quick-input-list .monaco-list-row', { has: name }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
}

/** The fixture's channel log file once it matches `pattern` (VS Code writes it asynchronously). */
async function channelLogMatching(userDataDir, pattern, timeout = 15_000) {
  for (const deadline = Date.now() + timeout; ; await new Promise((r) => setTimeout(r, 200))) {
    const text = await extensionLog(userDataDir, { channel: 'MCP fixture' });
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the fixture's log does not match ${pattern}:\n${text}`);
  }
}
