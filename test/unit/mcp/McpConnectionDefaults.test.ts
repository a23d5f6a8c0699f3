import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { IMcpConnectAuth, IMcpServerAuth, McpConnectAuthOptions } from '../../../src/core/auth/types';
import { systemClock } from '../../../src/core/mcp/McpConnection';
import { connectionRig, disposeConnections, dropServer, until, waitingToReconnect } from './McpConnectionRig';

afterEach(disposeConnections);

describe('McpConnection system clock', () => {
  it('tells the time in epoch milliseconds', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('sleeps until the time is up, then leaves no listener on the signal', async () => {
    const controller = new AbortController();
    let woke = false;
    const sleeping = systemClock.sleep(5, controller.signal).then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    await sleeping;
    expect(woke).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });

  it('wakes as soon as the signal aborts, and at once for one aborted already', async () => {
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort();
    await sleeping;
    await systemClock.sleep(60_000, controller.signal);
  });
});

describe('McpConnection defaults', () => {
  it('tries a dropped stdio server three times, after 1, 2 and 4 seconds', async () => {
    const r = connectionRig({ command: 'node' });
    await r.connection.start();
    r.setDown(true);
    await dropServer(r);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const state = await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === attempt && s.nextAttemptAt !== undefined);
      expect(state).toMatchObject({ maxAttempts: 3 });
      waits.push(r.clock.elapse());
    }
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(await until(r.connection, (s) => s.kind === 'error')).toMatchObject({ message: expect.stringContaining('gave up after 3 reconnect attempts') });
  });

  it('shows the lost process and when it started while reconnecting, and forgets them when it gives up', async () => {
    const r = connectionRig({ command: 'node' }, { reconnectDelaysMs: [10] });
    await r.connection.start();
    const startedAt = r.clock.time;
    r.clock.time += 5000;
    r.setDown(true);
    await dropServer(r);
    await waitingToReconnect(r.connection);
    expect(r.connection.snapshot).toMatchObject({ pid: 4242, startedAt });
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'error');
    expect(r.connection.snapshot).toMatchObject({ pid: undefined, startedAt: undefined });
  });
});

describe('McpConnection sign-in on a reconnect', () => {
  it('uses what is stored, without asking the user to sign in', async () => {
    const begun: McpConnectAuthOptions[] = [];
    const connectAuth: IMcpConnectAuth = { provider: undefined, keepsForSession: false, fetch: () => fetch, run: (connect) => connect(), withStepUp: (attempt) => attempt(), dispose: () => undefined };
    const auth: IMcpServerAuth = {
      appliesTo: () => true,
      begin: async (options) => (begun.push(options), connectAuth),
      signOut: async () => undefined,
    };
    const r = connectionRig({ url: 'http://127.0.0.1:1/mcp' }, { auth, reconnectDelaysMs: [10] });
    await r.connection.start();
    await dropServer(r);
    await waitingToReconnect(r.connection);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    expect(begun.map((o) => o.interactive)).toEqual([false, false]);
  });
});

describe('McpConnection reconnecting for long', () => {
  it('keeps one listener on the signal of its attempts however many a remote server takes', async () => {
    const signals: AbortSignal[] = [];
    const connectAuth: IMcpConnectAuth = {
      provider: undefined,
      keepsForSession: false,
      fetch: () => fetch,
      run: (connect, _finish, signal) => (signals.push(signal), connect()),
      withStepUp: (attempt) => attempt(),
      dispose: () => undefined,
    };
    const auth: IMcpServerAuth = { appliesTo: () => true, begin: async () => connectAuth, signOut: async () => undefined };
    const r = connectionRig({ url: 'http://127.0.0.1:1/mcp' }, { auth, reconnectDelaysMs: [10], reconnectMaxDelayMs: 10 });
    await r.connection.start();
    r.setDown(true);
    await dropServer(r);
    for (let attempt = 1; attempt <= 4; attempt++) {
      await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === attempt && s.nextAttemptAt !== undefined);
      r.clock.elapse();
    }
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === 5 && s.nextAttemptAt !== undefined);
    // The attempts share one signal (a stop ends them all); only the wait under way listens to it.
    const attempts = signals.slice(1);
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts).size).toBe(1);
    expect(getEventListeners(attempts[0], 'abort')).toHaveLength(1);
    await r.connection.stop();
    expect(attempts[0].aborted).toBe(true);
    expect(getEventListeners(attempts[0], 'abort')).toEqual([]);
  });
});
