import { serveStdio as sdkServeStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Readable, Writable } from 'node:stream';
import type { HarnessMcpServer } from './HarnessMcpServer';

/**
 * Serves one client over stdio, in whichever revision it opens with: `server/discover` and
 * per-request `_meta` (2026-07-28), or `initialize` (2025-11-25 and older). Protocol messages
 * only on `stdout`. Resolves when the client closes its end (stdin ends), after the connection
 * was closed and its calls cancelled.
 */
export async function serveStdio(
  mcp: HarnessMcpServer,
  stdin: Readable = process.stdin,
  stdout: Writable = process.stdout,
  onError: (err: Error) => void = () => undefined,
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      stdin.off('end', end);
      stdin.off('close', end);
      resolve();
    };
    stdin.once('end', end);
    stdin.once('close', end);
  });
  // The factory runs once for the connection, and once more for a `server/discover` probe the client then abandons.
  const handle = sdkServeStdio(() => mcp.createServer({ transport: 'stdio' }, true), { transport: new StdioServerTransport(stdin, stdout), onerror: onError });
  await closed;
  await handle.close();
}
