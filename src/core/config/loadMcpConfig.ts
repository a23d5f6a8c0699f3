import { readFile as fsReadFile } from 'node:fs/promises';
import * as path from 'node:path';
import { discoverServers } from './discoverServers';
import type { McpDiscoveryOptions } from './discoveryLocations';
import { dedupeServers, launchKey, mergeFoundServers } from './mergeFoundServers';
import { mergeServerDefinitions } from './mergeServerDefinitions';
import { parseMcpConfigText } from './parseMcpConfigText';
import { parseServerMap } from './parseServerMap';
import type { McpConfigLoadResult, McpConfigSource } from './types';

/** Server entries the host has already parsed, e.g. from its settings. */
export interface McpUserServers {
  /** Shown as the file of these entries, e.g. `settings.json`. */
  readonly label: string;
  /** Dotted path of the map inside that label, e.g. `mcpHarness.servers`. */
  readonly jsonPath: string;
  /** The server map (name to entry) as parsed; validated like file content. */
  readonly entries: unknown;
}

/** What {@link loadMcpConfig} reads. */
export interface McpConfigLoadOptions {
  /** Absolute paths; each contributes `.vscode/mcp.json`, `.mcp.json` and `.harness/mcp.json`. */
  readonly workspaceFolders?: readonly string[];
  /** Files named explicitly (e.g. `--config`); relative paths resolve against the process cwd. */
  readonly configFiles?: readonly string[];
  readonly userServers?: McpUserServers;
  /** Servers that extensions (or the editor itself) provide, as server maps. */
  readonly providedServers?: readonly McpProvidedServers[];
  /** Also read other agents' files (see `discoverServers`); their servers come last. */
  readonly discover?: McpDiscoveryOptions;
  /** Reads a file as text; defaults to node:fs/promises (utf8). */
  readonly readFile?: (path: string) => Promise<string>;
}

/** A server map that a provider (another extension, the editor) holds; its names are used as given. */
export interface McpProvidedServers extends McpUserServers {
  readonly source: 'extension';
  /**
   * A list that repeats other places (VS Code's own list of servers holds its files' servers too):
   * read after the discovered files, and only servers known nowhere else are taken from it.
   */
  readonly supplementary?: boolean;
}

interface McpPlannedFile {
  readonly file: string;
  readonly source: McpConfigSource;
  readonly workspaceFolder: string | undefined;
  /** Named by the user, so a missing file is worth reporting. */
  readonly explicit: boolean;
}

/** Per-folder files, in precedence order. */
const WORKSPACE_FILES: readonly { readonly segments: readonly string[]; readonly source: McpConfigSource }[] = [
  { segments: ['.vscode', 'mcp.json'], source: 'vscode' },
  { segments: ['.mcp.json'], source: 'claude' },
  { segments: ['.harness', 'mcp.json'], source: 'harness' },
];

const EMPTY: McpConfigLoadResult = { servers: [], errors: [] };

/**
 * Loads every server definition visible from the given folders, files and host entries.
 *
 * Precedence on a name clash (first wins): explicit files in the order given; then for each
 * workspace folder in order `.vscode/mcp.json`, `.mcp.json`, `.harness/mcp.json`; user entries
 * next; then servers that providers give, and last those discovered in other agents' files, which
 * are left out when their name is taken and folded into a configured server with the same command
 * or URL (as another origin of it). Missing workspace files are skipped silently. Never throws
 * for content problems: they are returned in `errors`, and unusable entries come with `problem` set.
 */
export async function loadMcpConfig(options: McpConfigLoadOptions = {}): Promise<McpConfigLoadResult> {
  const readFile = options.readFile ?? ((file: string) => fsReadFile(file, 'utf8'));
  const folders = options.workspaceFolders ?? [];
  const firstFolder = folders.at(0);
  const planned: McpPlannedFile[] = [
    ...(options.configFiles ?? []).map((file) => ({
      file: path.resolve(file),
      source: 'explicit' as const,
      workspaceFolder: firstFolder,
      explicit: true,
    })),
    ...folders.flatMap((folder) =>
      WORKSPACE_FILES.map(({ segments, source }) => ({
        file: path.join(folder, ...segments),
        source,
        workspaceFolder: folder,
        explicit: false,
      })),
    ),
  ];
  const results = await Promise.all(planned.map((p) => loadFile(p, readFile)));
  if (options.userServers) {
    results.push(loadUserServers(options.userServers, firstFolder));
  }
  const configured = mergeServerDefinitions(results.map((r) => r.servers));
  const providers = options.providedServers ?? [];
  const provided = providers.filter((p) => !p.supplementary).map((p) => loadUserServers(p, firstFolder, p.source));
  const supplementary = providers.filter((p) => p.supplementary).map((p) => loadUserServers(p, firstFolder, p.source));
  const discovered = options.discover
    ? await discoverServers({ workspaceFolders: folders, ...options.discover, readFile })
    : EMPTY;
  const found = dedupeServers([...provided.flatMap((r) => r.servers), ...discovered.servers]);
  const servers = mergeFoundServers(configured, found);
  const known = new Set(servers.map(launchKey));
  const names = new Set(servers.map((s) => s.name));
  for (const def of supplementary.flatMap((r) => r.servers)) {
    const key = launchKey(def);
    if (names.has(def.name) || (key !== undefined && known.has(key))) continue;
    names.add(def.name);
    known.add(key);
    servers.push(def);
  }
  return {
    servers,
    errors: [...results, ...provided, discovered, ...supplementary].flatMap((r) => r.errors),
  };
}

async function loadFile(
  planned: McpPlannedFile,
  readFile: (path: string) => Promise<string>,
): Promise<McpConfigLoadResult> {
  let text: string;
  try {
    text = await readFile(planned.file);
  } catch (e) {
    const code = errorCode(e);
    const missing = code === 'ENOENT' || code === 'ENOTDIR';
    if (missing && !planned.explicit) {
      return EMPTY;
    }
    const message = missing ? 'file not found' : `cannot read file (${code ?? String(e)})`;
    return { servers: [], errors: [{ file: planned.file, message }] };
  }
  return parseMcpConfigText(text, planned.file, planned.source, planned.workspaceFolder);
}

function loadUserServers(user: McpUserServers, workspaceFolder: string | undefined, source: 'user' | 'extension' = 'user'): McpConfigLoadResult {
  return parseServerMap(user.entries, {
    file: user.label,
    source,
    workspaceFolder,
    path: user.jsonPath,
    // Stryker disable next-line ArrayDeclaration: host entries have no text to locate segments in
    segments: [],
    inputs: [],
  });
}

function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string') {
    return e.code;
  }
  return undefined;
}
