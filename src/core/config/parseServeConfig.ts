import { readFile as fsReadFile } from 'node:fs/promises';
import * as path from 'node:path';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { isJsonObject, kindOf } from './configSchema';
import { JsonLocator } from './JsonLocator';
import type { McpConfigError } from './types';

/** The `serve` section of a config file: what `mcp-harness serve` offers to its clients, and its HTTP limits. */
export interface McpServeConfig {
  /** Names or glob patterns offered besides the defaults. */
  readonly expose: readonly string[];
  /** Names or glob patterns never offered; deny wins over expose. */
  readonly deny: readonly string[];
  /** HTTP: a session unused this long is ended (the client initializes again). */
  readonly sessionIdleTimeoutMs?: number;
  /** HTTP: most sessions at once; more are answered 503 with Retry-After. */
  readonly maxSessions?: number;
}

export interface McpServeConfigParseResult {
  readonly config: McpServeConfig;
  readonly errors: readonly McpConfigError[];
}

const LISTS = ['expose', 'deny'] as const;
const LIMITS = ['sessionIdleTimeoutMs', 'maxSessions'] as const;
const FIELDS: readonly string[] = [...LISTS, ...LIMITS];

/**
 * Reads the `serve` section of one config file's text. A missing section is an empty config; a
 * bad field is reported with its JSON path and position and the rest of the section still counts.
 * Syntax errors are left to the server loader, which reports them for the same file.
 */
export function parseServeConfigText(text: string, file: string): McpServeConfigParseResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  const document: unknown = root && syntax.length === 0 ? getNodeValue(root) : undefined;
  const empty: McpServeConfig = { expose: [], deny: [] };
  if (!isJsonObject(document) || document.serve === undefined) return { config: empty, errors: [] };
  const locator = new JsonLocator(text, root);
  const at = (segments: (string | number)[]) => locator.valuePosition(segments) ?? {};
  const section = document.serve;
  if (!isJsonObject(section)) {
    return { config: empty, errors: [{ file, jsonPath: 'serve', ...at(['serve']), message: `expected object, got ${kindOf(section)}` }] };
  }
  const errors: McpConfigError[] = [];
  const lists: Record<(typeof LISTS)[number], string[]> = { expose: [], deny: [] };
  for (const key of LISTS) {
    const value = section[key];
    if (value === undefined) continue;
    if (!Array.isArray(value)) {
      errors.push({ file, jsonPath: `serve.${key}`, ...at(['serve', key]), message: `expected array of names or patterns, got ${kindOf(value)}` });
      continue;
    }
    value.forEach((item, i) => {
      if (typeof item === 'string' && item.trim() !== '') lists[key].push(item.trim());
      else errors.push({ file, jsonPath: `serve.${key}[${i}]`, ...at(['serve', key, i]), message: `expected a name or pattern, got ${kindOf(item)}` });
    });
  }
  const limits: { -readonly [K in (typeof LIMITS)[number]]?: number } = {};
  for (const key of LIMITS) {
    const value = section[key];
    if (value === undefined) continue;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1) limits[key] = value;
    else errors.push({ file, jsonPath: `serve.${key}`, ...at(['serve', key]), message: `expected a positive integer, got ${kindOf(value)}` });
  }
  for (const key of Object.keys(section)) {
    if (!FIELDS.includes(key)) {
      errors.push({ file, jsonPath: `serve.${key}`, ...at(['serve', key]), message: `unknown field (expected ${FIELDS.map((f) => `"${f}"`).join(', ')})` });
    }
  }
  return { config: { ...lists, ...limits }, errors };
}

/** Where a `serve` section was read from; only the user's own files may widen what is offered. */
export type McpServeSource =
  | { readonly kind: 'user'; readonly file: string }
  | { readonly kind: 'explicit'; readonly file: string }
  | { readonly kind: 'workspace'; readonly file: string };

/** A name or pattern with the file it came from. */
export interface McpServeEntry {
  readonly pattern: string;
  readonly source: McpServeSource;
}

