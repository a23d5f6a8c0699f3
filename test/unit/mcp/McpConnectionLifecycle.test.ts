import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { McpAuthRequiredError, type IMcpConnectAuth, type IMcpServerAuth, type McpConnectAuthOptions } from '../../../src/core/auth/types';
import { McpConnection, type McpConnectionOptions, type McpTransportLogSink } from '../../../src/core/mcp/McpConnection';
import { definition, launchOf } from '../../support/definitions';
import { linkedTo, TestTransportFactory } from '../../support/memoryTransports';
import { connectionRig, disposeConnections, trackConnection, until, type ConnectionRig } from './McpConnectionRig';

function server(name = 'mem-server'): McpServer {
  const s = new McpServer({ name, version: '3.1.0' }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true } }, instructions: 'Use echo.' });
  s.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerResource('readme', 'mem://readme', {}, () => ({ contents: [{ uri: 'mem://readme', text: 'r' }] }));
  s.registerResource('item', new ResourceTemplate('mem://items/{id}', { list: undefined }), {}, (uri) => ({ contents: [{ uri: uri.href, text: 'i' }] }));
  s.registerPrompt('hello', { description: 'Hello' }, () => ({ messages: [] }));
  return s;
}

afterEach(disposeConnections);

/** A connection rig whose transports each reach a fresh {@link server}, kept in `servers`. */
interface Rig extends ConnectionRig {
  readonly servers: McpServer[];
}

function rig(entry: Parameters<typeof connectionRig>[0], extra: Partial<McpConnectionOptions> = {}, onTransport?: (sink: McpTransportLogSink) => void): Rig {
  const servers: McpServer[] = [];
  const peer = () => {
    const s = server();
    servers.push(s);
    return linkedTo(s);
  };
  const options = { clockStart: 5_000_000, pid: 777, endReason: 'the server process exited with code 1', ...(onTransport ? { onTransport } : {}) };
  return { ...connectionRig(entry, extra, peer, options), servers };
}

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 5000 };
const listCounts = (c: McpConnection) => [c.snapshot.tools.length, c.snapshot.resources.length, c.snapshot.resourceTemplates.length, c.snapshot.prompts.length];
const lastTransport = (r: Rig) => r.factories.at(-1)!.created.at(-1)!;

describe('McpConnection snapshot', () => {
  it('publishes what the running server told it, and forgets it on stop', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    expect(r.connection.snapshot).toMatchObject({
      name: 'mem',
      state: { kind: 'running' },
      transport: 'stdio',
      serverInfo: { name: 'mem-server', version: '3.1.0' },
      protocolVersion: '2025-11-25',
      instructions: 'Use echo.',
      capabilities: { tools: { listChanged: true } },
      startedAt: r.clock.time,
      pid: 777,
      restartCount: 0,
    });
    expect(r.states.map((s) => s.kind)).toEqual(['starting', 'running']);
    expect(r.logs.filter((l) => l.message.startsWith('connected')).map((l) => l.message)).toEqual(['connected over stdio: mem-server 3.1.0, protocol 2025-11-25, 1 tools']);
    expect(r.logs[0]).toMatchObject({ server: 'mem', level: 'info' });
    expect(listCounts(r.connection)).toEqual([1, 1, 1, 1]);
    await r.connection.stop();
    expect(r.connection.snapshot).toMatchObject({ state: { kind: 'stopped' }, tools: [], pid: undefined, startedAt: undefined });
    expect(listCounts(r.connection)).toEqual([0, 0, 0, 0]);
  });

  it('shows a new definition at once, and uses it at the next start', async () => {
    const r = rig({ command: 'node' });
    const changed = { ...r.connection.definition, args: ['--v2'] };
    r.connection.setDefinition(changed);
    expect(r.connection.snapshot.definition).toBe(changed);
    expect(r.connection.definition).toBe(changed);
  });

  it('publishes a changed tool list, and passes resource updates on', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    const updated: string[] = [];
    r.connection.onDidUpdateResource((uri) => updated.push(uri));
    r.servers[0].registerTool('more', { description: 'more' }, () => ({ content: [] }));
    await expect.poll(() => r.connection.snapshot.tools.map((t) => t.name)).toEqual(['echo', 'more']);
    await r.servers[0].server.sendResourceUpdated({ uri: 'mem://x' });
    await expect.poll(() => updated).toEqual(['mem://x']);
  });

  it('keeps the stderr lines of its server, and shows the last ones in the snapshot at the next change', async () => {
    const r = rig({ command: 'node' }, {}, (sink) => {
      sink.onStderrLine('booting');
      sink.onStdoutNoise('Loading...');
    });
    await r.connection.start();
    expect(r.connection.stderrTail()).toEqual(['booting']);
    expect(r.connection.snapshot.stderrTail).toEqual(['booting']);
    expect(r.logs.find((l) => l.source === 'stdout')).toMatchObject({ level: 'warn', message: 'skipped a stdout line that is not JSON-RPC: Loading...' });
    expect(r.logs.find((l) => l.source === 'stderr')).toMatchObject({ level: 'info', message: 'booting' });
  });

  it('publishes nothing when nothing changed', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    const count = r.states.length;
    r.connection.setDefinition(r.connection.definition);
    await r.connection.start();
    expect(r.states).toHaveLength(count);
  });
});

