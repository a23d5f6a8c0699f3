import type { Tool } from '@modelcontextprotocol/client';
import { errorResult, formatByteSize } from '../formatToolResult';
import type { BuiltinTool, ToolCallResult } from '../types';
import { WorkspacePathError } from './WorkspaceRoots';
import { errorMessage } from '../../base/errors';

/** A call's arguments did not fit; the message names the argument. */
export class BuiltinArgumentError extends Error {}

/** A successful result: `text` for the model, `structured` kept alongside when given. */
export function textResult(text: string, structured?: Record<string, unknown>): ToolCallResult {
  return { isError: false, text, content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

type Args = Record<string, unknown>;

export function requiredString(args: Args, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new BuiltinArgumentError(`argument "${name}" must be a string`);
  return value;
}

export function optionalString(args: Args, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new BuiltinArgumentError(`argument "${name}" must be a string`);
  return value;
}

export function optionalBoolean(args: Args, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new BuiltinArgumentError(`argument "${name}" must be true or false`);
  return value;
}

/** An optional positive integer, capped at `max` when given. */
export function optionalInteger(args: Args, name: string, options: { min?: number; max?: number } = {}): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  const min = options.min ?? 1;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new BuiltinArgumentError(`argument "${name}" must be an integer of at least ${min}`);
  }
  return options.max !== undefined ? Math.min(value, options.max) : value;
}

/** A string or a list of strings, as a list. */
export function optionalStringList(args: Args, name: string): string[] | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new BuiltinArgumentError(`argument "${name}" must be a string or a list of strings`);
}

/**
 * Builds a {@link BuiltinTool} whose expected failures (bad arguments, paths outside the
 * workspace, missing files) come back as error results instead of exceptions.
 */
export function defineBuiltin(definition: {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: NonNullable<Tool['annotations']>;
  run(args: Args, signal: AbortSignal | undefined): Promise<ToolCallResult>;
}): BuiltinTool {
  const { run, title, ...rest } = definition;
  return {
    ...rest,
    annotations: { title, ...definition.annotations },
    async invoke(args, options) {
      try {
        return await run(args ?? {}, options.signal);
      } catch (err) {
        const expected = err instanceof BuiltinArgumentError || err instanceof WorkspacePathError || isFsError(err);
        if (!expected) throw err;
        return errorResult(`${definition.name}: ${describeFsError(err)}`);
      }
    },
  };
}

const FS_MESSAGES: Record<string, string> = {
  ENOENT: 'does not exist',
  EISDIR: 'is a directory',
  ENOTDIR: 'is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'already exists',
};

function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && (err as NodeJS.ErrnoException).syscall !== undefined;
}

function describeFsError(err: unknown): string {
  if (!isFsError(err)) return errorMessage(err);
  const what = FS_MESSAGES[err.code!];
  const where = err.path ? `"${err.path}" ` : '';
  return what ? `${where}${what}` : err.message;
}

/** Bytes sniffed to tell text from binary. */
export const SNIFF_BYTES = 8192;

const SIGNATURES: readonly [string, number[]][] = [
  ['PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['JPEG image', [0xff, 0xd8, 0xff]],
  ['GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['ZIP archive', [0x50, 0x4b, 0x03, 0x04]],
  ['gzip archive', [0x1f, 0x8b]],
  ['ELF executable', [0x7f, 0x45, 0x4c, 0x46]],
  ['WebAssembly module', [0x00, 0x61, 0x73, 0x6d]],
];

/**
 * Whether the first bytes of a file look binary: a NUL byte, or many bytes that are neither
 * printable ASCII, common whitespace, nor part of valid UTF-8.
 */
export function looksBinary(head: Buffer): boolean {
  if (head.length === 0) return false;
  if (head.includes(0)) return true;
  let suspicious = 0;
  const text = head.toString('utf8');
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code === 0xfffd || (code < 32 && code !== 9 && code !== 10 && code !== 13 && code !== 12 && code !== 27)) suspicious++;
  }
  // A multi-byte character cut at the end of the sample decodes as U+FFFD: allow a few.
  return suspicious > 4 && suspicious / text.length > 0.1;
}

/** One line describing a binary file instead of its bytes. */
export function describeBinary(relative: string, size: number, head: Buffer): string {
  const kind = SIGNATURES.find(([, sig]) => sig.every((b, i) => head[i] === b))?.[0] ?? 'binary data';
  return `${relative} is a binary file (${kind}, ${formatByteSize(size)}); its content is not shown.`;
}
