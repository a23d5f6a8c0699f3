import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, SseError } from '@modelcontextprotocol/client';
import { describeError, findCause } from '../base/errors';
import { isAuthFailure, McpAuthRequiredError, McpScopeRequiredError } from '../auth/types';
import { McpCallError } from './McpCallError';
import { formatSeconds } from './describe';

/** JSON-RPC codes the 1.x line used for a local timeout and a closed connection; kept on {@link McpCallError}. */
export const REQUEST_TIMEOUT_CODE = -32001;
export const CONNECTION_CLOSED_CODE = -32000;

/** What a failed call's classification depends on besides the error. */
export interface CallFailureContext {
  /** Whether the caller aborted the call. */
  readonly aborted: boolean;
  readonly timeoutMs: number;
  /** Why the session closed, when it did. */
  readonly closeReason: string | undefined;
  /** Whether the session signs in with OAuth (then a refusal means the sign-in is gone). */
  readonly usesOAuth: boolean;
}

/**
 * A failed call as the caller sees it, and what the failure says about the session: `end` (the
 * sign-in is gone; the connection should say "sign-in required"), `probe` (the request did not get
 * through: is the server still there?) or nothing.
 */
export interface CallFailure {
  readonly error: McpCallError;
  readonly session?: 'end' | 'probe';
}

/** Classifies a call's failure by the error's type and code (never its text). */
export function classifyCallError(err: unknown, ctx: CallFailureContext): CallFailure {
  if (err instanceof McpCallError) return { error: err };
  if (ctx.aborted) return { error: new McpCallError('cancelled', 'the call was cancelled') };
  const scopeRequired = findCause(err, McpScopeRequiredError);
  // The saved sign-in still works for the rest: the session stays; this call needs another sign-in.
  if (scopeRequired) return { error: new McpCallError('unavailable', scopeRequired.message) };
  if (ctx.usesOAuth && isAuthFailure(err)) {
    return { error: new McpCallError('unavailable', 'sign-in required: the saved sign-in is no longer valid, sign in again'), session: 'end' };
  }
  if (err instanceof ProtocolError) {
    return { error: new McpCallError('protocol', `server error ${err.code}: ${err.message.replace(/^MCP error -?\d+: /, '')}`, err.code, err.data) };
  }
  const sdk = err instanceof SdkError ? classifySdkError(err, ctx) : undefined;
  if (sdk) return { error: sdk };
  // Anything else failed below JSON-RPC: the request could not be sent or the stream broke.
  return { error: new McpCallError('connection_closed', `could not reach the server: ${describeError(err)}`), session: 'probe' };
}

function classifySdkError(err: SdkError, ctx: CallFailureContext): McpCallError | undefined {
  switch (err.code) {
    case SdkErrorCode.RequestTimeout:
      return new McpCallError('timeout', `no answer within ${formatSeconds(ctx.timeoutMs)}`, REQUEST_TIMEOUT_CODE);
    case SdkErrorCode.ConnectionClosed:
      return new McpCallError('connection_closed', ctx.closeReason ?? 'the server closed the connection', CONNECTION_CLOSED_CODE);
    case SdkErrorCode.InvalidResult:
      // The SDK validates answers against the MCP schema; this one did not fit.
      return new McpCallError('protocol', `the server's answer is not a valid tool result: ${err.message}`);
    case SdkErrorCode.InputRequiredRoundsExceeded:
      return new McpCallError('protocol', `the server kept asking for input: ${err.message}`);
    default:
      // An HTTP status is a transport failure, handled below JSON-RPC.
      return err instanceof SdkHttpError ? undefined : new McpCallError('protocol', err.message);
  }
}

/** What a failed start's explanation depends on besides the error. */
export interface StartFailureContext {
  /** Why the transport ended during the handshake, or why the session closed. */
  readonly transportEnd: string | undefined;
  readonly startupTimeoutMs: number;
  /** Whether the entry sends its own Authorization header. */
  readonly sendsAuthorization: boolean;
}

/** A failed start as a message fit for a user: what happened, and for a refusal what to change. */
export function explainStartFailure(err: unknown, ctx: StartFailureContext): Error {
  if (err instanceof McpAuthRequiredError) return err;
  if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed && ctx.transportEnd) return new Error(ctx.transportEnd);
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    return new Error(`no answer to initialize within ${formatSeconds(ctx.startupTimeoutMs)}`);
  }
  const status = err instanceof SdkHttpError ? err.status : err instanceof SseError ? err.code : undefined;
  if (status === 401 || status === 403) {
    if (ctx.sendsAuthorization) {
      return new Error(
        `the server refused the connection (HTTP ${status}): the "Authorization" header was sent and rejected. ` +
          `Check that the token is valid, not expired and allowed to use this server, or remove the header to sign in with OAuth`,
      );
    }
    return new Error(
      `the server refused the connection (HTTP ${status}): it needs credentials. Add an "Authorization" header ` +
        `to its entry, e.g. "headers": { "Authorization": "Bearer \${input:token}" }`,
    );
  }
  return new Error(describeError(err));
}

/** Whether `headers` carries an Authorization header (names are case-insensitive). */
export function hasAuthorizationHeader(headers: Readonly<Record<string, string>> | undefined): boolean {
  return Object.keys(headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
}

/**
 * Whether a connect failed because the version probe went unanswered. The SDK's timeout carries
 * the time it waited; the probe's is shorter than `initialize`'s (the startup time), so the two
 * cannot be mistaken for each other.
 */
export function isProbeTimeout(err: unknown, probeTimeoutMs: number): boolean {
  if (!(err instanceof SdkError) || err.code !== SdkErrorCode.RequestTimeout) return false;
  const data = err.data as { timeout?: unknown } | undefined;
  return data?.timeout === probeTimeoutMs;
}

/** Whether a connect failed because the server ended the connection on the version probe. */
export function isProbeRefused(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed;
}

/**
 * Whether the server answered that it has no such method (JSON-RPC -32601). Over Streamable HTTP a
 * 2026-07-28 server sends that error as the body of a 404, which the SDK client reports as an HTTP
 * failure carrying the body.
 */
export function isMethodNotFound(err: unknown): boolean {
  if (err instanceof ProtocolError) return err.code === ProtocolErrorCode.MethodNotFound;
  if (!(err instanceof SdkHttpError) || err.status !== 404) return false;
  const text = (err.data as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') return false;
  try {
    return (JSON.parse(text) as { error?: { code?: unknown } }).error?.code === ProtocolErrorCode.MethodNotFound;
  } catch {
    return false;
  }
}
