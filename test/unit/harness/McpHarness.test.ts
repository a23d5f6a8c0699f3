import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookDefinition } from '../../../src/core/config/hookTypes';
import { createHarness } from '../../../src/core/McpHarness';
import { harnessRig as rig } from '../../support/memoryHarness';

describe('McpHarness', () => {
  it('starts the configured servers and exposes their tools under one registry, server by server', async () => {
    const { harness, logs } = rig({ alpha: { command: 'alpha' }, beta: { command: 'beta' } }, { alpha: { tools: { read: 'alpha data' } }, beta: {} });
    let changes = 0;
    harness.onDidChange(() => changes++);
    await harness.start();
    await harness.start();
    expect(harness.servers().map((s) => [s.name, s.state, s.transport, s.serverInfo?.name, s.origin.file])).toEqual([
      ['alpha', 'running', 'stdio', 'alpha', 'settings.json'],
      ['beta', 'running', 'stdio', 'beta', 'settings.json'],
    ]);
    expect(harness.tools().map((t) => t.name)).toEqual(['mcp__alpha__echo', 'mcp__alpha__read', 'mcp__beta__echo']);
    expect(harness.tool('mcp__alpha__read')).toMatchObject({ server: 'alpha', originalName: 'read' });
    expect(changes).toBeGreaterThan(0);
    expect(await harness.callTool('mcp__alpha__read')).toEqual({ isError: false, text: 'alpha data', content: [{ type: 'text', text: 'alpha data' }] });
    const calls = logs.filter((l) => l.server === 'alpha' && l.message.startsWith('call read'));
    expect(calls.map((l) => l.message.replace(/\(\w+\)/, '(id)').replace(/\d+ ms/, 'N ms'))).toEqual(['call read (id)', 'call read (id) done after N ms']);
    expect(harness.searchTools('alpha data read', { limit: 1 }).map((t) => t.name)).toEqual(['mcp__alpha__read']);
  });

  it('answers an unknown tool, bad arguments and a stopped server as results, never as a throw', async () => {
    const { harness, logs } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    expect(await harness.callTool('mcp__alpha__nope')).toMatchObject({ isError: true, errorKind: 'unknown_tool' });
    expect(await harness.callTool('mcp__alpha__echo', { text: 3 })).toMatchObject({ isError: true, errorKind: 'invalid_arguments' });
    await harness.stopServer('alpha');
    expect(harness.tools()).toEqual([]);
    expect(await harness.callTool('mcp__alpha__echo', { text: 'x' })).toMatchObject({ isError: true, errorKind: 'unavailable' });
    await harness.startServer('alpha');
    const outcome = await harness.call({ name: 'mcp__alpha__echo', arguments: { text: 'back' } });
    expect(outcome).toMatchObject({ state: 'done', text: 'back', tool: { server: 'alpha', originalName: 'echo' } });
    await harness.restartServer('alpha');
    // Starting it again after a stop counts as a restart, as does the restart itself.
    expect(harness.servers()[0].restartCount).toBe(2);
    await harness.whenSettled();
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.message.replace(/\(\w+\)/, '(id)'))).toEqual([
      expect.stringMatching(/^call echo \(id\) failed: .*text/),
    ]);
  });

  it('logs a denied call with its state and why', async () => {
    const { harness, logs } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    const outcome = await harness.call({ name: 'mcp__alpha__echo', arguments: { text: 'x' } }, { decider: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'test' }, reason: 'not now' }) } });
    expect(outcome.state).toBe('denied');
    const denied = logs.find((l) => l.message.includes('denied'));
    expect(denied?.message).toMatch(/^call echo \(\w{8}\) denied: .*not now/);
  });

  it('reads resources, gets prompts, completes arguments and tells of updates to a subscribed resource', async () => {
    const { harness, last } = rig({ docs: { command: 'docs' } }, { docs: { content: true } });
    await harness.start();
    expect(await harness.readResource('docs', 'note://readme')).toMatchObject({ contents: [{ text: 'readme of docs' }] });
    expect(await harness.getPrompt('docs', 'greet', { name: 'Ada' })).toMatchObject({ messages: [{ content: { text: 'Hello, Ada' } }] });
    expect(await harness.complete('docs', { type: 'ref/resource', uri: 'note://{id}' }, { name: 'id', value: 'b' })).toMatchObject({ values: ['beta'] });
    const holder = {};
    const updates: string[] = [];
    harness.onDidUpdateResource((u) => updates.push(`${u.server} ${u.uri}`));
    await harness.subscribeResource('docs', 'note://readme', holder);
    await last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' });
    await expect.poll(() => updates).toEqual(['docs note://readme']);
    await harness.unsubscribeResource('docs', 'note://readme', holder);
    expect(last('docs').calls).toEqual(['subscribe note://readme', 'unsubscribe note://readme']);
    harness.dropSubscriptions(holder);
  });

  it('applies a new configuration as a diff and reports broken entries without stopping the rest', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' } }, { alpha: {}, beta: {} });
    await harness.start();
    const result = await harness.applyConfig({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { alpha: { command: 'alpha' }, beta: { command: 'beta' }, broken: { command: 42 } } } });
    expect(result).toMatchObject({ added: ['beta', 'broken'], removed: [], restarted: [], unchanged: ['alpha'] });
    expect(harness.configErrors()).toEqual([{ file: 'settings.json', jsonPath: 'mcpHarness.servers.broken.command', message: 'expected string, got number', server: 'broken' }]);
    expect(result.configErrors).toEqual(harness.configErrors());
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['alpha', 'running'],
      ['beta', 'running'],
      ['broken', 'error'],
    ]);
    expect(harness.servers()[2].error).toMatch(/command/);
    const removed = await harness.applyConfig({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { beta: { command: 'beta' } } } });
    expect(removed.removed).toEqual(['alpha', 'broken']);
    expect(harness.tools().map((t) => t.name)).toEqual(['mcp__beta__echo']);
  });

  it('leaves servers stopped without autoStart, and restarts a failed one on an explicit reload', async () => {
    const specs: Record<string, object> = {};
    const { harness, started } = rig({ flaky: { command: 'flaky' } }, specs, { autoStart: false });
    await harness.start();
    expect(harness.servers()[0].state).toBe('stopped');
    await harness.startServer('flaky');
    expect(harness.servers()[0]).toMatchObject({ state: 'error', error: 'spawn flaky ENOENT' });
    specs.flaky = {};
    await harness.applyConfig({}, { restartFailed: true });
    expect(harness.servers()[0].state).toBe('error');
    await harness.applyConfig({ toolTimeoutMs: 5000 });
    await harness.startServer('flaky');
    expect(harness.servers()[0].state).toBe('running');
    expect(started).toHaveLength(1);
  });

  it('keeps servers outside the policy blocked, and follows a policy change', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' }, beta: { command: 'beta' } }, { alpha: {}, beta: {} }, {
      serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command: 'alpha' }] } } as never,
    });
    await harness.start();
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['alpha', 'running'],
      ['beta', 'blocked'],
    ]);
    await harness.applyConfig({ serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command: 'beta' }] } } as never });
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['alpha', 'blocked'],
      ['beta', 'running'],
    ]);
  });

  it('never starts a sandboxed stdio server it cannot sandbox, and says why', async () => {
    // From source there is no built sandbox launcher: the server must stay down, not run unsandboxed.
    const { harness, started } = rig({ boxed: { command: 'alpha', sandbox: true } }, { alpha: {} });
    await harness.start();
    expect(harness.servers()[0].error).toMatch(/^"sandbox" is set and .+; the server is not started \(it never runs unsandboxed\)$/);
    expect(started).toEqual([]);
  });

  it('masks what a server resolved from the environment in everything it hands out', async () => {
    const { harness, launches } = rig({ alpha: { command: 'alpha', env: { TOKEN: '${env:ALPHA_TOKEN}' } } }, { alpha: { tools: { leak: (a) => `token ${String(a.t)}` } } }, { env: { ALPHA_TOKEN: 'tok-123456789' } });
    await harness.start();
    expect(launches[0].env.TOKEN).toBe('tok-123456789');
    expect(harness.maskSecrets('the token is tok-123456789')).not.toContain('tok-123456789');
    // A tool's own answer is its data; a failure quoting the secret is masked.
    expect((await harness.callTool('mcp__alpha__leak', { t: 'tok-123456789' })).text).toBe('token tok-123456789');
    expect(harness.snapshot('alpha')?.state.kind).toBe('running');
    expect(harness.snapshot('nobody')).toBeUndefined();
  });

  it('creates the workspace folder an env variable points into, and warns of one outside it', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-ws-'));
    try {
      const { harness, logs } = rig(
        { alpha: { command: 'alpha', env: { DB: '${workspaceFolder}/.harness/memory/db.json', OUT: `${folder}-outside/x.json` } } },
        { alpha: {} },
        { workspaceFolders: [folder] },
      );
      await harness.start();
      expect(fs.existsSync(path.join(folder, '.harness', 'memory'))).toBe(true);
      const notes = logs.filter((l) => l.server === 'alpha' && /folder|points into/.test(l.message)).map((l) => `${l.level} ${l.message}`);
      expect(notes).toEqual([`info created the folder ${path.join(folder, '.harness', 'memory')} that DB points into`, `warn OUT points into ${folder}-outside, which does not exist; the server may fail to write there`]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
      fs.rmSync(`${folder}-outside`, { recursive: true, force: true });
    }
  });

  it('offers the workspace folders as roots, and tells servers when they change', async () => {
    const a = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-root-'));
    try {
      const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { workspaceFolders: [a] });
      await harness.start();
      const server = last('alpha').server.server;
      expect(await server.listRoots()).toEqual({ roots: [{ uri: `file://${a}`, name: path.basename(a) }] });
      const changed = new Promise<void>((resolve) => server.setNotificationHandler('notifications/roots/list_changed', () => resolve()));
      await harness.applyConfig({ workspaceFolders: [a, os.tmpdir()] });
      await changed;
      expect((await server.listRoots()).roots).toHaveLength(2);
    } finally {
      fs.rmSync(a, { recursive: true, force: true });
    }
  });

  it('sends a server that offers logging the level the host wants, at every new session', async () => {
    const { harness, last, logs } = rig({ alpha: { command: 'alpha' }, quiet: { command: 'quiet' } }, { alpha: { logging: true }, quiet: {} }, { logLevel: (s) => (s === 'alpha' ? 'warning' : 'debug') });
    await harness.start();
    await expect.poll(() => last('alpha').levels).toEqual(['warning']);
    await expect.poll(() => logs.some((l) => l.message === 'asked the server to log from level warning up')).toBe(true);
    await harness.restartServer('alpha');
    await expect.poll(() => last('alpha').levels).toEqual(['warning']);
    harness.applyLogLevel('quiet');
    harness.applyLogLevel('nobody');
  });

  it('lists hooks, runs the host-given ones, and tells when which may run changed', async () => {
    const hook: HookDefinition = { id: 'h', event: 'UserPromptSubmit', matcher: '', command: 'cat >/dev/null; echo remembered', timeoutSec: 10, onError: 'block', origin: { source: 'user', file: 'settings.json', jsonPath: 'hooks' } };
    const { harness } = rig({}, {}, { hooks: { definitions: [hook], permit: () => undefined } });
    await harness.start();
    let changes = 0;
    harness.onDidChangeHooks(() => changes++);
    expect(harness.hooks()).toEqual([{ hook }]);
    harness.refreshHooks();
    expect(changes).toBe(1);
    const verdict = await harness.chatHooks.userPromptSubmit({ conversationId: 'c', prompt: 'hi' });
    expect(verdict.notes.map((n) => n.text)).toEqual(['remembered']);
  });

  it('calls a built-in tool it was given, until its registration is disposed', async () => {
    const { harness } = rig({}, {});
    await harness.start();
    const registration = harness.registerBuiltin({ name: 'clock', description: 'Tells the time', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: 'noon', content: [{ type: 'text', text: 'noon' }] }) });
    expect(await harness.callTool('clock')).toMatchObject({ text: 'noon' });
    registration.dispose();
    expect(harness.tool('clock')).toBeUndefined();
  });

  it('shows a server that reconnects and one in error with why', async () => {
    const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { reconnectDelaysMs: [60_000] });
    await harness.start();
    await last('alpha').server.close();
    await expect.poll(() => harness.servers()[0].state).toBe('reconnecting');
    expect(harness.servers()[0].error).toBe('the test server went away');
    expect(harness.tools().map((t) => t.name)).toEqual(['mcp__alpha__echo']);
    await harness.stopServer('alpha');
    expect(harness.servers()[0].error).toBeUndefined();
  });

  it('disposes what it started when it cannot start, and once', async () => {
    const harness = await createHarness({ env: {}, userServers: { label: 'settings.json', jsonPath: 'x', entries: {} } });
    expect(harness.servers()).toEqual([]);
    await Promise.all([harness.dispose(), harness.dispose()]);
    await expect(createHarness({ env: {}, configFiles: ['/no/such/dir/mcp.json'], hooks: { files: [7 as never] } })).rejects.toThrow();
  });
});
