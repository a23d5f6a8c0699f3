import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerDefinition } from '../../../src/core/config/types';
import { launchOf } from '../../support/definitions';
import { call, connectionRig, disposeConnections, dropServer, until, waitingToReconnect } from './McpConnectionRig';

afterEach(disposeConnections);

/** A `resolveLaunch` that counts its calls and, while `gate` is set, waits for it. */
function countingLaunch() {
  const launch = {
    calls: 0,
    gate: undefined as Promise<void> | undefined,
    resolve: async (def: McpServerDefinition) => {
      launch.calls++;
      await launch.gate;
      return launchOf(def);
    },
  };
  return launch;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('McpConnection, a start that a stop made stale', () => {
  it('opens nothing when its check answers after a new start began, and the new start runs alone', async () => {
    const answers: Array<(reason: string | undefined) => void> = [];
    const r = connectionRig({ command: 'node' }, { checkStart: () => new Promise((resolve) => answers.push(resolve)) });
    const first = r.connection.start();
    await r.connection.stop();
    const second = r.connection.start();
    expect(answers).toHaveLength(2);
    answers[0](undefined);
    await first;
    expect(r.transports).toHaveLength(0);
    answers[1](undefined);
    await second;
    expect(r.connection.state).toEqual({ kind: 'running' });
    expect(r.transports).toHaveLength(1);
  });

  it('keeps a call waiting for the new start after the stale check answered', async () => {
    const answers: Array<(reason: string | undefined) => void> = [];
    const r = connectionRig({ command: 'node' }, { checkStart: () => new Promise((resolve) => answers.push(resolve)) });
    const first = r.connection.start();
    await r.connection.stop();
    const second = r.connection.start();
    answers[0](undefined);
    await first;
    const result = r.connection.callTool('echo', { text: 'waited' }, call);
    answers[1](undefined);
    expect(await result).toMatchObject({ content: [{ text: 'waited' }] });
    await second;
  });

  it('makes no transport when its launch is resolved only after the stop', async () => {
    const launch = countingLaunch();
    let release!: () => void;
    launch.gate = new Promise((resolve) => (release = resolve));
    const r = connectionRig({ command: 'node' }, { resolveLaunch: launch.resolve });
    const starting = r.connection.start();
    await expect.poll(() => launch.calls).toBe(1);
    await r.connection.stop();
    release();
    await starting;
    expect(r.transports).toHaveLength(0);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
  });
});

describe('McpConnection, a reconnect that a stop made stale', () => {
  it('resolves no launch and shows no attempt once stopped while waiting', async () => {
    const launch = countingLaunch();
    const r = connectionRig({ command: 'node' }, { reconnectDelaysMs: [1000, 1000], resolveLaunch: launch.resolve });
    await r.connection.start();
    await dropServer(r);
    await waitingToReconnect(r.connection);
    const seen = r.states.length;
    await r.connection.stop();
    await settle();
    expect(launch.calls).toBe(1);
    expect(r.states.slice(seen)).toEqual([{ kind: 'stopped' }]);
  });

  it('does not count an attempt stopped midway as failed, nor wait for another', async () => {
    const r = connectionRig({ command: 'node' }, { reconnectDelaysMs: [10, 10] });
    await r.connection.start();
    await dropServer(r);
    await waitingToReconnect(r.connection);
    const release = r.hold();
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt === undefined);
    await expect.poll(() => r.transports.length).toBe(2);
    await r.connection.stop();
    release();
    await settle();
    expect(r.logs.filter((l) => l.message.startsWith('reconnect attempt'))).toEqual([]);
    expect(r.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(r.connection.state).toEqual({ kind: 'stopped' });
    expect(r.clock.waits).toHaveLength(0);
  });

  it('keeps to its schedule after an attempt that failed before its startup time ran out', async () => {
    const r = connectionRig({ command: 'node' }, { reconnectDelaysMs: [10, 60_000] });
    await r.connection.start();
    // Takes effect at the next attempt: a startup time that would run out while the next attempt waits.
    r.connection.setDefinition({ ...r.connection.definition, startupTimeoutMs: 20 });
    r.setDown(true);
    await dropServer(r);
    await waitingToReconnect(r.connection);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'reconnecting' && s.attempt === 2 && s.nextAttemptAt !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.connection.state).toMatchObject({ kind: 'reconnecting', attempt: 2, nextAttemptAt: r.clock.time + 60_000 });
    expect(r.clock.waits.map((w) => w.ms)).toEqual([60_000]);
    expect(r.transports).toHaveLength(2);
  });
});
