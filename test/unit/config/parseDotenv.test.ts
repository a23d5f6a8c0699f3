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

  it('takes a line only as a whole assignment, and quotes only at the start of a value', () => {
    const text = [
      'not an assignment y=1',
      'export   SPACED=1',
      'H=abca',
      "I='C:\\'",
      'J=#only a comment',
      'K="tab\\there"',
      "L='it''s'",
      'M="a\\"b"',
    ].join('\n');
    expect(parseDotenv(text)).toEqual({ SPACED: '1', H: 'abca', I: 'C:\\', J: '', K: 'tab\there', L: 'it', M: 'a"b' });
  });
});
