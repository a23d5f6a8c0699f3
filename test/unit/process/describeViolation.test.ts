import { describe, expect, it } from 'vitest';
import { describeViolation, shellQuote } from '../../../src/core/process/sandbox/describeViolation';

describe('describeViolation', () => {
  it('leaves out the parentheses when the proxy gives no reason', () => {
    expect(describeViolation('deny network-outbound example.com:443')).toBe('sandbox: refused a connection to example.com:443');
    expect(describeViolation('deny network-outbound example.com:443 ()')).toBe('sandbox: refused a connection to example.com:443');
  });

  it('reads a report only when it starts with the deny word', () => {
    expect(describeViolation('note: deny network-outbound example.com:443')).toBe('sandbox: refused note: deny network-outbound example.com:443');
    expect(describeViolation('note: deny openat /ws/planted.txt')).toBe('sandbox: refused note: deny openat /ws/planted.txt');
  });

  it('does not take a connection report with trailing words for a reasoned one', () => {
    expect(describeViolation('deny network-outbound example.com:443 (not allowed) later')).toBe(
      'sandbox: refused network-outbound example.com:443 (not allowed) later',
    );
  });

  it('says the server tried to run a program when the operation is an exec', () => {
    expect(describeViolation('deny process-exec /usr/bin/curl')).toBe('sandbox: refused to run /usr/bin/curl (process-exec)');
  });

  it('treats a report whose target is not an absolute path as an unknown operation', () => {
    expect(describeViolation('deny openat relative/file.txt')).toBe('sandbox: refused openat relative/file.txt');
  });

  it('keeps a path with a line break whole', () => {
    expect(describeViolation('deny openat /tmp/a\nb')).toContain('/tmp/a\nb');
  });

  it('strips only the leading deny word from a report it does not know', () => {
    expect(describeViolation('signal deny sent')).toBe('sandbox: refused signal deny sent');
  });
});

describe('shellQuote', () => {
  it('leaves words made of letters, digits and path or option punctuation unquoted', () => {
    const plain = ['a.b', 'a/b', 'a:b', 'a@b', 'a%b', 'a+b', 'a=b', 'a,b', 'a-b', 'a_b9'];
    expect(shellQuote(plain)).toBe(plain.join(' '));
  });

  it('quotes an empty word so the shell still passes it', () => {
    expect(shellQuote(['node', '', 'x'])).toBe(`node '' x`);
  });

  it('quotes words with shell characters anywhere in them', () => {
    expect(shellQuote(['$HOME', 'a;b', 'a b', '*'])).toBe(`'$HOME' 'a;b' 'a b' '*'`);
  });
});
