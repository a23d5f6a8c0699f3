import { describe, expect, it } from 'vitest';
import { parseMcpConfigText } from '../../../src/core/config';
import { describeReconnect, describeState, describeUnavailable, initialSnapshot, isServingState, restingState, snapshotsEqual } from '../../../src/core/mcp/McpServerSnapshot';
import { formatSeconds, mapLogLevel, truncate } from '../../../src/core/mcp/describe';
import { McpCallError } from '../../../src/core/mcp/McpCallError';

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

describe('snapshots', () => {
  const def = parseMcpConfigText(JSON.stringify({ servers: { s: { command: 'node' } } }), '/w/.vscode/mcp.json', 'vscode', '/w').servers[0];

  it('start at rest: stopped, disabled, or in error for a broken entry', () => {
    expect(initialSnapshot(def)).toEqual({
      name: 's',
      definition: def,
      state: { kind: 'stopped' },
      transport: 'stdio',
      tools: [],
      resources: [],
      resourceTemplates: [],
      prompts: [],
      lastError: undefined,
      stderrTail: [],
      restartCount: 0,
    });
    expect(restingState({ ...def, disabled: true, problem: 'x' })).toEqual({ kind: 'disabled' });
    expect(initialSnapshot({ ...def, problem: 'bad' })).toMatchObject({ state: { kind: 'error', message: 'bad' }, lastError: 'bad' });
  });

  it('are equal when only copies of the state, stderr, server info or capabilities differ', () => {
    const a = initialSnapshot(def);
    expect(snapshotsEqual(a, { ...a, state: { kind: 'stopped' }, stderrTail: [], serverInfo: undefined })).toBe(true);
    expect(snapshotsEqual({ ...a, capabilities: { tools: {} } }, { ...a, capabilities: { tools: {} } })).toBe(true);
    expect(snapshotsEqual({ ...a, serverInfo: { name: 'a', version: '1' } }, { ...a, serverInfo: { name: 'a', version: '1' } })).toBe(true);
    expect(snapshotsEqual(a, { ...a, state: { kind: 'starting' } })).toBe(false);
    expect(snapshotsEqual(a, { ...a, stderrTail: ['x'] })).toBe(false);
    expect(snapshotsEqual(a, { ...a, tools: [] })).toBe(false);
    expect(snapshotsEqual(a, { ...a, pid: 1 })).toBe(false);
    expect(snapshotsEqual({ ...a, pid: 1 }, a)).toBe(false);
  });

  it('say why calls cannot reach a server, by state', () => {
    expect(describeUnavailable(def, { kind: 'stopped' }, 0)).toBe('server "s" is not running (stopped): it was stopped or has not been started');
    expect(describeUnavailable(def, { kind: 'disabled' }, 0)).toBe('server "s" is not running (disabled): it is disabled in /w/.vscode/mcp.json');
    expect(describeUnavailable(def, { kind: 'error', message: 'm' }, 0)).toBe('server "s" is not running (error): m');
    expect(describeUnavailable(def, { kind: 'blocked', reason: 'r' }, 0)).toBe('server "s" is not running (blocked): r');
    expect(describeUnavailable(def, { kind: 'starting' }, 0)).toBe(`server "s" is not running (${describeState({ kind: 'starting' }, 0)})`);
  });
});

describe('states in a word', () => {
  it('names the plain states by their kind, and a sign-in by its reason', () => {
    expect(['stopped', 'disabled', 'starting', 'running'].map((kind) => describeState({ kind } as never))).toEqual(['stopped', 'disabled', 'starting', 'running']);
    expect(describeState({ kind: 'auth_required', reason: 'sign-in required' })).toBe('sign-in required');
  });

  it('offers tools of a running or reconnecting server only', () => {
    expect(isServingState({ kind: 'running' })).toBe(true);
    expect(isServingState({ kind: 'reconnecting', attempt: 1, reason: 'x' })).toBe(true);
    for (const kind of ['stopped', 'starting', 'disabled'] as const) expect(isServingState({ kind })).toBe(false);
    expect(isServingState({ kind: 'error', message: 'x' })).toBe(false);
  });
});

describe('describe helpers', () => {
  it('maps MCP log levels onto ours', () => {
    expect(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].map(mapLogLevel)).toEqual(['debug', 'info', 'info', 'warn', 'error', 'error', 'error', 'error']);
  });

  it('cuts text only past its limit, and writes seconds for people', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abcd', 3)).toBe('abc…');
    expect([formatSeconds(30_000), formatSeconds(1500), formatSeconds(50)]).toEqual(['30 s', '1.5 s', '0.1 s']);
  });

  it('names call errors as such', () => {
    expect(new McpCallError('timeout', 'late', -32001)).toMatchObject({ name: 'McpCallError', kind: 'timeout', message: 'late', code: -32001 });
  });
});
