import { describe, expect, it } from 'vitest';
import { attemptsAfterDrop, gaveUpMessage, maxReconnects, nextReconnect, type ReconnectPolicy } from '../../../src/core/mcp/reconnectPolicy';

const limited: ReconnectPolicy = { delaysMs: [1000, 2000, 4000], unlimited: false, maxDelayMs: 30_000, stableAfterMs: 30_000 };
const unlimited: ReconnectPolicy = { ...limited, unlimited: true, maxDelayMs: 10_000 };

describe('reconnect policy', () => {
  it('follows the schedule, then stops when attempts are limited', () => {
    expect([0, 1, 2, 3].map((used) => nextReconnect(limited, used))).toEqual([{ attempt: 1, waitMs: 1000 }, { attempt: 2, waitMs: 2000 }, { attempt: 3, waitMs: 4000 }, undefined]);
    expect(maxReconnects(limited)).toBe(3);
  });

  it('doubles the last wait up to the cap when attempts never run out', () => {
    expect([3, 4, 5, 60].map((used) => nextReconnect(unlimited, used)?.waitMs)).toEqual([8000, 10_000, 10_000, 10_000]);
    expect(nextReconnect({ ...unlimited, maxDelayMs: Infinity }, 100)?.waitMs).toBe(4000 * 2 ** 32);
    expect(maxReconnects(unlimited)).toBeUndefined();
  });

  it('never reconnects with an empty schedule, limited or not', () => {
    expect(nextReconnect({ ...limited, delaysMs: [] }, 0)).toBeUndefined();
    expect(nextReconnect({ ...unlimited, delaysMs: [] }, 0)).toBeUndefined();
    expect(maxReconnects({ ...unlimited, delaysMs: [] })).toBe(0);
  });

  it('gives the attempts back after a stable run only', () => {
    expect(attemptsAfterDrop(limited, 2, 29_999)).toBe(2);
    expect(attemptsAfterDrop(limited, 2, 30_000)).toBe(0);
  });

  it('says how many attempts failed and how the last did', () => {
    expect(gaveUpMessage(limited, 'exited with code 7', 'connection refused')).toBe('exited with code 7; gave up after 3 reconnect attempts, the last failed with: connection refused');
    expect(gaveUpMessage({ ...limited, delaysMs: [5] }, 'gone', undefined)).toBe('gone; gave up after 1 reconnect attempt');
    expect(gaveUpMessage({ ...limited, delaysMs: [] }, 'gone', 'x')).toBe('gone');
  });
});
