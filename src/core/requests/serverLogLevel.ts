import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { IRequestConnection } from '../calls/ServerRequests';

/** The revision whose servers take their log level from each request's `_meta`, not `logging/setLevel`. */
const MODERN_REVISION = '2026-07-28';

/**
 * Asks a 2025-era server that offers logging to send its log notifications from `level` up. A
 * server that is not running, does not offer logging, or speaks 2026-07-28 is left alone: the
 * result says which. A failed request is the caller's to log.
 */
export async function applyServerLogLevel(connection: IRequestConnection | undefined, level: LoggingLevel): Promise<'set' | 'not_running' | 'no_logging' | 'modern'> {
  if (!connection || connection.snapshot.state.kind !== 'running') return 'not_running';
  const snapshot = connection.snapshot;
  if (!snapshot.capabilities?.logging) return 'no_logging';
  if (snapshot.protocolVersion === MODERN_REVISION) return 'modern';
  await connection.request({ method: 'logging/setLevel', params: { level } }, { timeoutMs: 10_000, maxTotalTimeoutMs: 10_000 });
  return 'set';
}
