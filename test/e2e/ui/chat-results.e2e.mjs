// Large results and the context budget in the real chat panel, with a fake model on loopback:
// a 1 MiB result shows "Open in Editor" and opens as a file; the header's budget grows with the
// conversation; Compact shrinks it and the transcript marks where.
import * as assert from 'node:assert/strict';
import http from 'node:http';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompletionStream, modelList, readJson, roughTokens, sendError } from '../../../demo/model/chatCompletionsWire.mjs';
import { approveFromNotification, openViewContainer, serverTreeRow, waitForText, waitForWorkbench } from './lib.mjs';
import { button, lastCard, openChat, send, waitCardState, waitIdle } from './chatLib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const MODEL_ID = 'fake-results-model';

/**
 * "report ..." calls *__report; a tool result is answered with its first line; a summary request
 * (the compaction prompt) with a short summary; anything else with a long echo. Usage is reported
 * at four characters a token, as a provider would count the request.
 */
async function startModel() {
  const requests = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url, 'http://localhost').pathname;
      if (req.method === 'GET' && path === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(modelList([MODEL_ID])));
      }
      if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendError(res, 404, 'not found');
      const body = await readJson(req);
      requests.push(body);
      const stream = new CompletionStream(res, body);
      const usage = { prompt_tokens: roughTokens(body.messages) + roughTokens(body.tools), completion_tokens: 20 };
      const last = body.messages.at(-1);
      if (/^You summarise a conversation/.test(body.messages[0]?.content ?? '')) {
        stream.writeText('The user fetched a long report and asked about it.');
        return stream.end('stop', usage);
      }
      if (last.role === 'tool') {
        stream.writeText(`Read: ${/\n(line [^\n]*)/.exec(last.content)?.[1] ?? 'nothing'}`);
        return stream.end('stop', usage);
      }
      const report = (body.tools ?? []).map((t) => t.function.name).find((n) => n.endsWith('__report'));
      if (/^report/.test(last.content) && report) {
        stream.writeToolCall({ id: `call_${requests.length}`, name: report, args: {} });
        return stream.end('tool_calls', usage);
      }
      stream.writeText(`Echo: ${last.content} ${'and so on '.repeat(200)}`);
      stream.end('stop', usage);
    })().catch((error) => (res.headersSent ? res.end() : sendError(res, 500, error.message)));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${server.address().port}/v1`, requests, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

function workspace(settings) {
  const dir = join(mkdtempSync(join(tmpdir(), 'mcp-harness-results-')), 'results-workspace');
  cpSync(join(ROOT, 'test/e2e/fixtures/results-workspace'), dir, { recursive: true });
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  writeFileSync(join(dir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return dir;
}

/** Tokens the header shows as used. */
async function used(chat) {
  const status = chat.getByRole('status', { name: 'Context budget' });
  await status.waitFor();
  return Number(await status.getAttribute('data-used'));
}

export async function run(ctx) {
  const { page } = ctx;
  const model = await startModel();
  const folder = workspace({
    'mcpHarness.chat.provider': 'openai',
    'mcpHarness.chat.openai.baseUrl': model.baseUrl,
    'mcpHarness.chat.openai.model': MODEL_ID,
    'mcpHarness.chat.autoCompactThreshold': 0,
    'mcpHarness.permissions.allow': ['mcp__big__*'],
  });
  const shot = (name) => page.screenshot({ path: join(ctx.resultsDir, `ui-chat-results-${name}.png`) });
  try {
    await page.goto(ctx.server.workbenchUrl({ folder, extensionDevelopmentPath: ctx.extensionPath }));
    await waitForWorkbench(page);
    await openViewContainer(page, 'MCP Servers', { timeout: 90_000 });
    const chat = await openChat(page);
    await approveFromNotification(page, { count: 1 });
    await waitForText(serverTreeRow(page, 'big').locator('.label-description'), /^3 tools$/, { timeout: 90_000 });
    await waitForText(chat.locator('mcp-chat-header'), new RegExp(MODEL_ID));

    // The budget grows with the conversation.
    await send(chat, 'hello');
    await waitForText(chat.locator('mcp-chat-item .md'), /Echo: hello/);
    await waitIdle(chat);
    const first = await used(chat);
    assert.ok(first > 0, `the header shows no budget (${first})`);

    // A 1 MiB result: the model reads the first 100,000 characters and a handle; the card opens the whole.
    await send(chat, 'report please');
    const card = lastCard(chat);
    await waitCardState(card, 'done', { timeout: 60_000 });
    await waitForText(chat.locator('mcp-chat-item .md'), /Read: line 000001 of 013108/, { timeout: 60_000 });
    await waitIdle(chat, { timeout: 60_000 });
    await button(card, 'Open in Editor').waitFor();
    await waitForText(card.locator('mcp-kept-result'), /1,048,640 characters, 13,108 lines/);
    const sent = model.requests.at(-1).messages.filter((m) => m.role === 'tool').at(-1).content;
    assert.ok(sent.length < 101_000, `the model was sent ${sent.length} characters of the result`);
    assert.match(sent, /showing the first 100,000 of 1,048,640 characters/);
    const afterReport = await used(chat);
    assert.ok(afterReport > first + 20_000, `the budget did not grow with the result: ${first} -> ${afterReport}`);
    await shot('1-big-result');
    await button(card, 'Open in Editor').click();
    await page.locator('.tabs-container .tab', { hasText: /r-[0-9a-f]{8}\.txt/ }).waitFor({ timeout: 30_000 });
    // The editor renders spaces as no-break spaces.
    await waitForText(page.locator('.editor-instance .monaco-editor .view-lines').first(), /line\s000001\sof\s013108/);
    await shot('2-open-in-editor');

    await send(chat, 'tell me more');
    await waitForText(chat.locator('mcp-chat-item .md'), /Echo: tell me more/);
    await waitIdle(chat);
    await send(chat, 'and more');
    await waitForText(chat.locator('mcp-chat-item .md'), /Echo: and more/);
    await waitIdle(chat);
    const before = await used(chat);
    assert.ok(before > afterReport, `the budget did not grow: ${afterReport} -> ${before}`);

    // Compact: the old result gives way to its handle, the earlier turns to a summary.
    await button(chat.locator('mcp-context-budget'), 'Compact').click();
    await waitForText(chat.locator('mcp-chat-item'), /Compacted here/, { timeout: 60_000 });
    await waitIdle(chat);
    const after = await used(chat);
    assert.ok(after < before / 4, `Compact did not shrink the budget enough: ${before} -> ${after}`);
    await shot('3-compacted');
  } finally {
    await model.close();
  }
}
