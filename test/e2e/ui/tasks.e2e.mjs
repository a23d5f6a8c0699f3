// Tasks: a tool call that comes back as a task (our task fixture over Streamable HTTP, running
// outside VS Code as a remote server would). The chat's card says it runs as a task, the MCP Servers
// tree shows it under its server (title, status, progress, age) and the status bar counts it
// (screenshots light, dark and high contrast); after a window reload the task is picked up again (the fixture holds
// it until the scenario releases it), its result reaches the card and the model goes on from it. Stop cancels a task on the server, and so does
// the tree's "Cancel Task" and the card's (the fixture records each cancel).
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModel, FAKE_MODEL_ID } from '../support/fakeOpenAiModel.mjs';
import { approveFromNotification, expandRow, mcpStatusItem, openViewContainer, serverTreeRow, treeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, lastCard, openChat, scratchWorkspace, send, setColorTheme, waitCardState, waitIdle } from './chatLib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The task fixture on a free port; resolves once it listens. */
async function startTaskServer(record, hold) {
  const child = spawn(process.execPath, [join(ROOT, 'test/fixtures/servers/tasks.mjs'), '--http=0', `--record=${record}`, `--hold=${hold}`, '--poll-ms=200'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolveReady, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening (\d+)/.exec(out);
      if (m) resolveReady(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the task fixture exited with ${code}`)));
  });
  const stop = () => new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', r), child.kill('SIGKILL'))));
  return { url: `http://127.0.0.1:${port}/mcp`, stop };
}

/** The fixture's record of each task's events (created, cancelled, completed, ...). */
function events(record, taskId) {
  if (!existsSync(record)) return [];
  return readFileSync(record, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => taskId === undefined || e.taskId === taskId);
}

/**
 * Waits for `row` of the MCP Servers view after a reload. The workbench restores the side bar as it
 * was while it starts, and a click on the view container meanwhile can close it again: it is
 * opened again each second until the row shows.
 */
async function showRow(page, row, timeout = 90_000) {
  for (const deadline = Date.now() + timeout; !(await row.isVisible()); await page.waitForTimeout(1000)) {
    if (Date.now() > deadline) throw new Error('the MCP Servers view did not show the server after the reload');
    await openViewContainer(page, 'MCP Servers', { timeout: 5000 }).catch(() => undefined);
  }
}

async function until(what, probe, { timeout = 30_000 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function run(ctx) {
  const { page } = ctx;
  const model = await startFakeModel();
  const folder = scratchWorkspace('tasks-workspace', { ...model.chatSettings, 'mcpHarness.permissions.allow': ['mcp__jobs__*'] });
  const record = join(dirname(folder), 'record.jsonl');
  const release = join(dirname(folder), 'release');
  const server = await startTaskServer(record, release);
  writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { jobs: { type: 'http', url: server.url } } }, null, 2));
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-tasks-${name}.png`) });
  const jobs = () => serverTreeRow(page, 'jobs');
  const taskRow = () => treeRow(page, 'Slow compute', { view: 'MCP Servers', exact: true });
  try {
    await page.goto(ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    let chat = await openChat(page);
    await approveFromNotification(page, { count: 1 });
    await waitForText(jobs().locator('.label-description'), /^8 tools$/, { timeout: 90_000 });
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(FAKE_MODEL_ID));

    // A call that becomes a task: its card says so, the tree lists it under its server, the status bar counts it.
    await send(chat, 'job 5');
    const card = lastCard(chat);
    await waitForText(card.locator('.task > span'), /^Runs as a task: working · (step \d of 5|waiting to be released)$/, { timeout: 30_000 });
    const taskId = (await until('the fixture to create the task', () => events(record).find((e) => e.event === 'created')?.taskId));
    await waitForText(jobs().locator('.label-description'), /^8 tools · 1 task$/);
    await expandRow(jobs());
    // The age before the server's message: a narrow side bar cuts the end off.
    await waitForText(taskRow().locator('.label-description'), /^working · \d+ (s|min) · (step \d of 5|waiting to be released)$/);
    await waitForText(mcpStatusItem(page), /MCP 1\/1 · 8 tools · 1 task/);
    for (const [theme, file] of [['Light Modern', 'light'], ['Dark Modern', 'dark'], ['Dark High Contrast', 'high-contrast'], ['Light High Contrast', 'high-contrast-light']]) {
      await setColorTheme(page, theme);
      await page.waitForTimeout(500); // the webview repaints with the new variables
      await shot(file);
    }

    // The window reloads while the task runs: the task is not cancelled, it is picked up again, and
    // its result reaches the card and the model.
    await page.reload();
    await waitForWorkbench(page);
    await showRow(page, jobs());
    await waitForText(jobs().locator('.label-description'), /^8 tools · 1 task$/, { timeout: 90_000 });
    await expandRow(jobs());
    await waitForText(taskRow().locator('.label-description'), /^working · \d+ (s|min) · (step \d of 5|waiting to be released)$/);
    chat = await openChat(page);
    await waitCardState(lastCard(chat), 'running');
    // The card follows the task picked up again: no result yet, the task's state as its server reports it now.
    await waitForText(lastCard(chat).locator('.task > span'), /^Runs as a task: working · waiting to be released$/, { timeout: 60_000 });
    assert.equal(await lastCard(chat).locator('vscode-collapsible[title="Result"]').count(), 0);
    await shot('after-reload');
    assert.deepEqual(events(record, taskId).map((e) => e.event), ['created']);
    writeFileSync(release, '');
    await waitCardState(chat.locator('mcp-tool-card').first(), 'done', { timeout: 60_000 });
    await chat.locator('mcp-tool-card').first().locator('vscode-collapsible[title="Result"]').click();
    await waitForText(chat.locator('mcp-tool-card').first().locator('vscode-collapsible[title="Result"] pre'), /^computed job in 5 s$/);
    await waitForText(chat.locator('mcp-tool-card').first().locator('.task > span'), /^Ran as a task: completed$/);
    await waitForText(chat.locator('mcp-chat-item .md').last(), /Result: computed job in 5 s/, { timeout: 30_000 });
    await waitIdle(chat);
    await shot('delivered');
    await waitForText(jobs().locator('.label-description'), /^8 tools$/);
    assert.deepEqual(events(record, taskId).map((e) => e.event), ['created', 'completed']);

    // Stop during a task cancels it on the server.
    await send(chat, 'job 120');
    await waitForText(lastCard(chat).locator('.task > span'), /^Runs as a task: working/, { timeout: 30_000 });
    const stopped = await until('the second task', () => events(record).filter((e) => e.event === 'created')[1]?.taskId);
    await button(chat, 'Stop').click();
    await until('the server to record the cancel', () => events(record, stopped).some((e) => e.event === 'cancelled'));
    await waitIdle(chat);

    // So does the tree's Cancel Task.
    await send(chat, 'job 120');
    const third = await until('the third task', () => events(record).filter((e) => e.event === 'created')[2]?.taskId);
    await expandRow(jobs());
    const row = taskRow();
    await row.waitFor({ timeout: 30_000 });
    await row.hover();
    await row.locator('.action-label[aria-label="Cancel Task"]').click();
    await until('the server to record the cancel', () => events(record, third).some((e) => e.event === 'cancelled'));
    await waitIdle(chat);

    // And so does the card's own Cancel Task.
    await send(chat, 'job 120');
    await waitForText(lastCard(chat).locator('.task > span'), /^Runs as a task: working/, { timeout: 30_000 });
    const fourth = await until('the fourth task', () => events(record).filter((e) => e.event === 'created')[3]?.taskId);
    await shot('card-cancel-task');
    await button(lastCard(chat), 'Cancel Task').click();
    await until('the server to record the cancel', () => events(record, fourth).some((e) => e.event === 'cancelled'));
    await waitForText(lastCard(chat).locator('.task > span'), /^Ran as a task: cancelled$/, { timeout: 30_000 });
    await waitIdle(chat);
    await waitForText(jobs().locator('.label-description'), /^8 tools$/);
  } finally {
    await server.stop();
    await model.close();
    rmSync(dirname(folder), { recursive: true, force: true });
  }
}
