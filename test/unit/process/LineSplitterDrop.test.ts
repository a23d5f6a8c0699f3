import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError } from '../../../src/core/process/LineSplitter';

/** Feeds `text` in chunks of `size` bytes, collecting lines and drops in order. */
function feed(text: string, size: number, limit = 10): string[] {
  const out: string[] = [];
  const s = new LineSplitter(limit);
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) {
    s.push(bytes.subarray(i, i + size), (l) => out.push(l), () => out.push('<dropped>'));
  }
  const rest = s.flush();
  if (rest !== undefined) out.push(`rest:${rest}`);
  return out;
}

describe('LineSplitter dropping long lines', () => {
  const text = `short\n${'z'.repeat(25)}\nafter\nnext\ntail`;

  it('drops an overlong line whole, however it is chunked, and keeps every line around it', () => {
    for (const size of [1, 3, 7, 10, 11, 26, 1000]) {
      expect(feed(text, size)).toEqual(['short', '<dropped>', 'after', 'next', 'rest:tail']);
    }
  });

  it('drops two overlong lines in a row each once', () => {
    expect(feed(`${'a'.repeat(12)}\n${'b'.repeat(30)}\nok\n`, 4)).toEqual(['<dropped>', '<dropped>', 'ok']);
  });

  it('keeps a line exactly at the limit', () => {
    expect(feed(`${'c'.repeat(10)}\n${'d'.repeat(11)}\n`, 5)).toEqual(['c'.repeat(10), '<dropped>']);
  });
});

describe('LineTooLongError', () => {
  it('names itself and the limit', () => {
    expect(new LineTooLongError(2048)).toMatchObject({ name: 'LineTooLongError', limitBytes: 2048, message: 'a single message exceeded 2 KB' });
  });

  it('keeps an empty line empty, and strips only a carriage return at the end', () => {
    expect(feed('\n\r\na\rb\r\n', 3, 10)).toEqual(['', '', 'a\rb']);
  });
});
