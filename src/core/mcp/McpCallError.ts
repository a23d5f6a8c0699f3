/** Why a tool call did not produce a result from the server. */
export type McpCallFailureKind =
  /** The call's own timeout passed. */
  | 'timeout'
  /** The caller aborted it. */
  | 'cancelled'
  /** The server went away while the call was in flight. */
  | 'connection_closed'
  /** The server is not running (stopped, in error, blocked, disabled). */
  | 'unavailable'
  /** The server answered with a JSON-RPC error, or an answer that breaks the protocol. */
  | 'protocol';

/** A tool call failure that is not the tool's own `isError` result. */
export class McpCallError extends Error {
  constructor(
    readonly kind: McpCallFailureKind,
    message: string,
    readonly code?: number,
    /** The JSON-RPC error's `data`, as the server sent it (e.g. the pages a -32042 error asks for). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}