describe('McpConnection starts', () => {
  it('refuses a server outside the policy without asking anyone to approve it', async () => {
    const asked: string[] = [];
    const r = rig({ command: 'node' }, { checkPolicy: () => 'not on the allow list', checkStart: async (d) => void asked.push(d.name) });
    await r.connection.start();
    expect(r.connection.state).toEqual({ kind: 'blocked', reason: 'not on the allow list', policy: true });
    expect(asked).toEqual([]);
  });

  it('says a start failed when its launch cannot be resolved, naming why', async () => {
    const r = rig({ command: 'node' }, { resolveLaunch: async () => ({ ok: false, error: 'variable ${input:key} has no value' }) });
    await r.connection.start();
    expect(r.connection.snapshot).toMatchObject({ state: { kind: 'error', message: 'variable ${input:key} has no value' }, lastError: 'variable ${input:key} has no value' });
    expect(r.logs.at(-1)).toMatchObject({ level: 'error', message: 'variable ${input:key} has no value' });
  });

  it('gives up a start that takes longer than its startup time', async () => {
    const r = rig({ command: 'node', startupTimeoutMs: 50 });
    r.hold();
    await r.connection.start();
    expect(r.connection.state).toEqual({ kind: 'error', message: 'did not finish starting within 0.1 s' });
  });

  it('abandons a start when stopped meanwhile, and waits for it to let go', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const starting = r.connection.start();
    await until(r.connection, (s) => s.kind === 'starting');
    const stopping = r.connection.stop();
    release();
    await Promise.all([starting, stopping]);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });

  it('drops a check that answers after a stop', async () => {
    let answer!: (v: string | undefined) => void;
    const r = rig({ command: 'node' }, { checkStart: () => new Promise((resolve) => (answer = resolve)) });
    const starting = r.connection.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await r.connection.stop();
    answer(undefined);
    await starting;
    expect(r.connection.state).toEqual({ kind: 'stopped' });
    expect(r.factories).toHaveLength(0);
  });

  it('lets a call wait for a server that is starting', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const starting = r.connection.start();
    const result = r.connection.callTool('echo', { text: 'waited' }, call);
    setTimeout(release, 30);
    expect(await result).toMatchObject({ content: [{ text: 'waited' }] });
    await starting;
  });

  it('tells a waiting call when its time ran out, or that it was cancelled', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    void r.connection.start();
    await expect(r.connection.callTool('echo', { text: 'x' }, { timeoutMs: 40, maxTotalTimeoutMs: 40 })).rejects.toMatchObject({
      kind: 'timeout',
      message: 'server "mem" did not become ready within 0.0 s',
    });
    const controller = new AbortController();
    const cancelled = r.connection.request({ method: 'resources/list' }, { ...call, signal: controller.signal });
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ kind: 'cancelled', message: 'the call was cancelled' });
    release();
  });

  it('reads resources and skills of a running server', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    expect(await r.connection.request({ method: 'resources/list' }, call)).toMatchObject({ resources: [{ uri: 'mem://readme' }] });
    expect(await r.connection.skills(call)).toBe(await r.connection.skills(call));
  });
});

