import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServeHttpSessions } from '../../../src/core/serve/ServeHttpSessions';
import { closers, initialize, listen, post } from './listenerRig';

afterEach(() => {
  vi.useRealTimers();
});

/** A session whose transport records that it was closed. */
const session = (closed: string[], id: string) => ({ transport: { close: async () => void closed.push(id) } }) as never;

describe('ServeHttpSessions sweeping', () => {
  it('frees idle sessions nobody asks for every half idle limit, and stops once disposed', () => {
    vi.useFakeTimers();
    let now = 0;
    const closed: string[] = [];
    const logs: string[] = [];
    const sessions = new ServeHttpSessions({ idleTimeoutMs: 2000, maxSessions: 5, now: () => now, log: (m) => logs.push(m) });
    sessions.add('a', session(closed, 'a'));
    now = 5000;
    vi.advanceTimersByTime(999);
    expect(closed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(closed).toEqual(['a']);
    expect(logs).toEqual(['session a ended: idle for 5 s (limit 2 s)']);
    sessions.dispose();
    sessions.add('b', session(closed, 'b'));
    now = 60_000;
    vi.advanceTimersByTime(10_000);
    expect(closed).toEqual(['a']);
    expect(sessions.size).toBe(1);
  });

  it('sweeps at most once a minute, and at least every quarter second', () => {
    vi.useFakeTimers();
    let now = 0;
    const closed: string[] = [];
    const long = new ServeHttpSessions({ idleTimeoutMs: 600_000, now: () => now });
    const short = new ServeHttpSessions({ idleTimeoutMs: 10, now: () => now });
    long.add('long', session(closed, 'long'));
    short.add('short', session(closed, 'short'));
    now = 10_000_000;
    vi.advanceTimersByTime(249);
    expect(closed).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(closed).toEqual(['short']);
    vi.advanceTimersByTime(59_749);
    expect(closed).toEqual(['short']);
    vi.advanceTimersByTime(1);
    expect(closed).toEqual(['short', 'long']);
    long.dispose();
    short.dispose();
  });

  it('never ends a session with a request open, and counts only idle ones when saying when a place frees up', () => {
    let now = 0;
    const closed: string[] = [];
    const sessions = new ServeHttpSessions({ idleTimeoutMs: 10_000, maxSessions: 1, now: () => now });
    closers.push(() => sessions.dispose());
    sessions.add('busy', session(closed, 'busy'));
    const done = sessions.use('busy');
    now = 9_000;
    // The only session is in use: the earliest a place may free up is a whole idle limit away.
    expect(sessions.retryAfterSeconds()).toBe(10);
    now = 50_000;
    expect(sessions.get('busy')).toBeDefined();
    sessions.sweep();
    expect(closed).toEqual([]);
    done();
    now = 60_000;
    sessions.sweep();
    expect(closed).toEqual(['busy']);
  });

  it('closes every session at once', async () => {
    const closed: string[] = [];
    const sessions = new ServeHttpSessions({});
    closers.push(() => sessions.dispose());
    sessions.add('a', session(closed, 'a'));
    sessions.add('b', session(closed, 'b'));
    await sessions.closeAll();
    expect(closed).toEqual(['a', 'b']);
    expect(sessions.size).toBe(0);
  });
});

describe('ServeHttpListener', () => {
  it('takes an https Origin on its own loopback port', async () => {
    const { url } = await listen();
    expect((await post(url, initialize, { Origin: `https://localhost:${new URL(url).port}` })).status).toBe(200);
  });

  it('answers a body that is not JSON once, and logs nothing', async () => {
    const { url, logs } = await listen();
    const response = await post(url, '{not json');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
    await new Promise((r) => setTimeout(r, 20));
    expect(logs).toEqual([]);
  });

  it('stops listening when closed', async () => {
    const { url, listener } = await listen();
    expect((await post(url, initialize)).status).toBe(200);
    await listener.close();
    await expect(post(url, initialize)).rejects.toThrow();
  });
});
