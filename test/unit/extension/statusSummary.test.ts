import { describe, expect, it } from 'vitest';
import type { McpConnectionState } from '../../../src/core';
import { statusAccessibleLabel, summarizeStates } from '../../../src/extension/statusSummary';

const APPROVAL = 'needs your approval to start';
const awaiting = (s: McpConnectionState) => s.kind === 'blocked' && s.reason === APPROVAL;
const waiting: McpConnectionState = { kind: 'reconnecting', attempt: 4, reason: 'HTTP 502', nextAttemptAt: Date.now() + 30_000 };
const trying: McpConnectionState = { kind: 'reconnecting', attempt: 5, reason: 'HTTP 502' };

describe('summarizeStates', () => {
  it('rests on the plug when every server runs', () => {
    const s = summarizeStates([{ kind: 'running' }, { kind: 'running' }, { kind: 'disabled' }], awaiting);
    expect(s).toMatchObject({ active: 2, running: 2, icon: 'plug', warning: false });
  });

  it('spins while a server starts or a reconnect attempt is under way', () => {
    expect(summarizeStates([{ kind: 'running' }, { kind: 'starting' }], awaiting).icon).toBe('loading~spin');
    expect(summarizeStates([{ kind: 'running' }, trying], awaiting).icon).toBe('loading~spin');
  });

  it('stops spinning while a remote server waits out its backoff, and warns', () => {
    const s = summarizeStates([{ kind: 'running' }, waiting], awaiting);
    expect(s).toMatchObject({ icon: 'debug-disconnect', warning: true, waitingToReconnect: 1, running: 1, active: 2 });
    expect(statusAccessibleLabel(s, 12)).toBe('MCP: 1 of 2 servers running, 12 tools, 1 reconnecting');
  });

  it('calls out approval before sign-in, and sign-in before a reconnect wait', () => {
    const signIn: McpConnectionState = { kind: 'auth_required', reason: 'sign-in required' };
    const approval: McpConnectionState = { kind: 'blocked', reason: APPROVAL };
    expect(summarizeStates([signIn, waiting, approval], awaiting).icon).toBe('shield');
    const s = summarizeStates([signIn, waiting], awaiting);
    expect(s.icon).toBe('account');
    expect(s.needSignIn).toBe(1);
    expect(statusAccessibleLabel(s, 0)).toBe('MCP: 0 of 2 servers running, 0 tools, 1 reconnecting, 1 needs sign-in');
  });

  it('warns for a server in error, not for one blocked by trust', () => {
    const e = summarizeStates([{ kind: 'error', message: 'boom' }, { kind: 'running' }], awaiting);
    expect(e).toMatchObject({ failed: 1, warning: true, icon: 'plug' });
    expect(statusAccessibleLabel(e, 3)).toBe('MCP: 1 of 2 servers running, 3 tools, 1 in error');
    expect(summarizeStates([{ kind: 'blocked', reason: 'workspace is not trusted' }], awaiting)).toMatchObject({ warning: false, icon: 'plug', awaitingApproval: 0 });
  });
});
