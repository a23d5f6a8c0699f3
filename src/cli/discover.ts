import * as os from 'node:os';
import { describeLaunch, describeOrigin, discoverServers, formatConfigError, foundServerStatus, loadMcpConfig, type McpFoundServerStatus } from '../core';
import type { CliOptions } from './CliOptions';
import { oneLine, renderTable } from './table';

/**
 * `list --discover`: the servers other agents configured on this machine (VS Code's user
 * `mcp.json`, Claude Code, Claude Desktop, Cursor), where each is written, what it runs, and
 * whether it is configured here already. Starts nothing. Exit 0, even with config errors.
 */
export async function runDiscover(options: CliOptions): Promise<number> {
  const home = os.homedir();
  const [configured, found] = await Promise.all([
    loadMcpConfig({ workspaceFolders: [options.workspace], configFiles: options.configFiles }),
    discoverServers({ home, workspaceFolders: [options.workspace] }),
  ]);
  const errors = found.errors.map((e) => formatConfigError(e));
  const servers = found.servers.map((def) => ({ def, status: foundServerStatus(configured.servers, def) }));
  if (options.json) {
    const rows = servers.map(({ def, status }) => ({
      name: def.name,
      transport: def.type ?? null,
      launch: describeLaunch(def),
      origin: def.origin,
      origins: [def.origin, ...(def.origin.alsoIn ?? [])].map((o) => ({ source: o.source, file: o.file, line: o.line ?? null })),
      status: def.problem ? 'broken' : status.kind,
      ...(status.kind === 'configured' ? { configuredAs: status.as } : {}),
      problem: def.problem ?? null,
    }));
    process.stdout.write(JSON.stringify({ servers: rows, files: found.locations.map((l) => l.file), configErrors: errors }, null, 2) + '\n');
    return 0;
  }
  if (servers.length === 0) {
    process.stdout.write(`No MCP servers found in other agents' files:\n${found.locations.map((l) => `  ${l.file}`).join('\n')}\n`);
  } else {
    const rows = servers.map(({ def, status }) => [
      def.name,
      [def.origin, ...(def.origin.alsoIn ?? [])].map((o) => describeOrigin(o, home)).join(', '),
      def.problem ? '(broken: see the config errors)' : oneLine(describeLaunch(def), 80),
      def.problem ? 'broken, not imported' : statusText(status),
    ]);
    process.stdout.write(renderTable(['NAME', 'FROM', 'COMMAND/URL', 'STATUS'], rows) + '\n');
  }
  if (errors.length) process.stderr.write(`\nConfig errors:\n${errors.map((l) => `  ${l}`).join('\n')}\n`);
  return 0;
}

function statusText(status: McpFoundServerStatus): string {
  switch (status.kind) {
    case 'new':
      return 'would be imported';
    case 'configured':
      return `configured already as ${status.as}`;
    case 'name-taken':
      return `name taken by ${describeOrigin(status.by.origin)}`;
  }
}
