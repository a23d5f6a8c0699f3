import { createTwoFilesPatch } from 'diff';
import * as fs from 'node:fs/promises';
import type { BuiltinTool } from '../types';
import { BuiltinArgumentError, defineBuiltin, looksBinary, optionalBoolean, requiredString, SNIFF_BYTES, textResult } from './toolKit';
import type { WorkspaceRoots } from './WorkspaceRoots';

/** Largest file `edit_file` rewrites. */
const MAX_EDIT_BYTES = 8 * 1024 * 1024;

/** `edit_file`: replaces an exact string, once (or everywhere), and shows the unified diff. */
export function createEditFileTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'edit_file',
    title: 'Edit File',
    description:
      'Replace an exact string in a text file of the workspace. old_string must occur exactly once (include surrounding ' +
      'lines to make it unique) unless replace_all is true. Returns a unified diff of the change.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace root or absolute inside it.' },
        old_string: { type: 'string', description: 'Text to replace, exactly as it appears in the file.' },
        new_string: { type: 'string', description: 'Replacement text.' },
        replace_all: { type: 'boolean', description: 'Replace every occurrence instead of requiring exactly one.' },
      },
      required: ['path', 'old_string', 'new_string'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args) {
      const given = requiredString(args, 'path');
      const oldString = requiredString(args, 'old_string');
      const newString = requiredString(args, 'new_string');
      const replaceAll = optionalBoolean(args, 'replace_all') ?? false;
      if (oldString === '') throw new BuiltinArgumentError('argument "old_string" must not be empty (use write_file to create a file)');
      if (oldString === newString) throw new BuiltinArgumentError('"old_string" and "new_string" are the same; nothing to change');
      const file = await roots.resolveExisting(given);
      const stat = await fs.stat(file.absolute);
      if (!stat.isFile()) throw new BuiltinArgumentError(`"${given}" is not a regular file`);
      if (stat.size > MAX_EDIT_BYTES) throw new BuiltinArgumentError(`"${given}" is too large to edit (${stat.size} bytes)`);
      const bytes = await fs.readFile(file.absolute);
      if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) throw new BuiltinArgumentError(`"${given}" is a binary file`);
      const before = bytes.toString('utf8');
      const count = countOccurrences(before, oldString);
      if (count === 0) throw new BuiltinArgumentError(`old_string was not found in ${file.relative}; no change made (it must match exactly, whitespace included)`);
      if (count > 1 && !replaceAll) {
        throw new BuiltinArgumentError(
          `old_string occurs ${count} times in ${file.relative}; no change made. Add surrounding lines to make it unique, or pass replace_all: true`,
        );
      }
      const after = replaceAll ? before.split(oldString).join(newString) : replaceOnce(before, oldString, newString);
      await fs.writeFile(file.absolute, after, 'utf8');
      const diff = createTwoFilesPatch(`a/${file.relative}`, `b/${file.relative}`, before, after, undefined, undefined, { context: 3 });
      const summary = `Edited ${file.relative}: ${count} replacement${count === 1 ? '' : 's'}.`;
      return textResult(`${summary}\n${stripHeader(diff)}`, { path: file.relative, replacements: count, diff: stripHeader(diff) });
    },
  });
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}

function replaceOnce(text: string, needle: string, replacement: string): string {
  const i = text.indexOf(needle);
  return text.slice(0, i) + replacement + text.slice(i + needle.length);
}

/** jsdiff starts with an `Index:` line and a `===` rule; a unified diff starts at `---`. */
function stripHeader(patch: string): string {
  const start = patch.indexOf('--- ');
  return start > 0 ? patch.slice(start) : patch;
}
