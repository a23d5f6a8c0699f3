import * as path from 'node:path';

/** How another MCP client starts `mcp-harness serve --gateway` for one workspace folder. */
export interface ServeLaunch {
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
}

/** The launch of the bundled CLI (`dist/cli.js` of the installed extension or package) for `folder`. */
export function serveLaunch(packageRoot: string, folder: string, node: string): ServeLaunch {
  return { command: node, args: [path.join(packageRoot, 'dist', 'cli.js'), 'serve', '--gateway', '--workspace', folder], cwd: folder };
}

/** A ready `mcpServers` entry (Claude Desktop, Claude Code, Cursor), as pretty JSON. */
export function mcpServersEntry(launch: ServeLaunch, name = 'mcp-harness'): string {
  return JSON.stringify({ mcpServers: { [name]: { command: launch.command, args: launch.args, cwd: launch.cwd } } }, null, 2);
}
