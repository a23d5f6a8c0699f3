import { readFile as fsReadFile } from 'node:fs/promises';
import { isJsonObject } from './configSchema';
import { discoveryLocations, type McpDiscoveryLocation, type McpDiscoveryOptions } from './discoveryLocations';
import type { JsonPathSegment } from './jsonPath';
import { dedupeServers, isHarnessGateway } from './mergeFoundServers';
import { parseInputs } from './parseInputs';
import { readConfigDocument } from './parseMcpConfigText';
import { childScope, type McpParseScope } from './parseScope';
import { parseServerMap } from './parseServerMap';
import type { McpConfigError, McpConfigLoadResult, McpServerDefinition } from './types';

/** What {@link discoverServers} reads, and how. */
export interface McpDiscoverOptions extends McpDiscoveryOptions {
  /** Reads a file as text; defaults to node:fs/promises (utf8). */
  readonly readFile?: (path: string) => Promise<string>;
}

/** Servers found in other agents' files, each once, and what was wrong in those files. */
export interface McpDiscoveryResult extends McpConfigLoadResult {
  /** The files that were looked at, found or not. */
  readonly locations: readonly McpDiscoveryLocation[];
}

/**
 * Reads every server that other agents (VS Code's user `mcp.json`, Claude Code, Claude Desktop,
 * Cursor) have configured on this machine. A missing file is skipped; a file that cannot be
 * parsed, or a broken entry, is an error naming the file (and field) while the rest is still read.
 * The same command or URL found in two places comes back once, with the other place in
 * `origin.alsoIn`. Names are kept as written, so two different servers may share one. Entries
 * that run MCP Harness's own gateway are left out.
 */
export async function discoverServers(options: McpDiscoverOptions = {}): Promise<McpDiscoveryResult> {
  const readFile = options.readFile ?? ((file: string) => fsReadFile(file, 'utf8'));
  const locations = discoveryLocations(options);
  const workspaceFolder = options.workspaceFolders?.at(0);
  const results = await Promise.all(locations.map((l) => readLocation(l, readFile, workspaceFolder)));
  return {
    servers: dedupeServers(results.flatMap((r) => r.servers).filter((d) => !isHarnessGateway(d))),
    errors: results.flatMap((r) => r.errors),
    locations,
  };
}

/** Parses one discovered file's text (exported for hosts that hold the text themselves). */
export function parseDiscoveredText(text: string, location: McpDiscoveryLocation, workspaceFolder?: string): McpConfigLoadResult {
  const read = readConfigDocument(text, location.file);
  if (!read.ok) return read.error;
  const { document, locator } = read.value;
  const top: McpParseScope = { file: location.file, source: location.source, workspaceFolder, path: '', segments: [], locator, inputs: [] };
  const parsedInputs = location.inputs ? parseInputs(document.inputs, childScope(top, 'inputs')) : { inputs: [], errors: [] };
  const servers: McpServerDefinition[] = [];
  const errors: McpConfigError[] = [...parsedInputs.errors];
  for (const segments of location.maps) {
    const map = valueAt(document, segments);
    if (map === undefined) continue;
    const result = parseServerMap(map, childScope({ ...top, inputs: parsedInputs.inputs }, ...segments));
    servers.push(...result.servers);
    errors.push(...result.errors);
  }
  return { servers, errors };
}

async function readLocation(
  location: McpDiscoveryLocation,
  readFile: (path: string) => Promise<string>,
  workspaceFolder: string | undefined,
): Promise<McpConfigLoadResult> {
  let text: string;
  try {
    text = await readFile(location.file);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { servers: [], errors: [] };
    return { servers: [], errors: [{ file: location.file, message: `cannot read file (${code ?? String(e)})` }] };
  }
  return parseDiscoveredText(text, location, workspaceFolder);
}

function valueAt(document: Record<string, unknown>, segments: readonly JsonPathSegment[]): unknown {
  let value: unknown = document;
  for (const segment of segments) {
    if (!isJsonObject(value) || !Object.hasOwn(value, segment)) return undefined;
    value = value[segment];
  }
  return value;
}

function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}
