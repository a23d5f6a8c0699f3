import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { describeState, McpHarness, type HarnessOptions, type IMcpClock, type McpConnectionState } from '../../src/core';
import { systemClock } from '../../src/core/mcp/McpConnection';
import { waitForHarness } from '../support/events';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureServer, freeFixedPort, startProcess, tempDir, writeJson } from '../support/servers';

type Reconnecting = Extract<McpConnectionState, { kind: 'reconnecting' }>;

// Remote servers come and go: a real HTTP (or SSE) fixture server on 127.0.0.1 is killed, stays
// down for longer than the whole reconnect schedule, and comes back on the same port.
describe('reconnecting to remote servers that go away', () => {
  const tag = processTag();
  const tmp = tempDir();
  const harnesses: McpHarness[] = [];
  const servers: Array<{ stop: () => Promise<void> }> = [];
  let configCount = 0;

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
  afterAll(() => tmp.cleanup());

  async function serve(kind: 'http' | 'sse', port: number) {
    const server = await startProcess(process.execPath, [fixtureServer, `--${kind}=${port}`], { env: tag.env, ready: /listening \d+/ });
    servers.push(server);
    return server;
  }

  /** A system clock that records every wait it is asked for. */
  function recordingClock(): { clock: IMcpClock; waits: number[] } {
    const waits: number[] = [];
    return { waits, clock: { now: systemClock.now, sleep: (ms, signal) => (waits.push(ms), systemClock.sleep(ms, signal)) } };
  }

  async function harnessFor(entry: Record<string, unknown>, options: HarnessOptions = {}) {
    const file = writeJson(tmp.dir, `config-${++configCount}.json`, { mcpServers: { remote: entry } });
    const h = new McpHarness({ configFiles: [file], shutdownGraceMs: 500, ...options });
    harnesses.push(h);
    await h.start();
    expect(h.servers()[0]).toMatchObject({ state: 'running' });
    return h;
  }

  const reconnecting = (h: McpHarness) => {
    const state = h.snapshots()[0]?.state;
    return state?.kind === 'reconnecting' ? state : undefined;
  };

  it.each(['http', 'sse'] as const)('keeps retrying a %s server with capped backoff, then reconnects when it is back', async (kind) => {
    const port = await freeFixedPort();
    const first = await serve(kind, port);
    const { clock, waits } = recordingClock();
    const url = kind === 'http' ? `http://127.0.0.1:${port}/mcp` : `http://127.0.0.1:${port}/sse`;
    const h = await harnessFor({ type: kind, url }, { reconnectDelaysMs: [50, 100, 200], reconnectMaxDelayMs: 400, clock });
    const states: string[] = [];
    h.onDidChange(() => h.servers().forEach((s) => states.push(s.state)));

    const logs: string[] = [];
    h.onDidLog((e) => e.source === 'harness' && logs.push(e.message));
    await first.stop();
    // The drop is noticed without any call: the stream broke and the liveness ping went unanswered.
    const firstDrop = await waitForHarness(h, () => reconnecting(h), 'reconnecting');
    expect(firstDrop).toMatchObject({ attempt: 1, reason: expect.stringContaining('the server stopped answering') });
    expect(logs.find((l) => l.startsWith('connection lost: '))).toContain('the server stopped answering');
    // Attempts go on well past the three of the schedule.
    const sixth = await waitForHarness(h, () => { const s = reconnecting(h); return s && s.attempt >= 6 && s.nextAttemptAt !== undefined ? s : undefined; }, 'on attempt 6');
    expect(sixth.maxAttempts).toBeUndefined();
    expect(waits.slice(0, 6)).toEqual([50, 100, 200, 400, 400, 400]);
    expect(describeState(sixth, sixth.nextAttemptAt! - 1500)).toMatch(/^reconnecting, next try in 2 s \(attempt 6\): /);
    expect(states).not.toContain('error');

    await serve(kind, port);
    await waitForHarness(h, () => h.servers()[0].state === 'running', 'running again');
    expect((await h.callTool('mcp__remote__echo', { text: 'back' })).text).toBe('back');
    expect(h.servers()[0].restartCount).toBeGreaterThanOrEqual(6);
  });

  it('answers calls while the server is down with errorKind unavailable every time, and a call tries again at once', async () => {
    const port = await freeFixedPort();
    const first = await serve('http', port);
    // The next scheduled attempt is an hour away: only the calls and the reload below can bring it back.
    const h = await harnessFor({ type: 'http', url: `http://127.0.0.1:${port}/mcp` }, { reconnectDelaysMs: [50, 3_600_000] });
    await first.stop();
    await waitForHarness(h, () => (reconnecting(h)?.attempt ?? 0) >= 2 && reconnecting(h)?.nextAttemptAt !== undefined, 'waiting for attempt 2');
    const attemptBefore = reconnecting(h)!.attempt;

    for (let i = 0; i < 3; i++) {
      const result = await h.callTool('mcp__remote__echo', { text: 'x' });
      expect(result).toMatchObject({ isError: true, errorKind: 'unavailable' });
      expect(result.text).toMatch(/^server "remote" is not running \(reconnecting, next try in \d+ s \(attempt \d+\): .+\)$/);
    }
    // Each call made an attempt of its own.
    expect(reconnecting(h)!.attempt).toBe(attemptBefore + 3);
    // A truly unknown name is still a typo.
    expect((await h.callTool('mcp__nobody__echo', {})).errorKind).toBe('unknown_tool');

    await serve('http', port);
    const result = await h.callTool('mcp__remote__echo', { text: 'back at once' });
    expect(result).toMatchObject({ isError: false, text: 'back at once' });
    expect(h.servers()[0].state).toBe('running');
  });

  it.each(['startServer', 'applyConfig'] as const)('%s makes an attempt at once', async (how) => {
    const port = await freeFixedPort();
    const first = await serve('http', port);
    const h = await harnessFor({ type: 'http', url: `http://127.0.0.1:${port}/mcp` }, { reconnectDelaysMs: [3_600_000] });
    await first.stop();
    const waiting = await waitForHarness(h, () => reconnecting(h), 'reconnecting');
    expect(waiting.nextAttemptAt).toBeDefined();
    await serve('http', port);
    if (how === 'startServer') await h.startServer('remote');
    else await h.applyConfig();
    const [server] = h.servers();
    expect({ state: server.state, error: server.error }).toEqual({ state: 'running', error: undefined });
  });

  /** A harness over one stdio fixture, which the test crashes through its `crash` tool. */
  async function crashable(options: HarnessOptions) {
    const blocker = path.join(tmp.dir, `loop-${++configCount}.blocked`);
    const file = writeJson(tmp.dir, `loop-${configCount}.json`, {
      mcpServers: { loop: { command: process.execPath, args: [fixtureServer, `--fail-if-exists=${blocker}`], env: tag.env } },
    });
    const h = new McpHarness({ configFiles: [file], shutdownGraceMs: 500, ...options });
    harnesses.push(h);
    const states: string[] = [];
    h.onDidChange(() => h.servers().forEach((s) => states.push(s.state)));
    await h.start();
    expect(h.servers()[0].state).toBe('running');
    /** Crashes the server and resolves once it is running again or in error. */
    const crash = async () => {
      const restarts = h.servers()[0].restartCount;
      expect((await h.callTool('mcp__loop__crash', {})).errorKind).toBe('connection_closed');
      await waitForHarness(h, (s = h.servers()[0]) => s.state === 'error' || (s.state === 'running' && s.restartCount > restarts), 'back or in error');
    };
    /** From now on the server cannot start again (it exits at once). */
    const block = () => fs.writeFileSync(blocker, '');
    return { h, states, crash, block };
  }

  it('gives a stdio server that stayed up long enough its reconnect attempts back', async () => {
    // Each reading of this clock is an hour after the last: every session looks long and stable.
    let t = 0;
    const clock: IMcpClock = { now: () => (t += 3_600_000), sleep: systemClock.sleep };
    const { h, states, crash } = await crashable({ reconnectDelaysMs: [20], reconnectStableAfterMs: 60_000, clock });
    // One attempt per drop: coming back three times needs the attempt given back each time.
    for (let i = 0; i < 3; i++) await crash();
    expect(states).not.toContain('error');
    expect(h.servers()[0]).toMatchObject({ state: 'running', restartCount: 3 });
  });

  it('stops reconnecting a stdio server that keeps dying before it counts as stable', async () => {
    const clock: IMcpClock = { now: () => 0, sleep: systemClock.sleep }; // no time ever passes: never stable
    const { h, crash } = await crashable({ reconnectDelaysMs: [20], reconnectStableAfterMs: 60_000, clock });
    await crash();
    expect(h.servers()[0]).toMatchObject({ state: 'running', restartCount: 1 });
    await crash();
    expect(h.servers()[0]).toMatchObject({ state: 'error', restartCount: 1 });
    expect(h.servers()[0].error).toContain('gave up after 1 reconnect attempt');
  });

  it('waits the scheduled time before each stdio reconnect attempt', async () => {
    const { clock, waits } = recordingClock();
    const { h, crash, block } = await crashable({ reconnectDelaysMs: [30, 60, 90], clock });
    // Every attempt fails at once: the server refuses to start again.
    block();
    await crash();
    expect(h.servers()[0].state).toBe('error');
    expect(waits).toEqual([30, 60, 90]);
    expect(h.servers()[0].error).toContain('gave up after 3 reconnect attempts');
  });

  it('gives a stdio server only its schedule: a crashing process is not transient', async () => {
    const blocker = path.join(tmp.dir, 'stdio.blocked');
    const file = writeJson(tmp.dir, 'stdio.json', {
      mcpServers: { local: { command: process.execPath, args: [fixtureServer, `--fail-if-exists=${blocker}`], env: tag.env } },
    });
    const h = new McpHarness({ configFiles: [file], reconnectDelaysMs: [20, 20], shutdownGraceMs: 500 });
    harnesses.push(h);
    await h.start();
    const seen: Reconnecting[] = [];
    h.onDidChange(() => { const s = reconnecting(h); if (s) seen.push(s); });
    // Every restart fails: the server refuses to start again.
    fs.writeFileSync(blocker, '');
    await h.callTool('mcp__local__crash', {});
    await waitForHarness(h, () => h.servers()[0].state === 'error', 'in error');
    expect(seen.map((s) => [s.attempt, s.maxAttempts])).toEqual(expect.arrayContaining([[1, 2], [2, 2]]));
    expect(h.servers()[0].error).toContain('gave up after 2 reconnect attempts');
  });
});
