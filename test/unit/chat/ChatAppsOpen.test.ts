import { describe, expect, it } from 'vitest';
import type { HarnessTool } from '../../../src/core/tools/types';
import { APP_HTML, appsRig, SANDBOX_URL } from '../../support/appServers';

// What an app card renders (MCP Apps), against in-memory servers: `apps` offers the UI resources,
// `bare` lists a tool with a UI but offers no resources.

const sandboxFor = (csp: object) => `${SANDBOX_URL}?csp=${encodeURIComponent(JSON.stringify(csp))}`;
const LEFT_OUT = 'Left out of its content security policy (not an origin): "not an origin".';

async function started() {
  const rig = appsRig();
  await rig.harness.start();
  return rig;
}

describe('ChatApps: which tools have an app', () => {
  it("reads a tool's UI and who may call it from its server's listing", async () => {
    const { apps, harness } = await started();
    const tool = (name: string) => harness.tool(name)!;
    expect(apps.uiOf(tool('mcp__apps__show'))).toEqual({ resourceUri: 'ui://apps/show.html' });
    expect(apps.uiOf(tool('mcp__apps__poll'))).toBeUndefined();
    expect(apps.uiOf(tool('mcp__bare__show'))).toEqual({ resourceUri: 'ui://bare/show.html' });
    expect(apps.isAppOnly(tool('mcp__apps__app_only'))).toBe(true);
    expect(apps.isAppOnly(tool('mcp__apps__model_only'))).toBe(false);
    expect(apps.isAppOnly(tool('mcp__apps__show'))).toBe(false);
  });

  it('gives no app to a built-in tool, nor to a tool of a server that is no longer configured', async () => {
    const { apps } = await started();
    const builtin: HarnessTool = { name: 'clock', description: '', inputSchema: { type: 'object' }, originalName: 'clock', pin: 'p' };
    const orphan: HarnessTool = { ...builtin, name: 'mcp__gone__show', server: 'gone', originalName: 'show' };
    for (const tool of [builtin, orphan]) {
      expect(apps.uiOf(tool)).toBeUndefined();
      expect(apps.isAppOnly(tool)).toBe(false);
    }
  });
});

