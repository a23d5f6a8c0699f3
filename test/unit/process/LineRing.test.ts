import { describe, expect, it } from 'vitest';
import { LineRing } from '../../../src/core/process/LineRing';

describe('LineRing', () => {
  it('keeps the last lines, oldest first, and cuts long ones', () => {
    const ring = new LineRing(3, 5);
    for (const line of ['a', 'b', 'c', 'd', '123456']) ring.push(line);
    expect(ring.tail()).toEqual(['c', 'd', '12345…']);
    expect(ring.tail(2)).toEqual(['d', '12345…']);
    // What went past the capacity is gone, not just out of the default view.
    expect(ring.tail(10)).toEqual(['c', 'd', '12345…']);
    ring.push('12345');
    expect(ring.tail(1)).toEqual(['12345']);
    ring.clear();
    expect(ring.tail()).toEqual([]);
  });

  it('starts empty', () => {
    expect(new LineRing(3).tail()).toEqual([]);
  });

  it('cuts at 2000 characters by default', () => {
    const ring = new LineRing(1);
    ring.push('x'.repeat(2001));
    expect(ring.tail()[0]).toHaveLength(2001);
    expect(ring.tail()[0].endsWith('x…')).toBe(true);
  });
});