describe('McpConnection after a drop', () => {
  it('gives a server that stayed up a while its attempts back', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [1000], stableAfterMs: 60_000 });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    r.setDown(false);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    expect(r.connection.snapshot.restartCount).toBe(1);
    // Up for a minute: the next drop starts over at attempt 1 of 1.
    r.clock.time += 60_000;
    await lastTransport(r).close();
    expect(await until(r.connection, (s) => s.kind === 'reconnecting')).toMatchObject({ attempt: 1, maxAttempts: 1 });
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    // Dropping again at once is a crash loop: no attempt left.
    await lastTransport(r).close();
    expect(await until(r.connection, (s) => s.kind === 'error')).toEqual({ kind: 'error', message: 'the server process exited with code 1; gave up after 1 reconnect attempt' });
  });

  it('says why a call cannot reach a stdio server that waits to reconnect', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [5000] });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    await expect(r.connection.callTool('echo', { text: 'x' }, { timeoutMs: 60, maxTotalTimeoutMs: 60 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(r.connection.describeUnavailable()).toBe('server "mem" is not running (reconnecting, next try in 5 s (attempt 1 of 1): the server process exited with code 1)');
  });

  it('answers a call to a remote server that is still down with why, after trying once more', async () => {
    const r = rig({ url: 'http://127.0.0.1:1/mcp' }, { reconnectDelaysMs: [5000] });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
    await expect(r.connection.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringMatching(/^server "mem" is not running \(reconnecting, next try in \d+ s \(attempt 2\): connection refused\)$/),
    });
    expect(r.connection.retriesWithoutLimit).toBe(true);
  });

  it('stops reconnecting when stopped, and start() tries at once while it waits', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [60_000, 60_000] });
    await r.connection.start();
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    await r.connection.start();
    expect(r.connection.state.kind).toBe('running');
    expect(r.clock.waits).toHaveLength(0);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    await r.connection.stop();
    expect(r.connection.state).toEqual({ kind: 'stopped' });
    await r.connection.whenSettled();
    await r.connection.retryNow();
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });
});

