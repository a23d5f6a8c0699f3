import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { formatByteSize } from '../formatToolResult';
import type { BuiltinTool } from '../types';
import { BuiltinArgumentError, defineBuiltin, describeBinary, looksBinary, optionalInteger, requiredString, SNIFF_BYTES, textResult } from './toolKit';
import type { WorkspaceRoots } from './WorkspaceRoots';

/** Default and largest number of bytes `read_file` returns in one call. */
/** Under the harness's default 100,000-character output cap, so the note below is what the model sees. */
export const DEFAULT_READ_MAX_BYTES = 96 * 1024;
export const MAX_READ_MAX_BYTES = 4 * 1024 * 1024;

/** `read_file`: a text file, whole or a range of lines, never more than a byte cap. */
export function createReadFileTool(roots: WorkspaceRoots): BuiltinTool {
  return defineBuiltin({
    name: 'read_file',
    title: 'Read File',
    description:
      'Read a text file in the workspace. Optionally a range of lines (1-based, inclusive). Output is capped ' +
      `(default ${formatByteSize(DEFAULT_READ_MAX_BYTES)}); a note says where it stopped. Binary files are summarized, not shown.`,
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path, relative to the workspace root or absolute inside it.' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to return (inclusive).' },
        max_bytes: { type: 'integer', minimum: 1, maximum: MAX_READ_MAX_BYTES, description: 'Most bytes to return.' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args) {
      const given = requiredString(args, 'path');
      const start = optionalInteger(args, 'start_line') ?? 1;
      const end = optionalInteger(args, 'end_line');
      const maxBytes = optionalInteger(args, 'max_bytes', { max: MAX_READ_MAX_BYTES }) ?? DEFAULT_READ_MAX_BYTES;
      if (end !== undefined && end < start) throw new BuiltinArgumentError(`argument "end_line" (${end}) is before "start_line" (${start})`);
      const file = await roots.resolveExisting(given);
      const stat = await fs.stat(file.absolute);
      if (stat.isDirectory()) return textResult(`${file.relative} is a directory; use list_directory to see what it holds.`);
      if (!stat.isFile()) throw new BuiltinArgumentError(`"${given}" is not a regular file`);
      const head = await readHead(file.absolute);
      if (looksBinary(head)) return textResult(describeBinary(file.relative, stat.size, head));
      const read = await readLines(file.absolute, start, end, maxBytes);
      return textResult(read.text + describeCut(file.relative, stat.size, start, read), {
        path: file.relative,
        startLine: start,
        endLine: read.lastLine,
        truncated: read.truncated,
        size: stat.size,
      });
    },
  });
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

interface LinesRead {
  readonly text: string;
  /** Last line included (start - 1 when none). */
  readonly lastLine: number;
  /** Stopped at the byte cap before the requested end. */
  readonly truncated: boolean;
  /** The file ended before `start`. */
  readonly pastEnd: boolean;
}

/** Streams lines `start..end` (end: the file's last), stopping at `maxBytes` of output. */
async function readLines(file: string, start: number, end: number | undefined, maxBytes: number): Promise<LinesRead> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const out: string[] = [];
  let bytes = 0;
  let line = 0;
  let truncated = false;
  try {
    for await (const text of lines) {
      line++;
      if (line < start) continue;
      if (end !== undefined && line > end) break;
      const size = Buffer.byteLength(text, 'utf8') + 1;
      if (bytes + size > maxBytes) {
        // A single line longer than the cap is cut rather than dropped.
        if (out.length === 0) out.push(cutToBytes(text, maxBytes));
        truncated = true;
        break;
      }
      out.push(text);
      bytes += size;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  const lastLine = start - 1 + out.length;
  return { text: out.join('\n'), lastLine, truncated, pastEnd: line < start };
}

function cutToBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8').subarray(0, maxBytes);
  return buffer.toString('utf8').replace(/\uFFFD$/u, '');
}

function describeCut(relative: string, size: number, start: number, read: LinesRead): string {
  if (read.pastEnd) return size === 0 ? `[${relative} is empty]` : `[${relative} has fewer than ${start} lines]`;
  if (!read.truncated) return '';
  const next = read.lastLine + 1;
  return `\n…[output capped: showed lines ${start}-${read.lastLine} of ${relative} (${formatByteSize(size)}); pass start_line=${next} to read on]`;
}
