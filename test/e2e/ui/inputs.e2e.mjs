// `${input:id}` values: asked for once, in a password box, when the server first starts; never shown
// in the tree or its tooltips; forgotten by "MCP: Clear Saved Inputs", after which a restart asks
// again, and cancelling leaves the server in error with the reason.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  approveFromNotification, findNotification, openServersView, runCommand, serverTreeRow, waitForHoverText, waitForText,
} from './lib.mjs';

const SECRET = 's3cr3t-value-9f2c';

export async function run(ctx) {
  const { page } = ctx;
  // A second config file in the scenario's copy of the workspace: VS Code's format, with an input.
  mkdirSync(join(ctx.workspace, '.vscode'), { recursive: true });
  writeFileSync(
    join(ctx.workspace, '.vscode', 'mcp.json'),
    JSON.stringify({
      inputs: [{ type: 'promptString', id: 'api-key', description: 'Fixture API key', password: true }],
      servers: {
        secret: {
          command: 'node',
          args: ['${env:MCP_HARNESS_REPO}/test/fixtures/servers/fixture.mjs', '--name=secret'],
          env: { API_KEY: '${input:api-key}' },
        },
      },
    }, null, 2),
  );
  await openServersView(page, ctx.workbenchUrl());
  const secret = serverTreeRow(page, 'secret');
  await secret.waitFor({ timeout: 60_000 });
  await approveFromNotification(page, { count: 4 });
  const question = await findNotification(page, /^Start 1 MCP server from \.vscode\/mcp\.json\? secret$/, { timeout: 60_000 });
  await question.locator('.monaco-button', { hasText: /^Start$/ }).click();

  // The input is asked for in a password box, then the server starts with it.
  const input = await passwordPrompt(page);
  await input.fill(SECRET);
  await page.keyboard.press('Enter');
  await waitForText(secret.locator('.label-description'), /^14 tools$/, { timeout: 60_000 });
  const tip = await waitForHoverText(page, secret.locator('.monaco-icon-label'), [/^secret: running/, /API_KEY=\$\{input:api-key\}/]);
  assert.ok(!tip.includes(SECRET), 'the tooltip never shows the secret');
  assert.ok(!(await page.locator('.monaco-workbench').innerText()).includes(SECRET), 'nothing on screen shows the secret');
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-inputs-running.png') });
  await page.mouse.move(0, 0);

  // Forget it: the next start asks again; cancelling leaves the server in error, saying why.
  await runCommand(page, 'MCP: Clear Saved Inputs');
  await findNotification(page, /^MCP: forgot 1 saved input/);
  await runCommand(page, 'MCP: Restart Server');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: /^secret/ }).first().click();
  const again = await passwordPrompt(page);
  // On a busy machine the box can take the key before it has the focus: press Escape in it until it closes.
  const widget = page.locator('.quick-input-widget');
  for (const deadline = Date.now() + 60_000; await widget.isVisible(); ) {
    if (Date.now() > deadline) throw new Error('the input box did not close on Escape within 60 s');
    await again.focus().catch(() => undefined);
    await page.keyboard.press('Escape');
    await widget.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
  }
  await waitForText(secret.locator('.label-description'), /^input "api-key" was not provided \(used in env\.API_KEY\)$/, { timeout: 60_000 });
  await page.screenshot({ path: join(ctx.resultsDir, 'ui-inputs-cancelled.png') });
}

/** Waits for the input box that asks for the fixture's key, and checks it hides what is typed. */
async function passwordPrompt(page) {
  const widget = page.locator('.quick-input-widget');
  await waitForText(widget.locator('.quick-input-title'), /^MCP server "secret" needs Fixture API key$/, { timeout: 60_000 });
  const input = widget.locator('input.input');
  assert.equal(await input.getAttribute('type'), 'password');
  return input;
}
