import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, SseError, UnauthorizedError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpAuthRequiredError, McpScopeRequiredError } from '../../../src/core/auth/types';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import { classifyCallError, explainStartFailure, hasAuthorizationHeader, isMethodNotFound, isProbeRefused, isProbeTimeout, type CallFailureContext } from '../../../src/core/mcp/mcpErrors';

const ctx: CallFailureContext = { aborted: false, timeoutMs: 1500, closeReason: undefined, usesOAuth: false };
const http = (status: number) => new SdkHttpError(SdkErrorCode.SendFailed, `HTTP ${status}`, { status });

function classified(err: unknown, extra: Partial<CallFailureContext> = {}) {
  const { error, session } = classifyCallError(err, { ...ctx, ...extra });
  return { kind: error.kind, message: error.message, code: error.code, session };
}

describe('classifyCallError', () => {
  it('passes our own errors through and names a cancelled call first', () => {
    const own = new McpCallError('timeout', 'mine');
    expect(classifyCallError(own, { ...ctx, aborted: true })).toEqual({ error: own });
    expect(classified(new Error('x'), { aborted: true })).toEqual({ kind: 'cancelled', message: 'the call was cancelled', code: undefined, session: undefined });
  });

  it('keeps the session for a missing scope, ends it for a lost sign-in (OAuth only)', () => {
    expect(classified(new Error('wrapped', { cause: new McpScopeRequiredError(['write']) }))).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('(write)'), session: undefined });
    expect(classified(new UnauthorizedError('no'), { usesOAuth: true })).toEqual({
      kind: 'unavailable',
      message: 'sign-in required: the saved sign-in is no longer valid, sign in again',
      code: undefined,
      session: 'end',
    });
    expect(classified(http(401), { usesOAuth: true }).session).toBe('end');
    expect(classified(new McpAuthRequiredError('sign-in required'), { usesOAuth: true }).session).toBe('end');
    expect(classified(http(401)).session).toBe('probe');
  });

  it('reads JSON-RPC errors by code, without the SDK prefix', () => {
    expect(classified(new ProtocolError(-32602, 'MCP error -32602: bad params'))).toEqual({ kind: 'protocol', message: 'server error -32602: bad params', code: -32602, session: undefined });
  });

  it('maps the SDK codes: timeout, closed (with the reason), invalid result, input rounds, others', () => {
    expect(classified(new SdkError(SdkErrorCode.RequestTimeout, 't'))).toEqual({ kind: 'timeout', message: 'no answer within 1.5 s', code: -32001, session: undefined });
    expect(classified(new SdkError(SdkErrorCode.ConnectionClosed, 'c'))).toEqual({ kind: 'connection_closed', message: 'the server closed the connection', code: -32000, session: undefined });
    expect(classified(new SdkError(SdkErrorCode.ConnectionClosed, 'c'), { closeReason: 'exited with code 3' }).message).toBe('exited with code 3');
    expect(classified(new SdkError(SdkErrorCode.InvalidResult, 'bad shape'))).toMatchObject({ kind: 'protocol', message: "the server's answer is not a valid tool result: bad shape" });
    expect(classified(new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, 'ten rounds'))).toMatchObject({ kind: 'protocol', message: 'the server kept asking for input: ten rounds' });
    expect(classified(new SdkError(SdkErrorCode.NotConnected, 'not connected'))).toEqual({ kind: 'protocol', message: 'not connected', code: undefined, session: undefined });
  });

  it('takes anything below JSON-RPC for an unreachable server worth a liveness probe', () => {
    expect(classified(http(502))).toEqual({ kind: 'connection_closed', message: 'could not reach the server: HTTP 502', code: undefined, session: 'probe' });
    expect(classified(new TypeError('fetch failed'))).toMatchObject({ kind: 'connection_closed', session: 'probe', message: expect.stringContaining('fetch failed') });
  });
});

