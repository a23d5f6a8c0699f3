import { describe, expect, it } from 'vitest';
import { parseDotenv } from '../../../src/core/config';

describe('parseDotenv', () => {
  it('parses assignments, exports, comments, quotes and escapes', () => {
    const text = [
      '# header',
      'A=1',
      '  export B = two words  ',
      'C="x\\ty\\\\z"',
      "D='$literal \\n'",
      'E=a#b',
      'F=',
      'G="unterminated',
      'A=last wins',
      '=no key',
    ].join('\r\n');
    expect(parseDotenv(text)).toEqual({
      A: 'last wins',
      B: 'two words',
      C: 'x\ty\\z',
      D: '$literal \\n',
      E: 'a#b',
      F: '',
      G: '"unterminated',
    });
  });
});
