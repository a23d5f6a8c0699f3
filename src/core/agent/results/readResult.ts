import type { ModelToolSpec } from '../types';
import type { StoredResultInfo } from './ToolResultStore';

/** Name of the built-in tool that pages through a kept result. */
export const READ_RESULT_NAME = 'read_result';

/** Characters one read gives by default, and at most. */
export const DEFAULT_READ_CHARS = 20_000;
export const MAX_READ_CHARS = 50_000;
/** Lines one read gives at most. */
export const MAX_READ_LINES = 1_000;
/** Matches one search lists at most, and how much of each matching line it shows. */
export const MAX_SEARCH_MATCHES = 50;
const MATCH_CONTEXT = 120;

/** The `read_result` tool as the model sees it. */
export const READ_RESULT_SPEC: ModelToolSpec = {
  name: READ_RESULT_NAME,
  description:
    'Reads part of a tool result that was too large to show whole (its note gives the handle). Read-only. Give "offset" and "length" for characters, or "startLine" and "endLine" (1-based, inclusive) for lines, or "search" for the lines containing a text.',
  inputSchema: {
    type: 'object',
    properties: {
      handle: { type: 'string', description: 'The handle from the note, e.g. "r-1a2b3c4d".' },
      offset: { type: 'integer', minimum: 0, description: 'First character (0-based).' },
      length: { type: 'integer', minimum: 1, maximum: MAX_READ_CHARS, description: `Characters to read (default ${DEFAULT_READ_CHARS}).` },
      startLine: { type: 'integer', minimum: 1, description: 'First line (1-based).' },
      endLine: { type: 'integer', minimum: 1, description: `Last line (inclusive; at most ${MAX_READ_LINES} lines a read).` },
      search: { type: 'string', description: 'Text to find (case-insensitive); lists the matching lines with their numbers.' },
    },
    required: ['handle'],
  },
};

/** What a read asks for, checked. */
export type ResultRead =
  | { readonly kind: 'chars'; readonly offset: number; readonly length: number }
  | { readonly kind: 'lines'; readonly startLine: number; readonly endLine?: number }
  | { readonly kind: 'search'; readonly text: string };

/** Reads the model's arguments (besides `handle`), or says what is wrong with them. */
export function parseResultRead(args: Readonly<Record<string, unknown>>): ResultRead | string {
  const int = (key: string, min: number): number | undefined | string => {
    const value = args[key];
    if (value === undefined) return undefined;
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= min ? value : `"${key}" must be an integer of at least ${min}`;
  };
  if (args.search !== undefined) {
    if (typeof args.search !== 'string' || args.search === '') return '"search" must be a non-empty string';
    return { kind: 'search', text: args.search };
  }
  const startLine = int('startLine', 1);
  const endLine = int('endLine', 1);
  if (typeof startLine === 'string') return startLine;
  if (typeof endLine === 'string') return endLine;
  if (startLine !== undefined || endLine !== undefined) {
    const start = startLine ?? 1;
    if (endLine !== undefined && endLine < start) return '"endLine" must not be before "startLine"';
    return { kind: 'lines', startLine: start, ...(endLine !== undefined ? { endLine } : {}) };
  }
  const offset = int('offset', 0);
  const length = int('length', 1);
  if (typeof offset === 'string') return offset;
  if (typeof length === 'string') return length;
  return { kind: 'chars', offset: offset ?? 0, length: Math.min(length ?? DEFAULT_READ_CHARS, MAX_READ_CHARS) };
}

const n = (value: number) => value.toLocaleString('en-US');

/** The part of `text` a read asks for, with a first line saying where it is and what comes next. */
export function readResultText(text: string, read: ResultRead): string {
  switch (read.kind) {
    case 'chars':
      return readChars(text, read.offset, read.length);
    case 'lines':
      return readLines(text, read.startLine, read.endLine);
    case 'search':
      return searchLines(text, read.text);
  }
}

function readChars(text: string, offset: number, length: number): string {
  if (offset >= text.length) return `Offset ${n(offset)} is past the end: the result has ${n(text.length)} characters.`;
  let end = Math.min(text.length, offset + length);
  // Never split a surrogate pair.
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  const firstLine = lineAt(text, offset);
  const more = end < text.length ? ` Next: offset ${n(end)}.` : ' This is the end.';
  return `Characters ${n(offset)}-${n(end)} of ${n(text.length)} (from line ${n(firstLine)}).${more}\n${text.slice(offset, end)}`;
}

