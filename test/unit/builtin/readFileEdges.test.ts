import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createReadFileTool } from '../../../src/core/tools/builtin/readFile';
import type { ToolCallResult } from '../../../src/core/tools/types';
import { tempWorkspace } from '../../support/workspace';

/** A workspace holding `files`, and a read_file call into it. */
function reader(files: Record<string, string | Buffer>) {
  const ws = tempWorkspace(files);
  const tool = createReadFileTool(ws.roots);
  return { ws, read: (args: Record<string, unknown>): Promise<ToolCallResult> => tool.invoke(args, {}) };
}

/** `count` lines of 1,023 characters: 1 KB each with the line end. */
const kilobyteLines = (count: number) => `${'x'.repeat(1023)}\n`.repeat(count);

describe('read_file line ranges', () => {
  it('reads from a start line to the end, one line, or up to an end past the last line', async () => {
    const { read } = reader({ 'f.txt': 'l1\nl2\nl3\n' });
    const tail = await read({ path: 'f.txt', start_line: 3 });
    expect(tail.text).toBe('l3');
    expect(tail.structuredContent).toStrictEqual({ path: 'f.txt', startLine: 3, endLine: 3, truncated: false, size: 9 });
    expect((await read({ path: 'f.txt', start_line: 2, end_line: 2 })).text).toBe('l2');
    const long = await read({ path: 'f.txt', end_line: 5 });
    expect(long.text).toBe('l1\nl2\nl3');
    expect(long.structuredContent).toMatchObject({ startLine: 1, endLine: 3 });
  });

  it('says so when the range starts after the last line', async () => {
    const { read } = reader({ 'f.txt': 'l1\nl2\nl3\n' });
    const past = await read({ path: 'f.txt', start_line: 4 });
    expect(past).toMatchObject({ isError: false, text: '[f.txt has fewer than 4 lines]' });
    expect(past.structuredContent).toMatchObject({ startLine: 4, endLine: 3, truncated: false });
  });

  it('says a file is empty rather than that it has fewer than one line', async () => {
    const { read } = reader({ 'empty.txt': '' });
    const empty = await read({ path: 'empty.txt' });
    expect(empty).toMatchObject({ isError: false, text: '[empty.txt is empty]' });
    expect(empty.structuredContent).toStrictEqual({ path: 'empty.txt', startLine: 1, endLine: 0, truncated: false, size: 0 });
    expect((await read({ path: 'empty.txt', start_line: 3 })).text).toBe('[empty.txt is empty]');
  });

  it('keeps blank lines and reads Windows line ends as plain lines', async () => {
    const { read } = reader({ 'crlf.txt': 'a\r\n\r\nb\r\n' });
    expect((await read({ path: 'crlf.txt' })).text).toBe('a\n\nb');
  });

  it('refuses an end before the start, and line or byte numbers below one', async () => {
    const { read } = reader({ 'f.txt': 'l1\n' });
    expect(await read({ path: 'f.txt', start_line: 2, end_line: 1 })).toMatchObject({ isError: true, text: 'read_file: argument "end_line" (1) is before "start_line" (2)' });
    expect((await read({ path: 'f.txt', start_line: 0 })).text).toBe('read_file: argument "start_line" must be an integer of at least 1');
    expect((await read({ path: 'f.txt', end_line: 0 })).text).toBe('read_file: argument "end_line" must be an integer of at least 1');
    expect((await read({ path: 'f.txt', max_bytes: 0 })).text).toBe('read_file: argument "max_bytes" must be an integer of at least 1');
    expect((await read({})).text).toBe('read_file: argument "path" must be a string');
  });
});

