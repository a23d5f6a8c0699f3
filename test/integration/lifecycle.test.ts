import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, tempDir, writeJson } from '../support/servers';

describe('configuration applied as a diff, and single-server control', () => {
  const tag = processTag();
  const tmp = tempDir();
  const harnesses: McpHarness[] = [];
  const entry = (flags: string[] = [], extra: Record<string, unknown> = {}) => fixtureEntry(flags, { ...extra, env: { ...tag.env, ...(extra.env as object) } });

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
  afterAll(() => tmp.cleanup());

  function harnessFor(folder: string, options: ConstructorParameters<typeof McpHarness>[0] = {}) {
    const h = new McpHarness({ workspaceFolder: folder, ...options });
    harnesses.push(h);
    return h;
  }

  it('adds, removes, restarts only changed servers, and leaves the rest alone', async () => {
    const ws = path.join(tmp.dir, 'diff');
    writeJson(ws, '.mcp.json', { mcpServers: { a: entry(['--name=a']), b: entry(['--name=b']), c: entry(['--name=c']) } });
    const h = harnessFor(ws);
    await h.start();
    const pids = () => Object.fromEntries(h.snapshots().map((s) => [s.name, s.pid]));
    const before = pids();
    expect(Object.values(before).every((p) => typeof p === 'number')).toBe(true);

    writeJson(ws, '.mcp.json', { mcpServers: { a: entry(['--name=a']), b: entry(['--name=b2']), d: entry(['--name=d']) } });
    const diff = await h.applyConfig();
    expect({ added: diff.added, removed: diff.removed, restarted: diff.restarted, unchanged: diff.unchanged }).toEqual({
      added: ['d'],
      removed: ['c'],
      restarted: ['b'],
      unchanged: ['a'],
    });
    const after = pids();
    expect(after.a).toBe(before.a);
    expect(after.b).not.toBe(before.b);
    expect(after.c).toBeUndefined();
    expect(h.servers().map((s) => s.name)).toEqual(['a', 'b', 'd']);
    expect(h.servers().find((s) => s.name === 'b')!.serverInfo?.name).toBe('b2');
    expect(h.tools().some((t) => t.server === 'c')).toBe(false);
    expect(h.tools().some((t) => t.server === 'd')).toBe(true);
  });

  it('restarts servers in error on an explicit reload, and only then', async () => {
    const ws = path.join(tmp.dir, 'reload');
    writeJson(ws, '.mcp.json', { mcpServers: { broken: entry(['--never-initialize'], { startupTimeoutMs: 500 }), fine: entry() } });
    const h = harnessFor(ws);
    await h.start();
    expect(h.servers()[0].state).toBe('error');
    expect((await h.applyConfig()).unchanged).toEqual(['broken', 'fine']);
    const reload = await h.applyConfig({}, { restartFailed: true });
    expect(reload.restarted).toEqual(['broken']);
    expect(reload.unchanged).toEqual(['fine']);
  });

  it('starts, stops and restarts one server without touching the others', async () => {
    const ws = path.join(tmp.dir, 'single');
    writeJson(ws, '.mcp.json', { mcpServers: { one: entry(), two: entry() } });
    const h = harnessFor(ws);
    await h.start();
    const twoPid = h.snapshots()[1].pid;
    await h.stopServer('one');
    expect(h.servers().map((s) => s.state)).toEqual(['stopped', 'running']);
    expect(h.tools().some((t) => t.server === 'one')).toBe(false);
    const call = await h.callTool('mcp__two__echo', { text: 'still here' });
    expect(call.text).toBe('still here');
    await h.startServer('one');
    expect(h.servers()[0].state).toBe('running');
    await h.restartServer('one');
    expect(h.servers()[0].restartCount).toBe(2);
    expect(h.snapshots()[1].pid).toBe(twoPid);
    await h.startServer('one'); // starting a running server is a no-op
    expect(h.servers()[0].restartCount).toBe(2);
  });

  it('shows broken entries, disabled servers and unset variables per server while the others run', async () => {
    const ws = path.join(tmp.dir, 'mixed');
    writeJson(ws, '.mcp.json', {
      mcpServers: {
        badargs: { command: process.execPath, args: ['x', 1] },
        sock: { type: 'websocket', url: 'ws://127.0.0.1:1' },
        off: entry([], { disabled: true }),
        secret: entry([], { env: { TOKEN: '${MCP_HARNESS_TEST_UNSET_TOKEN}' } }),
        fine: entry(),
      },
    });
    const h = harnessFor(ws, { env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    await h.start();
    const rows = Object.fromEntries(h.servers().map((s) => [s.name, s]));
    expect(rows.badargs).toMatchObject({ state: 'error' });
    expect(rows.badargs.error).toContain('mcpServers.badargs.args[1]: expected string, got number');
    expect(rows.sock.error).toContain('unsupported transport type "websocket"');
    expect(rows.off.state).toBe('disabled');
    expect(rows.secret.state).toBe('error');
    expect(rows.secret.error).toContain('env var MCP_HARNESS_TEST_UNSET_TOKEN is not set');
    expect(rows.fine.state).toBe('running');
    expect(h.configErrors().map((e) => e.jsonPath)).toEqual(expect.arrayContaining(['mcpServers.badargs.args[1]', 'mcpServers.sock.type']));
  });

  it('passes the safe environment plus the config env, or the whole environment when asked', async () => {
    const ws = path.join(tmp.dir, 'env');
    writeJson(ws, '.mcp.json', { mcpServers: { e: entry([], { env: { FROM_CONFIG: 'yes-${HOST_ONLY}' } }) } });
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, HOST_ONLY: 'host' };
    const safe = harnessFor(ws, { env });
    await safe.start();
    expect((await safe.callTool('mcp__e__env', { key: 'FROM_CONFIG' })).text).toBe('yes-host');
    expect((await safe.callTool('mcp__e__env', { key: 'HOST_ONLY' })).text).toBe('(unset)');
    expect((await safe.callTool('mcp__e__env', { key: 'HOME' })).text).toBe(process.env.HOME);
    const whole = harnessFor(ws, { env, inheritEnv: true });
    await whole.start();
    expect((await whole.callTool('mcp__e__env', { key: 'HOST_ONLY' })).text).toBe('host');
  });

  it('repairs a missing PATH from the login shell', async () => {
    const ws = path.join(tmp.dir, 'path');
    // `node` by name, so it is only found through PATH.
    writeJson(ws, '.mcp.json', { mcpServers: { p: { ...entry(), command: 'node' } } });
    const h = harnessFor(ws, { env: { HOME: process.env.HOME, SHELL: '/bin/sh' } });
    await h.start();
    // /bin/sh -l reads /etc/profile, whose PATH includes /usr/local/bin, where node lives here.
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect((await h.callTool('mcp__p__env', { key: 'PATH' })).text).toMatch(/\/usr\/local\/bin|\/usr\/bin/);
  });

  it('starts many servers concurrently: a slow one does not hold up a fast one', async () => {
    const ws = path.join(tmp.dir, 'concurrent');
    writeJson(ws, '.mcp.json', { mcpServers: { slow: entry(['--init-delay-ms=1500']), fast: entry() } });
    const h = harnessFor(ws);
    const running: string[] = [];
    h.onDidChange(() => {
      for (const s of h.servers()) if (s.state === 'running' && !running.includes(s.name)) running.push(s.name);
    });
    await h.start();
    expect(running).toEqual(['fast', 'slow']);
  });

  it('waits for a server that is still starting instead of failing the call', async () => {
    const ws = path.join(tmp.dir, 'wait');
    writeJson(ws, '.mcp.json', { mcpServers: { w: entry(['--init-delay-ms=500']) } });
    const h = harnessFor(ws);
    await h.start();
    await h.stopServer('w');
    const restarting = h.startServer('w');
    const result = await h.callTool('mcp__w__echo', { text: 'waited' }, { timeoutMs: 10_000 });
    expect(result).toMatchObject({ isError: false, text: 'waited' });
    await restarting;
    await h.stopServer('w');
    expect(await h.callTool('mcp__w__echo', { text: 'x' }, { timeoutMs: 1000 })).toMatchObject({ isError: true, errorKind: 'unavailable' });
  });
});
