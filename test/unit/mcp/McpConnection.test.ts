import { afterEach, describe, expect, it } from 'vitest';
import { parseMcpConfigText, resolveServerLaunch, type McpServerDefinition } from '../../../src/core/config';
import { McpConnection, type McpConnectionOptions } from '../../../src/core/mcp/McpConnection';
import type { McpConnectionState } from '../../../src/core/mcp/McpServerSnapshot';
import { createTestServer, LinkedTransportFactory } from '../../support/inMemoryServers';
import { ManualClock } from './McpConnectionRig';

function definition(entry: object): McpServerDefinition {
  return parseMcpConfigText(JSON.stringify({ servers: { mem: entry } }), '/w/.vscode/mcp.json', 'vscode', '/w').servers[0];
}

const connections: McpConnection[] = [];
afterEach(async () => {
  for (const c of connections.splice(0)) {
    await c.stop();
    c.dispose();
  }
});

function connect(entry: object, extra: Partial<McpConnectionOptions> = {}) {
  const clock = new ManualClock(1_000_000);
  let down = false;
  const factories: LinkedTransportFactory[] = [];
  const connection = new McpConnection({
    definition: definition(entry),
    clientInfo: { name: 'test', version: '1' },
    handlers: {},
    resolveLaunch: (def) => resolveServerLaunch(def, { env: {}, userHome: '/h' }),
    traceEnabled: () => false,
    clock,
    createTransports: (launch) => {
      const f = new LinkedTransportFactory({ kind: launch.type, server: () => createTestServer().server, refuse: () => down });
      factories.push(f);
      return f;
    },
    ...extra,
  });
  connections.push(connection);
  const states: McpConnectionState[] = [];
  connection.onDidChange((s) => states.push(s.state));
  const lastTransport = () => factories.at(-1)!.created.at(-1)!;
  return { connection, clock, states, setDown: (value: boolean) => (down = value), lastTransport };
}

function until(connection: McpConnection, test: (state: McpConnectionState) => boolean): Promise<McpConnectionState> {
  return new Promise((resolve) => {
    if (test(connection.state)) return resolve(connection.state);
    const listener = connection.onDidChange((s) => {
      if (test(s.state)) {
        listener.dispose();
        resolve(s.state);
      }
    });
  });
}

describe('McpConnection over linked in-memory transports, under a manual clock', () => {
  it('starts, lists and calls; start() twice is one start', async () => {
    const { connection } = connect({ command: 'node' });
    await Promise.all([connection.start(), connection.start()]);
    expect(connection.snapshot).toMatchObject({ state: { kind: 'running' }, transport: 'stdio', restartCount: 0 });
    expect(connection.snapshot.tools.map((t) => t.name)).toEqual(['echo', 'add_tool', 'wait']);
    expect(await connection.callTool('echo', { text: 'ok' }, { timeoutMs: 5000, maxTotalTimeoutMs: 5000 })).toMatchObject({ content: [{ text: 'ok' }] });
  });

  it('reconnects a dropped stdio server on its schedule, then gives up naming the last failure', async () => {
    const { connection, clock, setDown, lastTransport } = connect({ command: 'node' }, { reconnectDelaysMs: [1000, 2000] });
    await connection.start();
    setDown(true);
    await lastTransport().close();
    expect(await until(connection, (s) => s.kind === 'reconnecting')).toEqual({
      kind: 'reconnecting',
      attempt: 1,
      maxAttempts: 2,
      reason: 'the in-memory server closed the connection',
      nextAttemptAt: clock.time + 1000,
    });
    expect(clock.elapse()).toBe(1000);
    const second = await until(connection, (s) => s.kind === 'reconnecting' && s.attempt === 2 && s.nextAttemptAt !== undefined);
    expect(second).toMatchObject({ reason: 'connection refused', nextAttemptAt: clock.time + 2000 });
    expect(clock.elapse()).toBe(2000);
    expect(await until(connection, (s) => s.kind === 'error')).toEqual({
      kind: 'error',
      message: 'the in-memory server closed the connection; gave up after 2 reconnect attempts, the last failed with: connection refused',
    });
  });

  it('keeps trying a remote server with doubling waits up to the cap, and is back once it is', async () => {
    const { connection, clock, setDown, lastTransport } = connect({ type: 'http', url: 'http://127.0.0.1:1/mcp' }, { reconnectDelaysMs: [1000], reconnectMaxDelayMs: 3000 });
    await connection.start();
    setDown(true);
    await lastTransport().close();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      await until(connection, (s) => s.kind === 'reconnecting' && s.attempt === attempt && s.nextAttemptAt !== undefined);
      expect(connection.state).toMatchObject({ maxAttempts: undefined });
      if (attempt === 4) setDown(false);
      waits.push(clock.elapse());
    }
    expect(waits).toEqual([1000, 2000, 3000, 3000]);
    await until(connection, (s) => s.kind === 'running');
    expect(connection.snapshot.restartCount).toBe(4);
  });

  it('tries at once when asked while waiting, and a call waits for that attempt', async () => {
    const { connection, clock, lastTransport } = connect({ type: 'http', url: 'http://127.0.0.1:1/mcp' }, { reconnectDelaysMs: [60_000] });
    await connection.start();
    await lastTransport().close();
    await until(connection, (s) => s.kind === 'reconnecting');
    const result = await connection.callTool('echo', { text: 'back' }, { timeoutMs: 5000, maxTotalTimeoutMs: 5000 });
    expect(result).toMatchObject({ content: [{ text: 'back' }] });
    expect(clock.waits).toHaveLength(0);
    expect(connection.state.kind).toBe('running');
  });

  it('says why calls cannot reach a stopped server', async () => {
    const { connection } = connect({ command: 'node' });
    await expect(connection.callTool('echo', {}, { timeoutMs: 100, maxTotalTimeoutMs: 100 })).rejects.toMatchObject({
      kind: 'unavailable',
      message: 'server "mem" is not running (stopped): it was stopped or has not been started',
    });
  });
});