describe('read_file on what is not a text file', () => {
  it('points a folder, the root included, to list_directory', async () => {
    const { read } = reader({ 'src/a.ts': 'a' });
    expect(await read({ path: 'src' })).toStrictEqual({
      isError: false,
      text: 'src is a directory; use list_directory to see what it holds.',
      content: [{ type: 'text', text: 'src is a directory; use list_directory to see what it holds.' }],
    });
    expect((await read({ path: '' })).text).toBe('. is a directory; use list_directory to see what it holds.');
  });

  it('refuses a named pipe instead of waiting on it', async () => {
    const { ws, read } = reader({});
    execFileSync('mkfifo', [ws.at('pipe')]);
    expect(await read({ path: 'pipe' })).toMatchObject({ isError: true, text: 'read_file: "pipe" is not a regular file' });
  });

  it('summarizes an unknown binary file with its size', async () => {
    const { read } = reader({ 'data.bin': Buffer.from([1, 2, 3, 4, 5, 0]) });
    expect(await read({ path: 'data.bin' })).toStrictEqual({
      isError: false,
      text: 'data.bin is a binary file (binary data, 6 B); its content is not shown.',
      content: [{ type: 'text', text: 'data.bin is a binary file (binary data, 6 B); its content is not shown.' }],
    });
  });
});

describe('read_file byte cap', () => {
  it('stops before the line that would pass the cap and says where to go on', async () => {
    const { read } = reader({ 'f.txt': 'abc\ndef\nghi\n' });
    const capped = await read({ path: 'f.txt', max_bytes: 11 });
    expect(capped.text).toBe('abc\ndef\n…[output capped: showed lines 1-2 of f.txt (12 B); pass start_line=3 to read on]');
    expect(capped.structuredContent).toStrictEqual({ path: 'f.txt', startLine: 1, endLine: 2, truncated: true, size: 12 });
    expect((await read({ path: 'f.txt', max_bytes: 8 })).text).toMatch(/^abc\ndef\n…\[output capped: showed lines 1-2 /);
    const exact = await read({ path: 'f.txt', max_bytes: 12 });
    expect(exact.text).toBe('abc\ndef\nghi');
    expect(exact.structuredContent).toMatchObject({ truncated: false, endLine: 3 });
    const later = await read({ path: 'f.txt', start_line: 2, max_bytes: 4 });
    expect(later.text).toBe('def\n…[output capped: showed lines 2-2 of f.txt (12 B); pass start_line=3 to read on]');
  });

  it('cuts a first line longer than the cap, but drops a long line after others', async () => {
    const { read } = reader({ 'wide.txt': 'abcdefghij\n', 'mixed.txt': `short\n${'y'.repeat(100)}\n` });
    expect((await read({ path: 'wide.txt', max_bytes: 4 })).text).toBe('abcd\n…[output capped: showed lines 1-1 of wide.txt (11 B); pass start_line=2 to read on]');
    expect((await read({ path: 'mixed.txt', max_bytes: 20 })).text).toBe('short\n…[output capped: showed lines 1-1 of mixed.txt (107 B); pass start_line=2 to read on]');
  });

  it('counts bytes, not characters, and keeps a replacement character the file really holds', async () => {
    const { read } = reader({ 'u.txt': 'éé\nx\n', 'r.txt': 'a\uFFFDbcdef\n' });
    expect((await read({ path: 'u.txt', max_bytes: 5 })).text).toMatch(/^éé\n…\[output capped: showed lines 1-1 /);
    expect((await read({ path: 'u.txt', max_bytes: 3 })).text).toMatch(/^é\n…\[output capped/);
    expect((await read({ path: 'r.txt', max_bytes: 5 })).text).toMatch(/^a\uFFFDb\n…\[output capped/);
  });

  it('returns 96 KB by default', async () => {
    const { read } = reader({ 'big.txt': kilobyteLines(200) });
    const result = await read({ path: 'big.txt' });
    expect(result.text.endsWith('\n…[output capped: showed lines 1-96 of big.txt (200 KB); pass start_line=97 to read on]')).toBe(true);
    expect(result.structuredContent).toMatchObject({ endLine: 96, truncated: true, size: 200 * 1024 });
  });

  it('never returns more than 4 MB, whatever max_bytes asks for', async () => {
    const { read } = reader({ 'huge.txt': kilobyteLines(4200) });
    const result = await read({ path: 'huge.txt', max_bytes: 64 * 1024 * 1024 });
    expect(result.structuredContent).toMatchObject({ endLine: 4096, truncated: true });
    expect(result.text).toContain('pass start_line=4097 to read on');
  });
});