describe('ChatApps: opening an app card', () => {
  it("renders the app's resource with its policy, the tool as listed, and the call's arguments and result", async () => {
    const { apps, chat, harness } = await started();
    chat.card('card1');
    const view = await apps.open('card1');
    expect(view).toStrictEqual({
      html: APP_HTML,
      sandboxUrl: sandboxFor({ connectDomains: ['https://api.example.com'] }),
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: false,
      tool: harness.snapshot('apps')!.tools.find((t) => t.name === 'show'),
      toolInput: { city: 'Oslo' },
      toolResult: { content: [{ type: 'text', text: 'shown' }] },
      notes: [LEFT_OUT],
    });
    expect(view.tool).toMatchObject({ name: 'show', title: 'Show Time' });
  });

  it('says when the result was too large to keep, and feeds the app no arguments as an empty object', async () => {
    const { apps, chat } = await started();
    chat.card('card1', { arguments: undefined, app: { resourceUri: 'ui://apps/plain.html' } });
    expect(await apps.open('card1')).toStrictEqual({
      html: APP_HTML,
      sandboxUrl: sandboxFor({}),
      csp: {},
      permissions: {},
      tool: expect.objectContaining({ name: 'show' }),
      toolInput: {},
      notes: ['The result of its call was too large to keep: the app shows it without.'],
    });
  });

  it('keeps the notes of the resource before the note about a result too large to keep', async () => {
    const { apps, chat } = await started();
    chat.card('card1', { app: { resourceUri: 'ui://apps/show.html' } });
    expect((await apps.open('card1')).notes).toEqual([LEFT_OUT, 'The result of its call was too large to keep: the app shows it without.']);
  });

  it('describes a tool its server no longer lists by the name on the card', async () => {
    const { apps, chat } = await started();
    chat.card('named', { tool: 'vanished', toolName: 'mcp__apps__vanished' });
    chat.card('unnamed', { tool: undefined, toolName: 'mcp__apps__vanished' });
    expect((await apps.open('named')).tool).toStrictEqual({ name: 'vanished', inputSchema: { type: 'object' } });
    expect((await apps.open('unnamed')).tool).toStrictEqual({ name: 'mcp__apps__vanished', inputSchema: { type: 'object' } });
  });

  it('picks the listed tool the card names, not the first one of its server', async () => {
    const { apps, chat, harness } = await started();
    chat.card('card1', { tool: 'fails', toolName: 'mcp__apps__fails' });
    expect((await apps.open('card1')).tool).toEqual(harness.snapshot('apps')!.tools.find((t) => t.name === 'fails'));
  });

  it("says why a server's app cannot be shown: no resources, or a resource it cannot read", async () => {
    const { apps, chat } = await started();
    chat.card('bare', { server: 'bare', toolName: 'mcp__bare__show', app: { resourceUri: 'ui://bare/show.html' } });
    chat.card('missing', { app: { resourceUri: 'ui://apps/missing.html' } });
    await expect(apps.open('bare')).rejects.toThrow(
      'Cannot show the app ui://bare/show.html of server "bare": the server does not offer resources (no "resources" capability), so its UI cannot be read.',
    );
    await expect(apps.open('missing')).rejects.toThrow(/^Cannot show the app ui:\/\/apps\/missing\.html of server "apps": reading it failed: .*Resource not found/);
  });

  it('asks to start a stopped server first, and says when its server is no longer configured', async () => {
    const { apps, chat, harness } = await started();
    chat.card('card1');
    chat.card('orphan', { server: 'gone', toolName: 'mcp__gone__show' });
    await harness.stopServer('apps');
    await expect(apps.open('card1')).rejects.toThrow('Cannot show the app: server "apps" is stopped. Start it, then reopen the app.');
    await expect(apps.open('orphan')).rejects.toThrow('Cannot show the app: server "gone" is no longer configured. Start it, then reopen the app.');
  });

  it('waits for a server that is still starting (a reopened window), then renders its app', async () => {
    const rig = appsRig();
    rig.holdStarts();
    const starting = rig.harness.start();
    await expect.poll(() => rig.harness.snapshot('apps')?.state.kind).toBe('starting');
    rig.chat.card('card1');
    const opening = rig.apps.open('card1');
    rig.release();
    await starting;
    expect((await opening).html).toBe(APP_HTML);
  });

  it('waits for a server that is reconnecting, then renders its app', async () => {
    const rig = appsRig({ reconnectDelaysMs: [60_000] });
    await rig.harness.start();
    await rig.last('apps').close();
    await expect.poll(() => rig.harness.snapshot('apps')?.state.kind).toBe('reconnecting');
    rig.chat.card('card1');
    const opening = rig.apps.open('card1');
    await rig.harness.startServer('apps');
    expect((await opening).html).toBe(APP_HTML);
  });

  it('opens the app of a running server at once while another server is still reconnecting', async () => {
    const rig = appsRig({ reconnectDelaysMs: [60_000] });
    await rig.harness.start();
    await rig.last('bare').close();
    await expect.poll(() => rig.harness.snapshot('bare')?.state.kind).toBe('reconnecting');
    rig.chat.card('card1');
    expect((await rig.apps.open('card1')).html).toBe(APP_HTML);
  });

  it('stops reading an app when the chat closes', async () => {
    const { apps, chat } = await started();
    chat.card('slow', { app: { resourceUri: 'ui://apps/slow.html' } });
    const opening = apps.open('slow');
    const failed = expect(opening).rejects.toThrow(/^Cannot show the app ui:\/\/apps\/slow\.html of server "apps": reading it failed: /);
    apps.dispose();
    await failed;
  });
});
