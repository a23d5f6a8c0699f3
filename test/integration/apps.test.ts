import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, McpHarness } from '../../src/core';
import { UI_MIME_TYPE } from '../../src/core/apps/appResource';
import { ChatHistoryStore, ChatSession } from '../../src/core/chat';
import { PermissionGate } from '../../src/core/permissions';
import type { ChatItem } from '../../src/shared/chatProtocol';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, tempDir, writeJson } from '../support/servers';
import { MemoryMemento } from '../support/memento';

// MCP Apps against real servers: the official example servers (started with node, offline) and our
// SDK-built fixture, through the real harness and the chat's app host. The webview half (the
// sandbox, the bridge) is proven in the real VS Code (test/e2e/ui/apps.e2e.mjs).

const example = (name: string) => repoPath(`node_modules/@modelcontextprotocol/${name}/dist/index.js`);
const appsServer = repoPath('test/fixtures/servers/apps.mjs');

describe('MCP Apps', () => {
  const tag = processTag();
  const tmp = tempDir('apps-');
  const report = path.join(tmp.dir, 'report.json');
  let harness: McpHarness;
  let session: ChatSession;
  const links: string[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', {
      servers: {
        basic: { command: process.execPath, args: [example('server-basic-vanillajs'), '--stdio'], env: tag.env },
        monitor: { command: process.execPath, args: [example('server-system-monitor'), '--stdio'], env: tag.env },
        budget: { command: process.execPath, args: [example('server-budget-allocator'), '--stdio'], env: tag.env },
        fixture: { command: process.execPath, args: [appsServer, `--report=${report}`], env: tag.env },
        bare: { command: process.execPath, args: [appsServer, '--no-resources'], env: tag.env },
      },
    });
    harness = await createHarness({ configFiles: [path.join(tmp.dir, 'ws/.vscode/mcp.json')], handlers: { apps: true } });
    session = new ChatSession({
      enabledTools: () => harness.tools(),
      servers: () => harness.servers(),
      call: (request, options) => harness.call(request, options),
      gate: new PermissionGate({ prompter: { ask: (r, s) => session.prompter.ask(r, s) } }),
      history: new ChatHistoryStore(new MemoryMemento()),
      models: async () => ({ entries: [] }),
      selectModel: async () => undefined,
      settings: () => ({ maxSteps: 5, toolSearch: {} }),
      post: () => undefined,
      runAction: async () => undefined,
      copy: async () => undefined,
      log: (line) => logs.push(line),
      apps: {
        servers: harness,
        host: {
          sandboxUrl: async () => 'http://127.0.0.1:1/sandbox',
          openLink: async (url) => (links.push(url), false),
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    session?.dispose();
    await harness?.dispose();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  const tools = () => session.state().items.filter((i): i is Extract<ChatItem, { kind: 'tool' }> => i.kind === 'tool');
  /** Runs `/call` (the user's own call: the gate asks, and this answers "once"). */
  async function call(name: string, args = '{}'): Promise<Extract<ChatItem, { kind: 'tool' }>> {
    const before = tools().length;
    const sending = session.send(`/call ${name} ${args}`);
    await waitFor(() => tools().length > before && tools().at(-1)!.state === 'waiting_for_approval');
    await session.requests.answerPermission({ callId: tools().at(-1)!.id, choice: 'once' });
    await sending;
    return tools().at(-1)!;
  }

  it('declares the extension with its MIME type, which is the official one', async () => {
    // The extension's package is ESM only (the tests compile as CommonJS).
    expect(UI_MIME_TYPE).toBe((await import('@modelcontextprotocol/ext-apps/app-bridge')).RESOURCE_MIME_TYPE);
    const basic = harness.tools().find((t) => t.server === 'basic' && t.originalName === 'get-time')!;
    expect(session.apps!.uiOf(basic)).toEqual({ resourceUri: 'ui://get-time/mcp-app.html' });
    // App-only tools are the host's to keep from the model.
    const poll = harness.tools().find((t) => t.originalName === 'poll-system-stats')!;
    expect(session.apps!.isAppOnly(poll)).toBe(true);
    expect(session.apps!.isAppOnly(harness.tools().find((t) => t.originalName === 'get-system-info')!)).toBe(false);
  });

  it("renders an example server's app: its HTML, the sandbox page, the call's arguments and result", async () => {
    const card = await call('mcp__basic__get-time');
    expect(card).toMatchObject({ state: 'done', app: { resourceUri: 'ui://get-time/mcp-app.html' } });
    const view = await session.requests.appOpen({ itemId: card.id });
    expect(view.html).toMatch(/<html/i);
    expect(view.html.length).toBeGreaterThan(100_000);
    expect(view.sandboxUrl).toBe(`http://127.0.0.1:1/sandbox?csp=${encodeURIComponent('{}')}`);
    expect(view.tool).toMatchObject({ name: 'get-time' });
    expect(view.toolResult).toMatchObject({ structuredContent: { time: expect.stringMatching(/^\d{4}-/) } });
    expect(view.notes).toEqual([]);
  });

  it('renders the apps of the other example servers too', async () => {
    for (const [tool, uri] of [['mcp__monitor__get-system-info', 'ui://system-monitor/mcp-app.html'], ['mcp__budget__get-budget-data', 'ui://budget-allocator/mcp-app.html']]) {
      const card = await call(tool);
      expect(card).toMatchObject({ state: 'done', app: { resourceUri: uri, result: { structuredContent: expect.any(Object) } } });
      const view = await session.requests.appOpen({ itemId: card.id });
      expect(view.html).toMatch(/<html/i);
      expect(view.notes).toEqual([]);
    }
  });

  it('gives each broken app a clear message and nothing to render', async () => {
    const open = async (tool: string) => session.requests.appOpen({ itemId: (await call(tool)).id }).then(() => 'opened', (e: Error) => e.message);
    expect(await open('mcp__fixture__missing_ui')).toMatch(/^Cannot show the app ui:\/\/fixture\/missing\.html of server "fixture": reading it failed: .*/);
    expect(await open('mcp__fixture__wrong_mime')).toBe('Cannot show the app ui://fixture/plain.html of server "fixture": its MIME type is "text/html", not "text/html;profile=mcp-app".');
    expect(await open('mcp__fixture__oversized')).toBe('Cannot show the app ui://fixture/big.html of server "fixture": it is 4.5 MB, over the 4.0 MB an app may be.');
    expect(await open('mcp__bare__escape')).toBe('Cannot show the app ui://fixture/escape.html of server "bare": the server does not offer resources (no "resources" capability), so its UI cannot be read.');
    const bad = await call('mcp__fixture__bad_uri');
    expect(bad.app).toEqual({ resourceUri: '', error: 'The tool "bad_uri" declares a UI that cannot be shown: "https://example.invalid/app.html" is not a ui:// resource.' });
    await expect(session.requests.appOpen({ itemId: bad.id })).rejects.toThrow('This app is no longer in the open conversation.');
  });

  it("reads the app's declared policy, and refuses what apps may not call without a card", async () => {
    const card = await call('mcp__fixture__escape');
    const view = await session.requests.appOpen({ itemId: card.id });
    expect(view.csp.connectDomains).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/)]);
    expect(view.prefersBorder).toBe(true);
    const count = tools().length;
    const modelOnly = await session.requests.appCallTool({ itemId: card.id, name: 'model_only', arguments: {} });
    expect(modelOnly).toEqual({ isError: true, content: [{ type: 'text', text: '"model_only" is for the model only: apps may not call it.' }] });
    const elsewhere = await session.requests.appCallTool({ itemId: card.id, name: 'get-time', arguments: {} });
    expect(elsewhere).toEqual({ isError: true, content: [{ type: 'text', text: 'The app may call only tools of its own server "fixture", which offers no tool "get-time" now.' }] });
    expect(tools()).toHaveLength(count);
    await expect(session.requests.appCallTool({ itemId: 'tool999', name: 'report', arguments: {} })).rejects.toThrow('This app is no longer in the open conversation.');
  });

  it("puts an app's call through the gate on a card that names the app, and runs it once allowed", async () => {
    const card = await call('mcp__fixture__escape');
    const calling = session.requests.appCallTool({ itemId: card.id, name: 'report', arguments: { attempts: { x: { escaped: false } }, allowed: 'HTTP 200' } });
    await waitFor(() => tools().at(-1)!.state === 'waiting_for_approval' && tools().at(-1)!.id !== card.id);
    const asked = tools().at(-1)!;
    expect(asked).toMatchObject({ tool: 'report', server: 'fixture', caller: 'the app of "Escape"', permission: expect.anything() });
    expect(fs.existsSync(report)).toBe(false);
    await session.requests.answerPermission({ callId: asked.id, choice: 'session' });
    expect(await calling).toEqual({ content: [{ type: 'text', text: 'recorded' }] });
    expect(JSON.parse(fs.readFileSync(report, 'utf8'))).toMatchObject({ attempts: { x: { escaped: false } }, allowedHits: 0, forbiddenHits: 0 });
    expect(tools().at(-1)).toMatchObject({ id: asked.id, state: 'done', caller: 'the app of "Escape"' });
    // Allowed for the session now: the next call goes through without a card (apps may poll).
    const count = tools().length;
    expect(await session.requests.appCallTool({ itemId: card.id, name: 'report', arguments: { attempts: {}, allowed: '' } })).toEqual({ content: [{ type: 'text', text: 'recorded' }] });
    expect(tools()).toHaveLength(count);
  });

  it('asks before a link, keeps context under the app, and shows its messages as the app\'s', async () => {
    const card = await call('mcp__basic__get-time');
    expect(await session.requests.appOpenLink({ itemId: card.id, url: 'https://modelcontextprotocol.io/' })).toEqual({ opened: false });
    expect(await session.requests.appOpenLink({ itemId: card.id, url: 'javascript:alert(1)' })).toEqual({ opened: false });
    expect(links).toEqual(['https://modelcontextprotocol.io/']);
    await session.requests.appContext({ itemId: card.id, text: 'The time shown is 10:00.' });
    await session.requests.appContext({ itemId: card.id, text: 'The time shown is 10:01.' });
    expect(session.state().attachments).toEqual([{ id: `app:${card.id}`, label: '"Get Time" (app)' }]);
    await session.requests.appLog({ itemId: card.id, level: 'info', text: 'clicked' });
    expect(logs).toContain('app "Get Time" [info]: clicked');
    // No model here: the message is shown as the app's and the chat says how to get one.
    await session.requests.appMessage({ itemId: card.id, text: '/call mcp__fixture__forged {}' });
    await waitFor(() => !session.busy && session.state().items.some((i) => i.kind === 'user' && i.from !== undefined));
    expect(session.state().items.find((i) => i.kind === 'user' && i.from !== undefined)).toMatchObject({ text: '/call mcp__fixture__forged {}', from: '"Get Time"' });
    expect(fs.existsSync(`${report}.forged`)).toBe(false);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
