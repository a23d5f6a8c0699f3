import { createTwoFilesPatch } from 'diff';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fail, ok, type Result } from '../base/result';
import type { HarnessTool } from '../tools/types';

/** What a tool that changes things does, when the card can show it before it runs. */
export type ChangeKind = 'write' | 'edit' | 'command';

/** Largest file a card reads to show a change. */
const MAX_PREVIEW_BYTES = 1024 * 1024;
/** Lines of unified diff a card shows; "Preview Change" shows the whole change. */
export const SHORT_DIFF_LINES = 40;

const KIND_BY_NAME: Readonly<Record<string, ChangeKind>> = { write_file: 'write', edit_file: 'edit', run_command: 'command' };

/** `write_file`, `edit_file` and `run_command` (built-in, or a server's tool of that name). */
export function changeKindOf(tool: Pick<HarnessTool, 'originalName'>): ChangeKind | undefined {
  return Object.hasOwn(KIND_BY_NAME, tool.originalName) ? KIND_BY_NAME[tool.originalName] : undefined;
}

/**
 * Whether a call may change things, so its card warns: a write or a command by name, or a tool
 * annotated `destructiveHint` or explicitly not read-only. A tool that says `readOnlyHint: true`
 * never counts; a tool without annotations says nothing either way and keeps the plain card.
 */
export function changesThings(tool: Pick<HarnessTool, 'originalName' | 'annotations'>): boolean {
  const a = tool.annotations;
  if (a?.readOnlyHint === true) return false;
  return changeKindOf(tool) !== undefined || a?.destructiveHint === true || a?.readOnlyHint === false;
}

/** `run_command`'s command line and the folder it runs in (the first workspace folder by default). */
export function commandOf(args: unknown, folders: readonly string[]): { line: string; cwd: string } | undefined {
  const a = asRecord(args);
  if (typeof a.command !== 'string') return undefined;
  const root = folders[0] ?? '.';
  const cwd = typeof a.cwd === 'string' && a.cwd !== '' ? path.resolve(root, a.cwd) : root;
  return { line: a.command, cwd };
}

/** A file's content before and after a write or an edit, as the call would leave it. */
export interface FileChange {
  /** As the tool was given it, and resolved (relative paths against the first workspace folder). */
  readonly path: string;
  readonly absolute: string;
  /** Absent when the file does not exist yet. */
  readonly before: string | undefined;
  readonly after: string;
}

/**
 * What `write_file` or `edit_file` would do with these arguments: the built-ins' shapes
 * (`content`; `old_string`, `new_string`, `replace_all`) and the filesystem server's (`content`;
 * `edits: [{ oldText, newText }]`). Reads the file; writes nothing. An edit whose text is not
 * found exactly, a binary or large file, or arguments of another shape give a message instead.
 */
export async function fileChange(tool: Pick<HarnessTool, 'originalName'>, args: unknown, folders: readonly string[]): Promise<Result<FileChange>> {
  const kind = changeKindOf(tool);
  const a = asRecord(args);
  if ((kind !== 'write' && kind !== 'edit') || typeof a.path !== 'string' || a.path === '') return fail('no file to preview in these arguments');
  if (!path.isAbsolute(a.path) && folders.length === 0) return fail('no workspace folder to resolve the path against');
  const absolute = path.resolve(folders[0] ?? '/', a.path);
  const before = await readText(absolute);
  if (!before.ok) return before;
  if (kind === 'write') {
    if (typeof a.content !== 'string') return fail('argument "content" is not a string');
    return ok({ path: a.path, absolute, before: before.value, after: a.content });
  }
  if (before.value === undefined) return fail(`${a.path} does not exist`);
  const after = applyEdits(before.value, a);
  return after.ok ? ok({ path: a.path, absolute, before: before.value, after: after.value }) : after;
}

/** A unified diff of the change, cut to `maxLines` lines. */
export function unifiedDiff(change: FileChange, maxLines = SHORT_DIFF_LINES): { text: string; truncated: boolean } {
  const name = change.path.replace(/^\/+/, '');
  const patch = createTwoFilesPatch(change.before === undefined ? '/dev/null' : `a/${name}`, `b/${name}`, change.before ?? '', change.after, undefined, undefined, { context: 3 });
  // jsdiff puts a line of `=` before the `---` header: the diff starts at the header.
  const lines = patch.slice(patch.indexOf('--- ')).replace(/\n$/, '').split('\n');
  return { text: lines.slice(0, maxLines).join('\n'), truncated: lines.length > maxLines };
}

function applyEdits(text: string, a: Record<string, unknown>): Result<string> {
  if (typeof a.old_string === 'string' && typeof a.new_string === 'string') {
    const count = a.old_string === '' ? 0 : text.split(a.old_string).length - 1;
    if (count === 0) return fail('old_string is not in the file exactly as given');
    if (count > 1 && a.replace_all !== true) return fail(`old_string occurs ${count} times; the tool would refuse`);
    if (a.replace_all === true) return ok(text.split(a.old_string).join(a.new_string));
    const i = text.indexOf(a.old_string);
    return ok(text.slice(0, i) + a.new_string + text.slice(i + a.old_string.length));
  }
  if (!Array.isArray(a.edits)) return fail('no edits in these arguments');
  let out = text;
  for (const [i, edit] of a.edits.entries()) {
    const e = asRecord(edit);
    if (typeof e.oldText !== 'string' || typeof e.newText !== 'string') return fail(`edits[${i}] has no oldText and newText`);
    const at = out.indexOf(e.oldText);
    if (e.oldText === '' || at === -1) return fail(`edits[${i}].oldText is not in the file exactly as given (the server may still match it loosely)`);
    out = out.slice(0, at) + e.newText + out.slice(at + e.oldText.length);
  }
  return ok(out);
}

async function readText(file: string): Promise<Result<string | undefined>> {
  let bytes: Buffer;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return fail(`${file} is not a regular file`);
    if (stat.size > MAX_PREVIEW_BYTES) return fail(`${file} is too large to preview (${stat.size} bytes)`);
    bytes = await fs.readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail(`${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (bytes.subarray(0, 8000).includes(0)) return fail(`${file} is a binary file`);
  return ok(bytes.toString('utf8'));
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