describe('McpConnection lifecycle', () => {
  it('rests disabled, or in error for a broken entry, and says so to calls', async () => {
    const disabled = connect({ command: 'node', disabled: true });
    await disabled.connection.start();
    expect(disabled.connection.state).toEqual({ kind: 'disabled' });
    await expect(disabled.connection.callTool('echo', {}, { timeoutMs: 100, maxTotalTimeoutMs: 100 })).rejects.toMatchObject({
      message: 'server "mem" is not running (disabled): it is disabled in /w/.vscode/mcp.json',
    });
    const broken = connect({ command: 'node' });
    broken.connection.setDefinition({ ...broken.connection.definition, problem: 'no command' });
    await broken.connection.start();
    expect(broken.connection.snapshot).toMatchObject({ state: { kind: 'error', message: 'no command' }, lastError: 'no command' });
    await expect(broken.connection.callTool('echo', {}, { timeoutMs: 100, maxTotalTimeoutMs: 100 })).rejects.toMatchObject({ message: 'server "mem" is not running (error): no command' });
  });

  it('stays blocked when the host refuses the start, naming why', async () => {
    const { connection } = connect({ command: 'node' }, { checkStart: async () => 'the workspace is not trusted' });
    await connection.start();
    expect(connection.state).toEqual({ kind: 'blocked', reason: 'the workspace is not trusted' });
    await expect(connection.callTool('echo', {}, { timeoutMs: 100, maxTotalTimeoutMs: 100 })).rejects.toMatchObject({ message: 'server "mem" is not running (blocked): the workspace is not trusted' });
  });

  it('counts restarts, clears lists on stop, and fails a start whose launch cannot be resolved', async () => {
    const { connection } = connect({ command: 'node' });
    await connection.start();
    await connection.restart();
    expect(connection.snapshot).toMatchObject({ state: { kind: 'running' }, restartCount: 1 });
    await connection.stop();
    expect(connection.snapshot).toMatchObject({ state: { kind: 'stopped' }, tools: [] });
    const unresolved = connect({ command: 'node', env: { K: '${input:missing}' } });
    await unresolved.connection.start();
    expect(unresolved.connection.state.kind).toBe('error');
  });

  it('gives up at once with no reconnect schedule', async () => {
    const { connection, lastTransport } = connect({ command: 'node' }, { reconnectDelaysMs: [] });
    await connection.start();
    await lastTransport().close();
    expect(await until(connection, (s) => s.kind === 'error')).toEqual({ kind: 'error', message: 'the in-memory server closed the connection' });
  });

  it('forgets the sign-in of a remote server through its auth on sign-out, then starts again', async () => {
    const forgotten: string[] = [];
    const auth = { appliesTo: () => true, begin: async () => Promise.reject(new Error('not signing in')), signOut: async (url: string) => void forgotten.push(url) };
    const { connection } = connect({ type: 'http', url: 'http://127.0.0.1:1/mcp' }, { auth });
    await connection.start();
    expect(connection.state).toEqual({ kind: 'error', message: 'not signing in' });
    await connection.signOut();
    expect(forgotten).toEqual(['http://127.0.0.1:1/mcp']);
  });
});
