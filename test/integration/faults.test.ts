import * as fs from 'node:fs';
import * as http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpHarness, type HarnessOptions } from '../../src/core';
import { isProcessAlive } from '../../src/core/process/processGroup';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, minimalServer, tempDir, writeJson } from '../support/servers';

// Fault-injecting fixture servers: each test writes a config, starts a harness, and checks both
// the behaviour and that every process the harness started is gone afterwards.
describe('servers that crash, hang or lie', () => {
  const tag = processTag();
  const tmp = tempDir();
  const harnesses: McpHarness[] = [];
  let configCount = 0;

  async function start(servers: Record<string, Record<string, unknown>>, options: HarnessOptions = {}): Promise<McpHarness> {
    const file = writeJson(tmp.dir, `config-${++configCount}.json`, {
      mcpServers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, { ...v, env: { ...tag.env, ...(v.env as object) } }])),
    });
    const harness = new McpHarness({ configFiles: [file], reconnectDelaysMs: [50, 100, 200], shutdownGraceMs: 500, ...options });
    harnesses.push(harness);
    await harness.start();
    return harness;
  }

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  afterAll(() => tmp.cleanup());

  it('fails a call at once with the reason when the server exits during it, then reconnects', async () => {
    const h = await start({ crashy: fixtureEntry() });
    const events: string[] = [];
    let last = 'running';
    h.onDidChange(() => h.servers().forEach((s) => s.state !== last && events.push((last = s.state))));
    const result = await h.callTool('mcp__crashy__crash', {}, { timeoutMs: 30_000 });
    events.push('call returned');
    // The call fails when the connection drops, not at its 30 s timeout: before the server is back.
    await h.whenSettled();
    expect(events).toEqual(['reconnecting', 'call returned', 'running']);
    expect(result.isError).toBe(true);
    expect(result.errorKind).toBe('connection_closed');
    expect(result.text).toContain('exited with code 3');
    expect(result.text).toContain('fatal: crashing on purpose');
    const [server] = h.servers();
    expect(server.state).toBe('running');
    expect(server.restartCount).toBe(1);
    expect((await h.callTool('mcp__crashy__echo', { text: 'back' })).text).toBe('back');
  });

  it('gives up after three reconnect attempts and keeps the reason and stderr', async () => {
    // Dies 2 s after each start: long enough to initialize, too short to count as stable (30 s).
    const h = await start({ flaky: fixtureEntry(['--exit-after-ms=2000']) });
    expect(h.servers()[0].state).toBe('running');
    // Each attempt starts fine and then dies again: a crash loop, which ends in error.
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`still ${h.servers()[0]?.state} after 40 s`)), 40_000);
      const sub = h.onDidChange(() => {
        if (h.servers()[0]?.state !== 'error') return;
        clearTimeout(timer);
        sub.dispose();
        resolve();
      });
    });
    const [server] = h.servers();
    expect(server.state).toBe('error');
    expect(server.error).toContain('exited with code 7');
    expect(server.error).toContain('gave up after 3 reconnect attempts');
    expect(server.restartCount).toBe(3);
    expect(server.stderrTail.join('\n')).toContain('exiting on schedule');
    expect(h.tools().filter((t) => t.server === 'flaky')).toEqual([]);
  });

  it('skips non-JSON lines on stdout and logs them', async () => {
    const logs: string[] = [];
    const h = new McpHarness({ configFiles: [writeJson(tmp.dir, 'garbage.json', { mcpServers: { noisy: fixtureEntry(['--garbage'], { env: tag.env }) } })] });
    harnesses.push(h);
    h.onDidLog((e) => e.source === 'stdout' && logs.push(e.message));
    await h.start();
    expect(h.servers()[0].state).toBe('running');
    expect((await h.callTool('mcp__noisy__add', { a: 2, b: 3 })).text).toBe('5');
    expect(logs.some((l) => l.includes('this is not JSON'))).toBe(true);
    expect(logs.some((l) => l.includes('not json-rpc'))).toBe(true);
  });

  it('times out a server that never answers initialize without delaying the others', async () => {
    const file = writeJson(tmp.dir, 'silent.json', {
      mcpServers: {
        silent: fixtureEntry(['--never-initialize'], { startupTimeoutMs: 1500, env: tag.env }),
        healthy: fixtureEntry([], { env: tag.env }),
      },
    });
    const h = new McpHarness({ configFiles: [file], shutdownGraceMs: 500 });
    harnesses.push(h);
    const settled: string[] = [];
    h.onDidChange(() => {
      for (const s of h.servers()) if ((s.state === 'running' || s.state === 'error') && !settled.includes(s.name)) settled.push(s.name);
    });
    await h.start();
    // The healthy server ran while the silent one was still inside its startup timeout.
    expect(settled).toEqual(['healthy', 'silent']);
    const [silent, healthy] = h.servers();
    expect(silent.state).toBe('error');
    expect(silent.error).toMatch(/did not finish starting within 1\.5 s|no answer to initialize/);
    expect(healthy.state).toBe('running');
  });

  it('explains an HTTP server that wants credentials', async () => {
    const server = http.createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('no token'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as { port: number };
      const h = await start({ locked: { url: `http://127.0.0.1:${port}/mcp` } });
      const [locked] = h.servers();
      expect(locked.state).toBe('error');
      expect(locked.error).toContain('the server refused the connection (HTTP 401): it needs credentials');
      expect(locked.transport).toBe('http'); // 401 is not a reason to try the legacy transport
      const sent = await start({ locked: { url: `http://127.0.0.1:${port}/mcp`, headers: { authorization: 'Bearer expired' } } });
      expect(sent.servers()[0].error).toContain('the "Authorization" header was sent and rejected');
      expect(sent.servers()[0].error).not.toContain('Add an "Authorization" header');
    } finally {
      server.close();
    }
  });

  it('reports a command that does not exist, and a bad working directory, per server', async () => {
    const h = await start({
      missing: { command: 'definitely-not-a-command-xyz', args: [] },
      badcwd: fixtureEntry([], { cwd: '/no/such/dir' }),
      ok: fixtureEntry(),
    });
    const byName = Object.fromEntries(h.servers().map((s) => [s.name, s]));
    expect(byName.missing.state).toBe('error');
    expect(byName.missing.error).toContain('command not found: "definitely-not-a-command-xyz"');
    expect(byName.badcwd.error).toContain('working directory does not exist: /no/such/dir');
    expect(byName.ok.state).toBe('running');
  });

  it('resets the timeout on progress and reports progress', async () => {
    const h = await start({ slow: fixtureEntry() });
    const progress: number[] = [];
    // 6 steps of 300 ms = 1.8 s in all, with a 1 s timeout: only progress keeps it alive.
    const result = await h.callTool('mcp__slow__slow', { steps: 6, stepMs: 300 }, { timeoutMs: 1000, onProgress: (p) => progress.push(p.progress) });
    expect(result).toMatchObject({ isError: false, text: 'done after 6 steps' });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('resets the timeout on progress also when the caller does not listen for progress', async () => {
    const h = await start({ slow: fixtureEntry() });
    const result = await h.call({ name: 'mcp__slow__slow', arguments: { steps: 6, stepMs: 300 } }, { timeoutMs: 1000 });
    expect(result).toMatchObject({ state: 'done', isError: false, text: 'done after 6 steps' });
    // The same call through callTool, with no listener of any kind.
    expect(await h.callTool('mcp__slow__slow', { steps: 6, stepMs: 300 }, { timeoutMs: 1000 })).toMatchObject({ isError: false, text: 'done after 6 steps' });
  });

  it('times out a call without progress, and cancels through the signal', async () => {
    const logs: string[] = [];
    const h = await start({ stuck: fixtureEntry() });
    h.onDidLog((e) => logs.push(e.message));
    const timedOut = await h.callTool('mcp__stuck__hang', {}, { timeoutMs: 300 });
    expect(timedOut).toMatchObject({ isError: true, errorKind: 'timeout' });
    expect(timedOut.text).toContain('no answer within 0.3 s');

    const controller = new AbortController();
    const pending = h.callTool('mcp__stuck__hang', {}, { signal: controller.signal, timeoutMs: 30_000 });
    setTimeout(() => controller.abort(), 200);
    expect(await pending).toMatchObject({ isError: true, errorKind: 'cancelled' });
    // The server heard notifications/cancelled (it logs the cancellation on stderr).
    for (let i = 0; i < 40 && !logs.some((l) => l.includes('was cancelled by the client')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(logs.filter((l) => l.includes('was cancelled by the client'))).toHaveLength(1);
    expect(h.servers()[0].state).toBe('running');
  });

  it('caps a 5 MB result at the configured maxOutputChars and says how much was cut', async () => {
    const h = await start({ big: fixtureEntry() }, { maxOutputChars: 2_000 });
    const result = await h.callTool('mcp__big__big', { bytes: 5 * 1024 * 1024 });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(`${'x'.repeat(2_000)}\n…[output truncated: 5,240,880 of 5,242,880 characters omitted]`);
  });

  it('closes stdin first, and sends SIGTERM only to a server still running after the grace time', async () => {
    const log = `${tmp.dir}/shutdown-${Date.now()}.log`;
    const h = await start({ polite: fixtureEntry([`--shutdown-log=${log}`]) });
    expect(h.servers()[0].state).toBe('running');
    await h.stopServer('polite');
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toEqual(['stdin-eof', 'sigterm']);
  });

  it('ends only the connection whose server sends a message over maxMessageBytes, naming the limit', async () => {
    const h = await start({ big: fixtureEntry(), other: fixtureEntry() }, { maxMessageBytes: 64 * 1024, reconnectDelaysMs: [] });
    expect((await h.callTool('mcp__big__big', { bytes: 60_000 })).isError).toBe(false);
    const result = await h.callTool('mcp__big__big', { bytes: 70_000 });
    expect(result).toMatchObject({ isError: true, errorKind: 'connection_closed' });
    expect(result.text).toContain('larger than maxMessageBytes (65536 bytes)');
    await h.whenSettled();
    const [big, other] = h.servers();
    expect(big.state).toBe('error');
    expect(big.error).toContain('larger than maxMessageBytes (65536 bytes)');
    expect(other.state).toBe('running');
    expect((await h.callTool('mcp__other__big', { bytes: 60_000 })).isError).toBe(false);
  });

  it('follows tools/list_changed from the server', async () => {
    const h = await start({ dyn: fixtureEntry() });
    const changed = new Promise<void>((resolve) => {
      const sub = h.onDidChange(() => {
        if (h.tools().some((t) => t.name === 'mcp__dyn__fresh')) {
          sub.dispose();
          resolve();
        }
      });
    });
    await h.callTool('mcp__dyn__add_tool', { name: 'fresh' });
    await changed;
    expect((await h.callTool('mcp__dyn__fresh', {})).text).toBe('called fresh');
    await h.callTool('mcp__dyn__remove_tool', { name: 'fresh' });
    for (let i = 0; i < 40 && h.tools().some((t) => t.name === 'mcp__dyn__fresh'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(h.tools().some((t) => t.name === 'mcp__dyn__fresh')).toBe(false);
  });

  it('lists every page of tools', async () => {
    const h = await start({ paged: fixtureEntry(['--tool-count=45', '--page-size=10']) });
    expect(h.servers()[0].tools).toHaveLength(14 + 45);
    // Output validation still works for a tool from the first page after paging.
    expect((await h.callTool('mcp__paged__structured', { n: 4 })).structuredContent).toEqual({ doubled: 8 });
  });

  it('reports a malformed result as a protocol error and keeps the connection', async () => {
    const warnings: string[] = [];
    const file = writeJson(tmp.dir, 'liar.json', { mcpServers: { liar: { command: process.execPath, args: [minimalServer, '--lie'], env: tag.env } } });
    const h = new McpHarness({ configFiles: [file] });
    harnesses.push(h);
    h.onDidLog((e) => e.level === 'warn' && warnings.push(e.message));
    await h.start();
    // The two malformed tools in its list are skipped; the server still runs with the good ones.
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    expect(h.tools().map((t) => t.originalName)).toEqual(['echo', 'malformed']);
    expect(warnings.filter((w) => w.startsWith('tools/list: skipped an entry'))).toHaveLength(2);
    const result = await h.callTool('mcp__liar__malformed', {});
    expect(result).toMatchObject({ isError: true, errorKind: 'protocol' });
    expect(result.text).toContain('not a valid tool result');
    expect((await h.callTool('mcp__liar__echo', { text: 'still fine' })).text).toBe('still fine');
  });

  it('checks structured output against the output schema', async () => {
    const h = await start({ s: fixtureEntry() });
    const bad = await h.callTool('mcp__s__bad_structured', {});
    expect(bad).toMatchObject({ isError: true, errorKind: 'protocol' });
    expect(bad.text).toContain('does not match its output schema');
  });

  it('ends a server that ignores stdin and SIGTERM, and its grandchild, on dispose', async () => {
    const h = await start({ stubborn: fixtureEntry(['--ignore-sigterm', '--grandchild']) });
    const [server] = h.servers();
    expect(server.state).toBe('running');
    const grandchild = Number((await h.callTool('mcp__stubborn__spawn_grandchild', {})).text);
    expect(isProcessAlive(grandchild)).toBe(true);
    await h.dispose();
    // dispose() resolves only once the whole group is gone: no waiting needed here.
    expect(isProcessAlive(grandchild) && !isZombie(grandchild)).toBe(false);
    expect(tag.alive()).toEqual([]);
  });

  it('ends descendants that left the process group (detached) on dispose', async () => {
    const h = await start({ escaper: fixtureEntry(['--detached-grandchild']) });
    expect(h.servers()[0].state).toBe('running');
    const second = Number((await h.callTool('mcp__escaper__spawn_grandchild', { detached: true })).text);
    // The server, the one started with it and the one started by the call, each tagged.
    expect(tag.alive()).toHaveLength(3);
    expect(tag.alive()).toContain(second);
    await h.dispose();
    expect(tag.alive()).toEqual([]);
  });

  it('kills the grandchildren of a server that crashed', async () => {
    const h = await start({ parent: fixtureEntry() });
    const pid = Number((await h.callTool('mcp__parent__spawn_grandchild', {})).text);
    expect(isProcessAlive(pid)).toBe(true);
    await h.callTool('mcp__parent__crash', {});
    expect(await waitForNoProcesses(() => (isProcessAlive(pid) && !isZombie(pid) ? [pid] : []), 10_000)).toEqual([]);
  });
});

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}
