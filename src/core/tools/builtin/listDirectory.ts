import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { formatByteSize } from '../formatToolResult';
import type { BuiltinTool } from '../types';
import { BuiltinArgumentError, defineBuiltin, optionalInteger, optionalString, textResult } from './toolKit';
import { isWithin, type WorkspaceRoots } from './WorkspaceRoots';

const DEFAULT_MAX_ENTRIES = 500;
const MAX_ENTRIES = 5000;

/** `list_directory`: one folder's entries, folders first, with sizes. */
export function createListDirectoryTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'list_directory',
    title: 'List Directory',
    description: 'List the entries of a folder in the workspace: folders first (marked with a trailing /), then files with their sizes.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Folder path, relative to the workspace root (default: the root).' },
        max_entries: { type: 'integer', minimum: 1, maximum: MAX_ENTRIES, description: `Most entries to return (default ${DEFAULT_MAX_ENTRIES}).` },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args) {
      const given = optionalString(args, 'path') ?? '.';
      const max = optionalInteger(args, 'max_entries', { max: MAX_ENTRIES }) ?? DEFAULT_MAX_ENTRIES;
      const dir = await roots.resolveExisting(given);
      const stat = await fs.stat(dir.absolute);
      if (!stat.isDirectory()) throw new BuiltinArgumentError(`"${given}" is not a directory`);
      const entries = await fs.readdir(dir.absolute, { withFileTypes: true });
      const rows = await Promise.all(
        entries.map(async (e) => {
          const full = path.join(dir.absolute, e.name);
          if (e.isSymbolicLink()) {
            const target = await fs.realpath(full).catch(() => undefined);
            const inside = target !== undefined && isWithin(dir.root, target);
            return { name: e.name, dir: false, line: `${e.name} -> ${inside ? path.relative(dir.root, target!) : '(outside the workspace or broken)'}` };
          }
          if (e.isDirectory()) return { name: e.name, dir: true, line: `${e.name}/` };
          const size = await fs.stat(full).then((s) => s.size).catch(() => undefined);
          return { name: e.name, dir: false, line: size === undefined ? e.name : `${e.name} (${formatByteSize(size)})` };
        }),
      );
      rows.sort((a, b) => (a.dir !== b.dir ? (a.dir ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = rows.slice(0, max);
      const header = `${dir.relative === '.' ? '(workspace root)' : dir.relative + '/'}: ${rows.length} entr${rows.length === 1 ? 'y' : 'ies'}`;
      const more = rows.length > shown.length ? `\n…[${rows.length - shown.length} more entries not shown]` : '';
      return textResult([header, ...shown.map((r) => r.line)].join('\n') + more, {
        path: dir.relative,
        entries: shown.map((r) => ({ name: r.name, type: r.dir ? 'directory' : 'file' })),
        total: rows.length,
      });
    },
  });
}
