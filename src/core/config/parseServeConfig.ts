import { readFile as fsReadFile } from 'node:fs/promises';
import * as path from 'node:path';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { isJsonObject, kindOf } from './configSchema';
import { JsonLocator } from './JsonLocator';
import type { McpConfigError } from './types';

/** The `serve` section of `.harness/mcp.json`: what `mcp-harness serve` offers to its clients. */
export interface McpServeConfig {
  /** Names or glob patterns offered besides the defaults. */
  readonly expose: readonly string[];
  /** Names or glob patterns never offered; deny wins over expose. */
  readonly deny: readonly string[];
}

export interface McpServeConfigLoadResult {
  readonly config: McpServeConfig;
  readonly errors: readonly McpConfigError[];
}

const LISTS = ['expose', 'deny'] as const;

/**
 * Reads the `serve` section of one config file's text. A missing section is an empty config; a
 * bad field is reported with its JSON path and position and the rest of the section still counts.
 * Syntax errors are left to the server loader, which reports them for the same file.
 */
export function parseServeConfigText(text: string, file: string): McpServeConfigLoadResult {
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
  for (const key of Object.keys(section)) {
    if (!(LISTS as readonly string[]).includes(key)) {
      errors.push({ file, jsonPath: `serve.${key}`, ...at(['serve', key]), message: 'unknown field (expected "expose" or "deny")' });
    }
  }
  return { config: lists, errors };
}

/**
 * Collects the `serve` sections of `.harness/mcp.json` in each folder and of the explicit files
 * (lists are concatenated). Missing files are skipped; unreadable ones are reported.
 */
export async function loadServeConfig(options: {
  readonly workspaceFolders?: readonly string[];
  readonly configFiles?: readonly string[];
  readonly readFile?: (file: string) => Promise<string>;
}): Promise<McpServeConfigLoadResult> {
  const readFile = options.readFile ?? ((file: string) => fsReadFile(file, 'utf8'));
  const files = [
    ...(options.configFiles ?? []).map((f) => path.resolve(f)),
    ...(options.workspaceFolders ?? []).map((folder) => path.join(folder, '.harness', 'mcp.json')),
  ];
  const results = await Promise.all(
    files.map(async (file) => {
      try {
        return parseServeConfigText(await readFile(file), file);
      } catch {
        // Missing or unreadable: the server loader reports what matters for the same file.
        return { config: { expose: [], deny: [] }, errors: [] };
      }
    }),
  );
  return {
    config: { expose: results.flatMap((r) => r.config.expose), deny: results.flatMap((r) => r.config.deny) },
    errors: results.flatMap((r) => r.errors),
  };
}