/** The `serve` sections of every file, merged, with what a workspace file asked for and did not get. */
export interface McpServeConfigLoadResult {
  readonly expose: readonly McpServeEntry[];
  readonly deny: readonly McpServeEntry[];
  readonly sessionIdleTimeoutMs?: { readonly value: number; readonly source: McpServeSource };
  readonly maxSessions?: { readonly value: number; readonly source: McpServeSource };
  /** Fields of workspace files that would widen `serve` (expose, limits), ignored: each to be reported. */
  readonly ignored: readonly { readonly file: string; readonly field: string; readonly entries: readonly string[] }[];
  readonly errors: readonly McpConfigError[];
}

/**
 * Collects the `serve` sections of the user's config file, of the files given with `--config` and
 * of `.harness/mcp.json` in each folder. A workspace file is the repository's, not the user's: it
 * may only narrow what is offered (its `deny` counts), so its `expose` and its session limits are
 * ignored and listed in `ignored`. Missing files are skipped; unreadable ones are reported.
 */
export async function loadServeConfig(options: {
  /** The user's own config file (e.g. `~/.config/mcp-harness/config.json`). */
  readonly userConfigFile?: string;
  /** Files named on the command line: the user's too. */
  readonly configFiles?: readonly string[];
  readonly workspaceFolders?: readonly string[];
  readonly readFile?: (file: string) => Promise<string>;
}): Promise<McpServeConfigLoadResult> {
  const readFile = options.readFile ?? ((file: string) => fsReadFile(file, 'utf8'));
  const sources: McpServeSource[] = [
    ...(options.userConfigFile ? [{ kind: 'user' as const, file: path.resolve(options.userConfigFile) }] : []),
    ...(options.configFiles ?? []).map((f) => ({ kind: 'explicit' as const, file: path.resolve(f) })),
    ...(options.workspaceFolders ?? []).map((folder) => ({ kind: 'workspace' as const, file: path.join(folder, '.harness', 'mcp.json') })),
  ];
  const parsed = await Promise.all(
    sources.map(async (source) => {
      try {
        return { source, ...parseServeConfigText(await readFile(source.file), source.file) };
      } catch {
        // Missing or unreadable: the server loader reports what matters for the same file.
        return { source, config: { expose: [], deny: [] } as McpServeConfig, errors: [] };
      }
    }),
  );
  return mergeServeSections(parsed);
}

function mergeServeSections(parsed: readonly { source: McpServeSource; config: McpServeConfig; errors: readonly McpConfigError[] }[]): McpServeConfigLoadResult {
  const expose: McpServeEntry[] = [];
  const deny: McpServeEntry[] = [];
  const ignored: { file: string; field: string; entries: string[] }[] = [];
  let sessionIdleTimeoutMs: McpServeConfigLoadResult['sessionIdleTimeoutMs'];
  let maxSessions: McpServeConfigLoadResult['maxSessions'];
  for (const { source, config } of parsed) {
    deny.push(...config.deny.map((pattern) => ({ pattern, source })));
    const own = source.kind !== 'workspace';
    if (own) expose.push(...config.expose.map((pattern) => ({ pattern, source })));
    else if (config.expose.length > 0) ignored.push({ file: source.file, field: 'serve.expose', entries: [...config.expose] });
    for (const key of LIMITS) {
      const value = config[key];
      if (value === undefined) continue;
      if (!own) ignored.push({ file: source.file, field: `serve.${key}`, entries: [String(value)] });
      else if (key === 'maxSessions') maxSessions ??= { value, source };
      else sessionIdleTimeoutMs ??= { value, source };
    }
  }
  return {
    expose,
    deny,
    ...(sessionIdleTimeoutMs ? { sessionIdleTimeoutMs } : {}),
    ...(maxSessions ? { maxSessions } : {}),
    ignored,
    errors: parsed.flatMap((r) => r.errors),
  };
}
