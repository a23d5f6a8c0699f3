import { describe, expect, it } from 'vitest';
import { HarnessSecrets } from '../../../src/core/HarnessSecrets';
import type { McpServerSnapshot } from '../../../src/core/mcp/McpServerSnapshot';

const A = 'alpha-secret-1';
const B = 'beta-secret-22';

function secrets(): HarnessSecrets {
  const s = new HarnessSecrets();
  s.set('a', [A]);
  s.set('b', [B]);
  return s;
}

describe('HarnessSecrets', () => {
  it('masks every server\'s secrets in any text, and forgets what a server no longer resolves to', () => {
    const s = secrets();
    expect(s.mask(`${A} and ${B}`)).toBe('•••• and ••••');
    s.set('a', undefined);
    expect(s.mask(`${A} and ${B}`)).toBe(`${A} and ••••`);
    expect(new HarnessSecrets().mask(A)).toBe(A);
  });

  it('masks the reason of every state that has one, and leaves the others as they are', () => {
    const s = secrets();
    expect(s.state({ kind: 'error', message: `failed with ${A}` })).toEqual({ kind: 'error', message: 'failed with ••••' });
    for (const kind of ['blocked', 'reconnecting', 'auth_required'] as const) {
      expect(s.state({ kind, reason: `because ${B}` } as never)).toMatchObject({ kind, reason: 'because ••••' });
    }
    const running = { kind: 'running' } as const;
    expect(s.state(running)).toBe(running);
  });

  it('masks a snapshot\'s state, last error and stderr, and adds no last error it had not', () => {
    const s = secrets();
    const snapshot = { name: 'a', state: { kind: 'error', message: A }, lastError: `last ${A}`, stderrTail: [`line ${A}`, 'plain'] } as unknown as McpServerSnapshot;
    expect(s.snapshot(snapshot)).toMatchObject({ state: { message: '••••' }, lastError: 'last ••••', stderrTail: ['line ••••', 'plain'] });
    const clean = s.snapshot({ name: 'a', state: { kind: 'running' }, stderrTail: [] } as unknown as McpServerSnapshot);
    expect('lastError' in clean).toBe(false);
  });

  it('masks log entries only when they quote a secret', () => {
    const s = secrets();
    const plain = { server: 'a', level: 'info', source: 'stderr', message: 'hello', time: 1 } as const;
    expect(s.logEntry(plain)).toBe(plain);
    expect(s.logEntry({ ...plain, message: `key ${B}` })).toEqual({ ...plain, message: 'key ••••' });
  });

  it('masks a failed call\'s text and text content, and passes a tool\'s own answer as it is', () => {
    const s = secrets();
    const answer = { isError: false, text: A, content: [{ type: 'text', text: A }] } as const;
    expect(s.callResult(answer as never)).toBe(answer);
    const failedPlain = { isError: true, text: 'no secret', content: [{ type: 'text', text: A }] } as const;
    expect(s.callResult(failedPlain as never)).toBe(failedPlain);
    const failed = { isError: true, text: `bad ${A}`, content: [{ type: 'text', text: `bad ${A}` }, { type: 'image', data: A, mimeType: 'image/png' }], errorKind: 'tool_error' };
    expect(s.callResult(failed as never)).toEqual({ isError: true, text: 'bad ••••', content: [{ type: 'text', text: 'bad ••••' }, { type: 'image', data: A, mimeType: 'image/png' }], errorKind: 'tool_error' });
  });
});