describe('McpConnection sign-in', () => {
  const url = 'http://127.0.0.1:1/mcp';

  /** Auth that needs a sign-in until `signIn` runs interactively. */
  class TestAuth implements IMcpServerAuth {
    readonly begun: McpConnectAuthOptions[] = [];
    readonly signedOut: string[] = [];
    signedIn = false;
    appliesTo(): boolean {
      return true;
    }
    async begin(options: McpConnectAuthOptions): Promise<IMcpConnectAuth> {
      this.begun.push(options);
      options.log('auth says hello');
      // A sign-in waits for the user, longer than a server may take to start.
      if (options.interactive) await new Promise((resolve) => setTimeout(resolve, 120));
      if (options.interactive) this.signedIn = true;
      if (!this.signedIn) throw new McpAuthRequiredError('sign-in required: mem asks you to sign in');
      return { provider: undefined, keepsForSession: false, fetch: () => fetch, run: (connect) => connect(), withStepUp: (attempt) => attempt(), dispose: () => undefined };
    }
    async signOut(serverUrl: string): Promise<void> {
      this.signedOut.push(serverUrl);
      this.signedIn = false;
    }
  }

  it('rests in "sign-in required" until the user signs in, then runs; signing out asks again', async () => {
    const auth = new TestAuth();
    const r = rig({ url, headers: { authorization: 'Bearer x' }, startupTimeoutMs: 60 }, { auth });
    await r.connection.start();
    expect(r.connection.snapshot).toMatchObject({ state: { kind: 'auth_required', reason: 'sign-in required: mem asks you to sign in' }, tools: [] });
    expect(auth.begun[0]).toMatchObject({ server: 'mem', serverUrl: url, interactive: false, hasAuthorizationHeader: true, startupTimeoutMs: 60 });
    await r.connection.signIn();
    expect(r.connection.state.kind).toBe('running');
    expect(r.connection.snapshot.restartCount).toBe(0);
    expect(auth.begun[1]).toMatchObject({ interactive: true });
    expect(r.logs.find((l) => l.message === 'sign-in required: mem asks you to sign in')).toMatchObject({ level: 'info', source: 'harness' });
    expect(r.logs.find((l) => l.message === 'auth says hello')).toMatchObject({ level: 'info', source: 'harness' });
    await r.connection.signOut();
    expect(auth.signedOut).toEqual([url]);
    expect(r.connection.state.kind).toBe('auth_required');
    expect(listCounts(r.connection)).toEqual([0, 0, 0, 0]);
  });

  it('signs out of a remote server that has no sign-in without complaint', async () => {
    const r = rig({ url });
    await r.connection.start();
    await r.connection.signOut();
    expect(r.connection.state.kind).toBe('running');
  });

  it('does not sign in to a stdio server, nor sign out of one', async () => {
    const auth = new TestAuth();
    const r = rig({ command: 'node' }, { auth });
    await r.connection.start();
    expect(r.connection.state.kind).toBe('running');
    await r.connection.signOut();
    expect(auth.begun).toEqual([]);
    expect(auth.signedOut).toEqual([]);
    expect(r.connection.state.kind).toBe('running');
  });

  it('does not start a stopped server on sign-out', async () => {
    const auth = new TestAuth();
    const r = rig({ url }, { auth });
    await r.connection.signOut();
    expect(auth.signedOut).toEqual([url]);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });
});

describe('McpConnection keeps one start at a time', () => {
  it('makes one transport for two starts asked together, and whenSettled waits for it', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const first = r.connection.start();
    const second = r.connection.start();
    let settled = false;
    const waiting = r.connection.whenSettled().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    release();
    await Promise.all([first, second, waiting]);
    expect(r.connection.state.kind).toBe('running');
    expect(r.factories.flatMap((f) => f.created)).toHaveLength(1);
  });

  it('waits on stop until the session is closed, and a start then begins afresh', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    let closed = false;
    lastTransport(r).onclose = () => (closed = true);
    await r.connection.stop();
    expect(closed).toBe(true);
    await r.connection.start();
    expect(r.connection.state.kind).toBe('running');
    expect(r.connection.snapshot.restartCount).toBe(1);
  });

  it('does not show the failure of a start that a stop and a new start replaced', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const first = r.connection.start();
    await until(r.connection, (s) => s.kind === 'starting');
    await r.connection.stop();
    r.setDown(true);
    release();
    await first;
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });

  it('is stopped, with its process gone, when disposed', async () => {
    const r = rig({ command: 'node' });
    await r.connection.start();
    let closed = false;
    lastTransport(r).onclose = () => (closed = true);
    r.connection.dispose();
    await expect.poll(() => closed).toBe(true);
  });

  it('rests disabled, or in error, for a definition changed so while stopped', async () => {
    const r = rig({ command: 'node' });
    r.connection.setDefinition({ ...r.connection.definition, disabled: true });
    await r.connection.start();
    expect(r.connection.state).toEqual({ kind: 'disabled' });
    r.connection.setDefinition({ ...r.connection.definition, disabled: false, problem: 'no command' });
    await r.connection.start();
    expect(r.connection.snapshot).toMatchObject({ state: { kind: 'error', message: 'no command' }, lastError: 'no command' });
    expect(r.factories).toHaveLength(0);
  });

  it('does nothing on retryNow unless it waits to reconnect', async () => {
    const r = rig({ command: 'node' });
    await r.connection.retryNow();
    await r.connection.start();
    await r.connection.retryNow();
    expect(r.factories.flatMap((f) => f.created)).toHaveLength(1);
    expect(r.connection.retriesWithoutLimit).toBe(false);
  });

  it('passes a change of roots on to its server, and gives the skills of a server it waited for', async () => {
    const r = rig({ command: 'node' }, { handlers: { roots: () => [{ uri: 'file:///w', name: 'w' }] } });
    r.connection.notifyRootsChanged();
    const release = r.hold();
    const starting = r.connection.start();
    const skills = r.connection.skills(call);
    release();
    await starting;
    const client = await skills;
    expect(client).toBeInstanceOf(SkillsClient);
    expect(client).toBe(await r.connection.skills(call));
    const heard = new Promise<void>((resolve) => r.servers[0].server.setNotificationHandler('notifications/roots/list_changed', () => resolve()));
    r.connection.notifyRootsChanged();
    await heard;
  });
});

