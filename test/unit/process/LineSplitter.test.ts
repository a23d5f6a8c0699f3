import { describe, expect, it } from 'vitest';
import { formatByteSize as formatBytes } from '../../../src/core/base/formatByteSize';
import { LineSplitter, LineTooLongError } from '../../../src/core/process/LineSplitter';

describe('LineSplitter', () => {
  it('joins lines split across chunks, strips CR, and keeps the rest for later', () => {
    const lines: string[] = [];
    const s = new LineSplitter(1024);
    s.push(Buffer.from('{"a":'), (l) => lines.push(l));
    s.push(Buffer.from('1}\r\n{"b":2}\n{"c"'), (l) => lines.push(l));
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(s.flush()).toBe('{"c"');
    expect(s.flush()).toBeUndefined();
  });

  it('does not split multi-byte characters at chunk borders', () => {
    const bytes = Buffer.from('héllo→\n');
    const lines: string[] = [];
    const s = new LineSplitter(1024);
    for (const b of bytes) s.push(Buffer.from([b]), (l) => lines.push(l));
    expect(lines).toEqual(['héllo→']);
  });

  it('throws when one line passes the limit, and recovers', () => {
    const s = new LineSplitter(10);
    expect(() => s.push(Buffer.from('x'.repeat(11)), () => undefined)).toThrow(LineTooLongError);
    const lines: string[] = [];
    s.push(Buffer.from('ok\n'), (l) => lines.push(l));
    expect(lines).toEqual(['ok']);
  });

  it('throws for a line over the limit that ends in the chunk it arrived with, or in a later one', () => {
    const whole = new LineSplitter(10);
    expect(() => whole.push(Buffer.from('x'.repeat(11) + '\n'), () => undefined)).toThrow(LineTooLongError);
    const split = new LineSplitter(10);
    split.push(Buffer.from('x'.repeat(10)), () => undefined);
    expect(() => split.push(Buffer.from('x\n'), () => undefined)).toThrow(LineTooLongError);
    const lines: string[] = [];
    split.push(Buffer.from('x'.repeat(10) + '\n'), (l) => lines.push(l));
    expect(lines).toEqual(['x'.repeat(10)]);
  });

  it('formats sizes for people', () => {
    expect([formatBytes(512), formatBytes(12 * 1024), formatBytes(3.45 * 1024 * 1024), formatBytes(64 * 1024 * 1024)]).toEqual(['512 B', '12 KB', '3.5 MB', '64 MB']);
  });
});
