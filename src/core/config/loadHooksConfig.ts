import { readFile as fsReadFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { HookDefinition, HookSource } from './hookTypes';
import type { JsonPathSegment } from './jsonPath';
import { parseHooksConfigText, parseHooksValue } from './parseHooksConfig';
import type { McpConfigError } from './types';

/** Hooks the host holds itself (an editor setting): a map of events, already parsed. */
export interface HookUserEntries {
  /** Shown as the file of these entries, e.g. `settings.json`. */
  readonly label: string;
  /** Path of the value inside that label, e.g. `['mcpHarness', 'hooks']`. */
  readonly path: readonly JsonPathSegment[];
  readonly value: unknown;
}

/** Where hooks come from. */
export interface HooksLoadOptions {
  /** Each contributes `.harness/hooks.json` (and `.claude/settings.json` with `claudeSettings`). */
  readonly workspaceFolders?: readonly string[];
  /** The user's own hooks (an editor setting). */
  readonly user?: HookUserEntries;
  /** Files of the user's own (the CLI's user file); a missing one is skipped. */
  readonly userFiles?: readonly string[];
  /** Files named explicitly (`--hooks`); a missing one is an error. */
  readonly files?: readonly string[];
  /** Also read the `hooks` of each folder's `.claude/settings.json` (Claude Code's project settings). */
  readonly claudeSettings?: boolean;
  readonly readFile?: (file: string) => Promise<string>;
}

export interface HooksLoadResult {
  readonly hooks: readonly HookDefinition[];
  readonly errors: readonly McpConfigError[];
}

interface PlannedHooksFile {
  readonly file: string;
  readonly source: HookSource;
  readonly workspaceFolder?: string;
  readonly required: boolean;
}

/**
 * Loads every hook visible from the given places, in the order they run: the user's (setting,
 * then user files), explicit files, then per folder `.harness/hooks.json` and (opted in)
 * `.claude/settings.json`. Never throws for what a file contains: problems come back in `errors`.
 */
export async function loadHooksConfig(options: HooksLoadOptions): Promise<HooksLoadResult> {
  const readFile = options.readFile ?? ((file: string) => fsReadFile(file, 'utf8'));
  const folders = options.workspaceFolders ?? [];
  const planned: PlannedHooksFile[] = [
    ...(options.userFiles ?? []).map((file) => ({ file: path.resolve(file), source: 'user' as const, workspaceFolder: folders[0], required: false })),
    ...(options.files ?? []).map((file) => ({ file: path.resolve(file), source: 'explicit' as const, workspaceFolder: folders[0], required: true })),
    ...folders.flatMap((folder) => [
      { file: path.join(folder, '.harness', 'hooks.json'), source: 'workspace' as const, workspaceFolder: folder, required: false },
      ...(options.claudeSettings ? [{ file: path.join(folder, '.claude', 'settings.json'), source: 'claude' as const, workspaceFolder: folder, required: false }] : []),
    ]),
  ];
  const fromFiles = await Promise.all(planned.map((p) => loadFile(p, readFile)));
  const user = options.user
    ? parseHooksValue(options.user.value, { source: 'user', file: options.user.label, basePath: options.user.path, ...(folders[0] !== undefined ? { workspaceFolder: folders[0] } : {}) })
    : { hooks: [], errors: [] };
  const results = [user, ...fromFiles];
  return { hooks: results.flatMap((r) => r.hooks), errors: results.flatMap((r) => r.errors) };
}

async function loadFile(planned: PlannedHooksFile, readFile: (file: string) => Promise<string>): Promise<HooksLoadResult> {
  let text: string;
  try {
    text = await readFile(planned.file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    const missing = code === 'ENOENT' || code === 'ENOTDIR';
    if (missing && !planned.required) return { hooks: [], errors: [] };
    return { hooks: [], errors: [{ file: planned.file, message: missing ? 'file not found' : `cannot read file (${code ?? String(err)})` }] };
  }
  return parseHooksConfigText(text, { source: planned.source, file: planned.file, ...(planned.workspaceFolder !== undefined ? { workspaceFolder: planned.workspaceFolder } : {}) });
}