describe('McpConnection after a drop, what it says', () => {
  it('logs the loss and each failed attempt, clears the lists when it gives up, and names the server', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [10, 20] });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === 2 && s.nextAttemptAt !== undefined);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'error');
    const harness = r.logs.filter((l) => l.source === 'harness').map((l) => `${l.level} ${l.message}`);
    expect(harness.slice(-4)).toEqual([
      'warn connection lost: the server process exited with code 1',
      'warn reconnect attempt 1 of 2 failed: connection refused',
      'warn reconnect attempt 2 of 2 failed: connection refused',
      'error the server process exited with code 1; gave up after 2 reconnect attempts, the last failed with: connection refused',
    ]);
    expect(listCounts(r.connection)).toEqual([0, 0, 0, 0]);
    expect(r.connection.snapshot).toMatchObject({ pid: undefined, startedAt: undefined, lastError: expect.stringMatching(/^the server process exited with code 1; gave up/) });
  });

  it('counts a remote server\'s attempts without a limit in its log', async () => {
    const r = rig({ url: 'http://127.0.0.1:1/mcp' }, { reconnectDelaysMs: [10] });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === 2);
    expect(r.logs.map((l) => l.message)).toContain('reconnect attempt 1 failed: connection refused');
    expect(r.connection.state).toMatchObject({ reason: 'connection refused' });
    await r.connection.stop();
    expect(r.clock.waits).toHaveLength(0);
  });

  it('shows a reconnect under way without a next attempt time, then running', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [10] });
    await r.connection.start();
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    expect(r.states.filter((s) => s.kind === 'reconnecting')).toEqual([
      { kind: 'reconnecting', attempt: 1, maxAttempts: 1, reason: 'the server process exited with code 1', nextAttemptAt: expect.any(Number) },
      { kind: 'reconnecting', attempt: 1, maxAttempts: 1, reason: 'the server process exited with code 1' },
    ]);
  });
});

