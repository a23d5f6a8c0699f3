import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { HarnessMcpServer } from './HarnessMcpServer';

/**
 * Serves one client over stdio: protocol messages only on `stdout`. Resolves when the client
 * closes its end (stdin ends), after the session was closed and its calls cancelled.
 */
export async function serveStdio(mcp: HarnessMcpServer, stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<void> {
  const transport = new StdioServerTransport(stdin, stdout);
  const closed = new Promise<void>((resolve) => {
    const end = () => {
      stdin.off('end', end);
      stdin.off('close', end);
      void transport.close().finally(resolve);
    };
    stdin.once('end', end);
    stdin.once('close', end);
  });
  await mcp.connect(transport, { transport: 'stdio' });
  await closed;
}
