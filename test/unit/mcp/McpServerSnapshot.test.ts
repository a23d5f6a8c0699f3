import { describe, expect, it } from 'vitest';
import { describeReconnect, describeState } from '../../../src/core/mcp/McpServerSnapshot';

describe('describeState', () => {
  const now = 1_000_000;

  it('counts down to the next reconnect attempt of a server that retries without limit', () => {
    const state = { kind: 'reconnecting', attempt: 7, reason: 'fetch failed (ECONNREFUSED)', nextAttemptAt: now + 29_200 } as const;
    expect(describeState(state, now)).toBe('reconnecting, next try in 30 s (attempt 7): fetch failed (ECONNREFUSED)');
    expect(describeReconnect(state, now + 28_500)).toBe('reconnecting, next try in 1 s (attempt 7)');
    expect(describeReconnect(state, now + 40_000)).toBe('reconnecting, next try in 0 s (attempt 7)');
  });

  it('shows the attempt budget of a stdio server, and an attempt under way', () => {
    expect(describeReconnect({ kind: 'reconnecting', attempt: 2, maxAttempts: 3, reason: 'x', nextAttemptAt: now + 2000 }, now)).toBe(
      'reconnecting, next try in 2 s (attempt 2 of 3)',
    );
    expect(describeState({ kind: 'reconnecting', attempt: 2, maxAttempts: 3, reason: 'exited with code 1' }, now)).toBe(
      'reconnecting, trying now (attempt 2 of 3): exited with code 1',
    );
  });

  it('describes the other states', () => {
    expect(describeState({ kind: 'blocked', reason: 'untrusted workspace' })).toBe('not started: untrusted workspace');
    expect(describeState({ kind: 'error', message: 'boom' })).toBe('boom');
    expect(describeState({ kind: 'stopped' })).toBe('stopped');
  });
});