function readLines(text: string, startLine: number, endLine: number | undefined): string {
  let start = 0;
  for (let line = 1; line < startLine; line++) {
    const next = text.indexOf('\n', start);
    if (next === -1) return `Line ${n(startLine)} is past the end: the result has ${n(line)} lines.`;
    start = next + 1;
  }
  if (start >= text.length && startLine > 1) return `Line ${n(startLine)} is past the end: the result has ${n(startLine - 1)} lines.`;
  const last = Math.min(endLine ?? startLine + 99, startLine + MAX_READ_LINES - 1);
  let end = start;
  let line = startLine;
  for (; line <= last; line++) {
    const next = text.indexOf('\n', end);
    end = next === -1 ? text.length : next + 1;
    if (next === -1 || end - start > MAX_READ_CHARS) break;
  }
  const lastShown = Math.min(line, last);
  let body = text.slice(start, end);
  let cut = '';
  if (body.length > MAX_READ_CHARS) {
    body = body.slice(0, MAX_READ_CHARS);
    cut = ` Line ${n(lastShown)} is cut at ${n(MAX_READ_CHARS)} characters; read the rest by offset ${n(start + MAX_READ_CHARS)}.`;
  }
  const more = end < text.length ? ` Next: line ${n(lastShown + 1)}.` : ' This is the end.';
  return `Lines ${n(startLine)}-${n(lastShown)} (characters ${n(start)}-${n(start + body.length)} of ${n(text.length)}).${cut}${more}\n${body.replace(/\n$/, '')}`;
}

function searchLines(text: string, query: string): string {
  const haystack = text.toLowerCase();
  const needle = query.toLowerCase();
  const shown: string[] = [];
  let total = 0;
  let line = 1;
  let counted = 0;
  let lastLine = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    line += countNewlines(text, counted, at);
    counted = at;
    if (line === lastLine) continue;
    lastLine = line;
    total++;
    if (shown.length >= MAX_SEARCH_MATCHES) continue;
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    const lineEnd = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    const from = Math.max(lineStart, at - MATCH_CONTEXT);
    const to = Math.min(lineEnd, at + needle.length + MATCH_CONTEXT);
    shown.push(`line ${n(line)} (offset ${n(at)}): ${from > lineStart ? '…' : ''}${text.slice(from, to)}${to < lineEnd ? '…' : ''}`);
  }
  if (total === 0) return `No line contains "${query}".`;
  const head = total > shown.length ? `${n(total)} lines contain "${query}"; the first ${shown.length}:` : `${n(total)} ${total === 1 ? 'line contains' : 'lines contain'} "${query}":`;
  return `${head}\n${shown.join('\n')}`;
}

/**
 * What the model reads instead of a result over the cap: its first part, then a note with its
 * size and the handle to read the rest by.
 */
export function overflowText(head: string, info: StoredResultInfo, shownChars: number): string {
  const shownLines = countNewlines(head, 0, head.length) + 1;
  return `${head}\n…[result cut: showing the first ${n(shownChars)} of ${n(info.chars)} characters (line 1-${n(shownLines)} of ${n(info.lines)}). The whole result is kept as "${info.handle}": read more with ${READ_RESULT_NAME} {"handle":"${info.handle}","offset":${shownChars}}, by lines {"handle":"${info.handle}","startLine":${shownLines},"endLine":${shownLines + 99}}, or find text with {"handle":"${info.handle}","search":"..."}]`;
}

/** What stands for an older result once it leaves the context: its handle, to read it again. */
export function elidedText(info: StoredResultInfo): string {
  return `[An earlier result of ${info.toolName} (${n(info.chars)} characters, ${n(info.lines)} ${info.lines === 1 ? 'line' : 'lines'}) was taken out of the context to save room. It is kept as "${info.handle}": read it with ${READ_RESULT_NAME}.]`;
}

function lineAt(text: string, offset: number): number {
  return countNewlines(text, 0, offset) + 1;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
