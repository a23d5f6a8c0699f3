import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { BuiltinTool } from '../types';
import { compileGlob, compileRegex, type LinearMatcher } from './linearPattern';
import {
  defineBuiltin,
  looksBinary,
  optionalBoolean,
  optionalInteger,
  optionalString,
  optionalStringList,
  requiredString,
  SNIFF_BYTES,
  textResult,
} from './toolKit';
import { walkFiles } from './walkFiles';
import type { WorkspaceRoots } from './WorkspaceRoots';

const DEFAULT_MAX_RESULTS = 200;
const MAX_RESULTS = 5000;
/** Files larger than this are not searched (generated bundles, logs, data). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_LINE_CHARS = 400;
/** Only this much of a longer line (minified code) is searched, so no single line can stall a search. */
const MAX_SEARCHED_CHARS = 20_000;

/** `grep_search`: lines matching a regular expression, as `path:line: text`. */
export function createGrepSearchTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'grep_search',
    title: 'Search File Contents',
    description:
      'Search text files in the workspace for a regular expression (RE2 syntax, as in JavaScript without backreferences or lookaround; matching takes linear time). Returns "path:line: text" per ' +
      'matching line, up to a cap (lines longer than 20,000 characters are searched in their start). "include" limits the files by glob (a pattern without "/" matches file names at any depth). ' +
      'Binary files, .git and node_modules are skipped.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Regular expression, e.g. "TODO|FIXME".' },
        path: { type: 'string', description: 'Folder or file to search (default: the workspace root).' },
        include: {
          anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
          description: 'Glob(s) of files to search, e.g. "*.ts" or ["src/**/*.ts", "*.md"].',
        },
        case_sensitive: { type: 'boolean', description: 'Match case exactly (default true).' },
        max_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, description: `Most matching lines to return (default ${DEFAULT_MAX_RESULTS}).` },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, signal) {
      const source = requiredString(args, 'pattern');
      const caseSensitive = optionalBoolean(args, 'case_sensitive') ?? true;
      const regex = compileRegex(source, { caseSensitive, argument: 'pattern' });
      const include = optionalStringList(args, 'include');
      const matchers = include?.map((glob) => compileGlob(glob, { argument: 'include', basename: true }));
      const max = optionalInteger(args, 'max_results', { max: MAX_RESULTS }) ?? DEFAULT_MAX_RESULTS;
      const base = await roots.resolveExisting(optionalString(args, 'path') ?? '.');
      const single = (await fs.stat(base.absolute)).isFile();
      const files = single ? oneFile(base.absolute, base.relative) : walkFiles(base.absolute, base.root, signal);
      const hits: string[] = [];
      let filesWithHits = 0;
      let capped = false;
      for await (const file of files) {
        if (signal?.aborted) break;
        if (matchers && !single && !matchers.some((m) => m.test(file.relative))) continue;
        const shown = single ? file.relative : base.relative === '.' ? file.relative : `${base.relative}/${file.relative}`;
        const found = await searchFile(file.absolute, shown, regex, max - hits.length, signal);
        if (found.lines.length > 0) filesWithHits++;
        hits.push(...found.lines);
        if (found.capped) {
          capped = true;
          break;
        }
      }
      if (hits.length === 0) return textResult(`No matches for /${source}/ in ${base.relative === '.' ? 'the workspace' : base.relative}.`, { matches: 0 });
      const note = capped ? `\n…[stopped at ${max} matching lines; narrow the pattern or the path]` : '';
      return textResult(hits.join('\n') + note, { matches: hits.length, files: filesWithHits, truncated: capped });
    },
  });
}

async function* oneFile(absolute: string, relative: string) {
  yield { absolute, relative };
}

/** Matching lines of one text file, at most `room`; `capped` when more were left. */
async function searchFile(file: string, shown: string, regex: LinearMatcher, room: number, signal: AbortSignal | undefined): Promise<{ lines: string[]; capped: boolean }> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.size > MAX_FILE_BYTES || stat.size === 0) return { lines: [], capped: false };
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (!handle) return { lines: [], capped: false };
  try {
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    await handle.read(head, 0, head.length, 0);
    if (looksBinary(head)) return { lines: [], capped: false };
  } finally {
    await handle.close();
  }
  const stream = createReadStream(file, { encoding: 'utf8' });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let n = 0;
  try {
    for await (const line of reader) {
      if (signal?.aborted) break;
      n++;
      if (!regex.test(line.length > MAX_SEARCHED_CHARS ? line.slice(0, MAX_SEARCHED_CHARS) : line)) continue;
      if (lines.length >= room) return { lines, capped: true };
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
      lines.push(`${shown}:${n}: ${text}`);
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  return { lines, capped: false };
}