describe('McpConnection, starts that overlap', () => {
  it('does not begin another start while one is opening', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const first = r.connection.start();
    await expect.poll(() => r.factories.flatMap((f) => f.created).length).toBe(1);
    const second = r.connection.start();
    release();
    await Promise.all([first, second]);
    expect(r.factories.flatMap((f) => f.created)).toHaveLength(1);
  });

  it('lets the start that replaced a stopped one settle, hiding the stopped one\'s end', async () => {
    const r = rig({ command: 'node' });
    const release = r.hold();
    const first = r.connection.start();
    await expect.poll(() => r.factories.flatMap((f) => f.created).length).toBe(1);
    await r.connection.stop();
    const second = r.connection.start();
    await first;
    let settled = false;
    const waiting = r.connection.whenSettled().then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    release();
    await Promise.all([second, waiting]);
    expect(r.connection.state.kind).toBe('running');
    expect(r.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('makes no transport for a start stopped while its launch was being resolved', async () => {
    let resolve!: () => void;
    const gate = new Promise<void>((r) => (resolve = r));
    const r = rig({ command: 'node' }, { resolveLaunch: async (def) => (await gate, launchOf(def)) });
    const starting = r.connection.start();
    await r.connection.stop();
    resolve();
    await starting;
    expect(r.factories).toHaveLength(0);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });

  it('gives a listener that reacts to "reconnecting" a retry it may ask for', async () => {
    const r = rig({ url: 'http://127.0.0.1:1/mcp' }, { reconnectDelaysMs: [60_000] });
    await r.connection.start();
    const errors: unknown[] = [];
    r.connection.onDidChange((s) => {
      if (s.state.kind !== 'reconnecting') return;
      try {
        void r.connection.retryNow();
      } catch (err) {
        errors.push(err);
      }
    });
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    expect(errors).toEqual([]);
  });

  it('makes nothing more once stopped while waiting to reconnect', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [1000, 1000] });
    await r.connection.start();
    r.setDown(true);
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);
    const made = r.factories.length;
    await r.connection.stop();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(r.factories).toHaveLength(made);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });

  it('counts a drop within the stable time as part of a crash loop, whatever the default', async () => {
    const r = rig({ command: 'node' }, { reconnectDelaysMs: [10], stableAfterMs: 60_000 });
    await r.connection.start();
    await lastTransport(r).close();
    await until(r.connection, (s) => s.kind === 'reconnecting');
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    r.clock.time += 45_000;
    await lastTransport(r).close();
    expect(await until(r.connection, (s) => s.kind === 'error')).toEqual({ kind: 'error', message: 'the server process exited with code 1; gave up after 1 reconnect attempt' });
  });
});

describe('McpConnection and its session', () => {
  it('passes the session its trace switch and its log', async () => {
    const r = rig({ command: 'node' }, { traceEnabled: (name) => name === 'mem' });
    await r.connection.start();
    expect(r.logs.some((l) => l.source === 'rpc' && l.level === 'trace')).toBe(true);
    expect(r.logs.find((l) => l.message.startsWith('connected over'))).toMatchObject({ level: 'info', source: 'harness' });
  });

  it('names a dropped server\'s last stderr line as why it ended', async () => {
    let sink!: McpTransportLogSink;
    let factory!: TestTransportFactory;
    const connection = new McpConnection({
      definition: definition('mem', { command: 'node' }),
      clientInfo: { name: 'test', version: '1' },
      handlers: {},
      resolveLaunch: launchOf,
      traceEnabled: () => false,
      reconnectDelaysMs: [],
      createTransports: (_launch, _auth, s) => {
        sink = s;
        factory = new TestTransportFactory({ kind: 'stdio', make: () => linkedTo(server()) });
        return factory;
      },
    });
    trackConnection(connection);
    await connection.start();
    sink.onStderrLine('fatal: out of memory');
    await factory.created[0].close();
    expect(await until(connection, (s) => s.kind === 'error')).toEqual({ kind: 'error', message: 'the test server went away: fatal: out of memory' });
  });

  it('uses the real transports by default: a remote server that is not there is an error naming why', async () => {
    const connection = new McpConnection({
      definition: definition('nowhere', { url: 'http://127.0.0.1:9/mcp' }),
      clientInfo: { name: 'test', version: '1' },
      handlers: {},
      resolveLaunch: launchOf,
      traceEnabled: () => false,
      defaultStartupTimeoutMs: 5000,
    });
    trackConnection(connection);
    await connection.start();
    expect(connection.state).toMatchObject({ kind: 'error', message: expect.stringContaining('fetch failed') });
  });
});
