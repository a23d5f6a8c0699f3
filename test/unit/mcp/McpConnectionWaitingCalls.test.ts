import type { CallToolResult } from '@modelcontextprotocol/client';
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClientTasks } from '../../../src/core/tasks/McpClientTasks';
import { McpTaskClient } from '../../../src/core/tasks/McpTaskClient';
import type { IMcpTaskHost, McpTaskCall } from '../../../src/core/tasks/taskHost';
import { call, connectionRig, disposeConnections, dropServer, taskPeer, until, waitingToReconnect, type ConnectionRig } from './McpConnectionRig';

afterEach(disposeConnections);

const url = 'http://127.0.0.1:1/mcp';
const signal = () => new AbortController().signal;

/** A remote server that dropped and waits a minute for its next attempt, which will hang in its handshake. */
async function remoteWaitingToReconnect(): Promise<ConnectionRig & { release: () => void }> {
  const r = connectionRig({ url }, { reconnectDelaysMs: [60_000] });
  await r.connection.start();
  await dropServer(r);
  await waitingToReconnect(r.connection);
  return { ...r, release: r.hold() };
}

const attemptUnderWay = (r: ConnectionRig) => until(r.connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt === undefined);

describe('McpConnection task operations', () => {
  it('gives those of the running session', async () => {
    const r = connectionRig({ command: 'node' });
    await r.connection.start();
    const tasks = await r.connection.taskClient(signal());
    expect(tasks).toBeInstanceOf(McpTaskClient);
    expect(await r.connection.taskClient(signal())).toBe(tasks);
  });

  it('waits for a starting server to give them', async () => {
    const r = connectionRig({ command: 'node' });
    const release = r.hold();
    const starting = r.connection.start();
    const tasks = r.connection.taskClient(signal());
    release();
    await starting;
    expect(await tasks).toBeInstanceOf(McpTaskClient);
  });

  it('stops waiting for a starting server when the caller cancels', async () => {
    const r = connectionRig({ command: 'node' });
    r.hold();
    void r.connection.start();
    const controller = new AbortController();
    const tasks = r.connection.taskClient(controller.signal);
    controller.abort();
    await expect(tasks).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('hands the host following a task the operations of the session at hand, a new one after a reconnect', async () => {
    const follows: McpTaskCall[] = [];
    const host: IMcpTaskHost = {
      follow: async (taskCall): Promise<CallToolResult> => (follows.push(taskCall), { content: [] }),
      clientTasks: (server) => new McpClientTasks(server),
    };
    const r = connectionRig({ url }, { tasks: host, reconnectDelaysMs: [10] }, taskPeer);
    await r.connection.start();
    await r.connection.callTool('slow', {}, call);
    const [followed] = follows;
    const before = await followed.client(signal());
    expect(before).toBe(await r.connection.taskClient(signal()));
    await dropServer(r);
    await waitingToReconnect(r.connection);
    r.clock.elapse();
    await until(r.connection, (s) => s.kind === 'running');
    const after = await followed.client(signal());
    expect(after).toBe(await r.connection.taskClient(signal()));
    expect(after).not.toBe(before);
  });
});

describe('McpConnection, a call that waits for a starting server', () => {
  it('gives up as soon as its time is up, not at the next look at the server', async () => {
    const r = connectionRig({ command: 'node' });
    const release = r.hold();
    const starting = r.connection.start();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      let outcome: unknown;
      r.connection.callTool('echo', { text: 'x' }, { timeoutMs: 40, maxTotalTimeoutMs: 40 }).catch((err: unknown) => (outcome = err));
      await vi.advanceTimersByTimeAsync(39);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toMatchObject({ kind: 'timeout' });
    } finally {
      vi.useRealTimers();
    }
    release();
    await starting;
  });
});

describe('McpConnection, a call that makes a remote server try at once', () => {
  it('is cancelled by its caller while that attempt hangs', async () => {
    const r = await remoteWaitingToReconnect();
    const controller = new AbortController();
    const calling = r.connection.callTool('echo', { text: 'x' }, { timeoutMs: 60_000, maxTotalTimeoutMs: 60_000, signal: controller.signal });
    await attemptUnderWay(r);
    controller.abort();
    await expect(calling).rejects.toMatchObject({ kind: 'cancelled', message: 'the call was cancelled' });
    r.release();
  });

  it('says it timed out, not that the server is unavailable, when its time runs out during that attempt', async () => {
    const r = await remoteWaitingToReconnect();
    await expect(r.connection.callTool('echo', { text: 'x' }, { timeoutMs: 50, maxTotalTimeoutMs: 50 })).rejects.toMatchObject({ kind: 'timeout' });
    // Still trying: the wait for the next attempt has not been scheduled.
    expect(r.connection.state).toEqual({ kind: 'reconnecting', attempt: 1, reason: 'the server went away' });
    r.release();
  });

  it('leaves no listener on the caller\'s signal once the attempt brought the server back', async () => {
    const r = await remoteWaitingToReconnect();
    r.release();
    const controller = new AbortController();
    expect(await r.connection.callTool('echo', { text: 'back' }, { ...call, signal: controller.signal })).toMatchObject({ content: [{ text: 'back' }] });
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});
