import type { BuiltinTool } from '../types';
import { BuiltinArgumentError, defineBuiltin, optionalInteger, optionalString, requiredString, textResult } from './toolKit';
import { compileGlob } from './linearPattern';
import { walkFiles } from './walkFiles';
import type { WorkspaceRoots } from './WorkspaceRoots';

const DEFAULT_MAX_RESULTS = 500;
const MAX_RESULTS = 10_000;

/** `glob_search`: files whose path matches a glob, relative to a folder of the workspace. */
export function createGlobSearchTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'glob_search',
    title: 'Find Files by Glob',
    description:
      'Find files in the workspace whose path matches a glob pattern (e.g. "**/*.ts", "src/*.json"). Paths are relative ' +
      'to the search folder; "*" and "?" stay inside one folder, "**" crosses folders, "{a,b}" and "[abc]" as usual, a leading "!" negates. .git and node_modules are skipped.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern, e.g. "**/*.md".' },
        path: { type: 'string', description: 'Folder to search (default: the workspace root).' },
        max_results: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, description: `Most paths to return (default ${DEFAULT_MAX_RESULTS}).` },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, signal) {
      const pattern = requiredString(args, 'pattern');
      if (pattern === '') throw new BuiltinArgumentError('argument "pattern" must not be empty');
      const max = optionalInteger(args, 'max_results', { max: MAX_RESULTS }) ?? DEFAULT_MAX_RESULTS;
      const base = await roots.resolveExisting(optionalString(args, 'path') ?? '.');
      const matcher = compileGlob(pattern, { argument: 'pattern' });
      const found: string[] = [];
      let more = false;
      for await (const file of walkFiles(base.absolute, base.root, signal)) {
        if (!matcher.test(file.relative)) continue;
        if (found.length >= max) {
          more = true;
          break;
        }
        found.push(file.relative);
      }
      const where = base.relative === '.' ? 'the workspace' : base.relative;
      const text = found.length === 0 ? `No files in ${where} match "${pattern}".` : found.join('\n') + (more ? `\n…[more than ${max} matches; narrow the pattern]` : '');
      return textResult(text, { files: found, truncated: more });
    },
  });
}