describe('explainStartFailure', () => {
  const start = { transportEnd: undefined, startupTimeoutMs: 30_000, sendsAuthorization: false };

  it('keeps "sign-in required" as it is and names how the transport ended', () => {
    const auth = new McpAuthRequiredError('sign-in required');
    expect(explainStartFailure(auth, start)).toBe(auth);
    expect(explainStartFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), { ...start, transportEnd: 'exited with code 1: boom' }).message).toBe('exited with code 1: boom');
    expect(explainStartFailure(new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), start).message).toBe('closed');
  });

  it('names the time an unanswered initialize took', () => {
    expect(explainStartFailure(new SdkError(SdkErrorCode.RequestTimeout, 't'), start).message).toBe('no answer to initialize within 30 s');
  });

  it('advises on a refusal: check the header that was sent, or add one', () => {
    expect(explainStartFailure(http(403), { ...start, sendsAuthorization: true }).message).toMatch(/^the server refused the connection \(HTTP 403\): the "Authorization" header was sent and rejected/);
    expect(explainStartFailure(http(401), start).message).toMatch(/^the server refused the connection \(HTTP 401\): it needs credentials\. Add an "Authorization" header/);
    expect(explainStartFailure(new SseError(401, 'no', { type: 'error', message: 'no' } as unknown as ConstructorParameters<typeof SseError>[2]), start).message).toMatch(/\(HTTP 401\): it needs credentials/);
    expect(explainStartFailure(http(404), start).message).toBe('HTTP 404');
  });
});

describe('small predicates', () => {
  it('finds an Authorization header in any case', () => {
    expect(hasAuthorizationHeader({ authorization: 'x' })).toBe(true);
    expect(hasAuthorizationHeader({ 'X-Auth': 'x' })).toBe(false);
    expect(hasAuthorizationHeader(undefined)).toBe(false);
  });

  it('tells a probe timeout from initialize timing out, and a refused probe from other failures', () => {
    expect(isProbeTimeout(new SdkError(SdkErrorCode.RequestTimeout, 't', { timeout: 3000 }), 3000)).toBe(true);
    expect(isProbeTimeout(new SdkError(SdkErrorCode.RequestTimeout, 't', { timeout: 30_000 }), 3000)).toBe(false);
    expect(isProbeTimeout(new SdkError(SdkErrorCode.RequestTimeout, 't'), 3000)).toBe(false);
    expect(isProbeTimeout(new SdkError(SdkErrorCode.ConnectionClosed, 't', { timeout: 3000 }), 3000)).toBe(false);
    expect(isProbeTimeout(new Error('t'), 3000)).toBe(false);
    expect(isProbeRefused(new SdkError(SdkErrorCode.EraNegotiationFailed, 'x'))).toBe(true);
    expect(isProbeRefused(new SdkError(SdkErrorCode.ConnectionClosed, 'x'))).toBe(false);
  });
});

describe('isMethodNotFound', () => {
  it('reads -32601 from a JSON-RPC error, or from the body of a 404, and nothing else', () => {
    const notFound = (status: number, text: unknown) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing', { status, text } as never);
    const body = (code: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code, message: 'x' } });
    expect(isMethodNotFound(new ProtocolError(-32601, 'Method not found'))).toBe(true);
    expect(isMethodNotFound(new ProtocolError(-32602, 'Invalid params'))).toBe(false);
    expect(isMethodNotFound(notFound(404, body(-32601)))).toBe(true);
    expect(isMethodNotFound(notFound(404, body(-32603)))).toBe(false);
    expect(isMethodNotFound(notFound(400, body(-32601)))).toBe(false);
    expect(isMethodNotFound(notFound(404, 'not json'))).toBe(false);
    expect(isMethodNotFound(notFound(404, undefined))).toBe(false);
    expect(isMethodNotFound(notFound(404, '{}'))).toBe(false);
    expect(isMethodNotFound(new Error('Method not found'))).toBe(false);
  });
});
