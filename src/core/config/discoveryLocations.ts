import * as os from 'node:os';
import * as path from 'node:path';
import type { JsonPathSegment } from './jsonPath';
import type { McpDiscoverySource } from './types';

/** Where to look for servers configured elsewhere. Every field has a default from this machine. */
export interface McpDiscoveryOptions {
  /** The user's home folder (default `os.homedir()`). */
  readonly home?: string;
  readonly platform?: NodeJS.Platform;
  /** For `APPDATA` and `XDG_CONFIG_HOME` (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Folders whose Claude Code project entries (`projects[folder].mcpServers`) are read. */
  readonly workspaceFolders?: readonly string[];
  /**
   * The VS Code profile's `User` folder whose `mcp.json` is read (the editor knows the current
   * profile's); default the default profile of VS Code. `false` skips it (a host that reads it itself).
   */
  readonly vscodeUserFolder?: string | false;
  /** Which kinds of file to read (default all). */
  readonly sources?: readonly McpDiscoverySource[];
}

/** One file to read and the server maps inside it. */
export interface McpDiscoveryLocation {
  readonly source: McpDiscoverySource;
  /** Who writes this file, for people: `Claude Desktop`. */
  readonly agent: string;
  readonly file: string;
  /** JSON paths of the server maps in the file; a missing one is skipped. */
  readonly maps: readonly (readonly JsonPathSegment[])[];
  /** Whether the file's `inputs` apply (VS Code's format). */
  readonly inputs: boolean;
}

/** Who writes each kind of file. */
export const DISCOVERY_AGENTS: Readonly<Record<McpDiscoverySource, string>> = {
  'vscode-user': 'VS Code',
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
};

const ALL_SOURCES: readonly McpDiscoverySource[] = ['vscode-user', 'claude-code', 'claude-desktop', 'cursor'];

/**
 * The files other agents keep their servers in, on this platform, in the order they are read:
 * VS Code's user `mcp.json`, Claude Code's `~/.claude.json` (its own `mcpServers` and those of
 * each workspace folder's project), Claude Desktop's `claude_desktop_config.json` and Cursor's
 * `~/.cursor/mcp.json`. A project's `.mcp.json` is a workspace file and is read as one already.
 */
export function discoveryLocations(options: McpDiscoveryOptions = {}): McpDiscoveryLocation[] {
  const home = options.home ?? os.homedir();
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const appData = appDataFolder(home, platform, env, paths);
  const wanted = new Set(options.sources ?? ALL_SOURCES);
  const folders = options.workspaceFolders ?? [];
  const vscodeUser = options.vscodeUserFolder ?? paths.join(appData, 'Code', 'User');
  const all: McpDiscoveryLocation[] = [
    ...(vscodeUser === false ? [] : [location('vscode-user', paths.join(vscodeUser, 'mcp.json'), [['servers']], true)]),
    location('claude-code', paths.join(home, '.claude.json'), [['mcpServers'], ...projectKeys(folders).map((key) => ['projects', key, 'mcpServers'])]),
    location('claude-desktop', paths.join(appData, 'Claude', 'claude_desktop_config.json'), [['mcpServers']]),
    location('cursor', paths.join(home, '.cursor', 'mcp.json'), [['mcpServers']]),
  ];
  return all.filter((l) => wanted.has(l.source));
}

function location(source: McpDiscoverySource, file: string, maps: JsonPathSegment[][], inputs = false): McpDiscoveryLocation {
  return { source, agent: DISCOVERY_AGENTS[source], file, maps, inputs };
}

/** Where desktop apps keep their settings: `~/.config` (or XDG), `~/Library/Application Support`, `%APPDATA%`. */
function appDataFolder(home: string, platform: NodeJS.Platform, env: McpDiscoveryOptions['env'] & object, paths: path.PlatformPath): string {
  if (platform === 'win32') return env.APPDATA || paths.join(home, 'AppData', 'Roaming');
  if (platform === 'darwin') return paths.join(home, 'Library', 'Application Support');
  return env.XDG_CONFIG_HOME || paths.join(home, '.config');
}

/** Claude Code keys projects by their absolute path; on Windows it writes forward slashes too. */
function projectKeys(folders: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const folder of folders) {
    keys.add(folder);
    keys.add(folder.replace(/\\/g, '/'));
  }
  return [...keys];
}
