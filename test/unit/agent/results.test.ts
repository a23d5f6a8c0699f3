import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countLines, DiskToolResultStore, elidedText, MAX_READ_CHARS, MemoryToolResultStore, overflowText, parseResultRead, readResultText } from '../../../src/core/agent/results';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}: ${'x'.repeat(i % 7)}`).join('\n');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-results-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('parseResultRead', () => {
  it('reads characters by default, lines when asked, and a search before either', () => {
    expect(parseResultRead({})).toEqual({ kind: 'chars', offset: 0, length: 20_000 });
    expect(parseResultRead({ offset: 5, length: 10 })).toEqual({ kind: 'chars', offset: 5, length: 10 });
    expect(parseResultRead({ length: 10_000_000 })).toEqual({ kind: 'chars', offset: 0, length: MAX_READ_CHARS });
    expect(parseResultRead({ startLine: 3 })).toEqual({ kind: 'lines', startLine: 3 });
    expect(parseResultRead({ endLine: 4 })).toEqual({ kind: 'lines', startLine: 1, endLine: 4 });
    expect(parseResultRead({ search: 'x', startLine: 2 })).toEqual({ kind: 'search', text: 'x' });
  });

  it('names the argument that is wrong', () => {
    expect(parseResultRead({ offset: -1 })).toBe('"offset" must be an integer of at least 0');
    expect(parseResultRead({ length: 0 })).toBe('"length" must be an integer of at least 1');
    expect(parseResultRead({ startLine: 1.5 })).toBe('"startLine" must be an integer of at least 1');
    expect(parseResultRead({ startLine: 5, endLine: 2 })).toBe('"endLine" must not be before "startLine"');
    expect(parseResultRead({ search: '' })).toBe('"search" must be a non-empty string');
    expect(parseResultRead({ search: 3 })).toBe('"search" must be a non-empty string');
  });
});

describe('readResultText', () => {
  const text = numbered(10_000);

  it('gives a character range with where it starts and where to go next', () => {
    const out = readResultText('abcdef\nghij', { kind: 'chars', offset: 7, length: 2 });
    expect(out).toBe('Characters 7-9 of 11 (from line 2). Next: offset 9.\ngh');
    expect(readResultText('abc', { kind: 'chars', offset: 1, length: 10 })).toBe('Characters 1-3 of 3 (from line 1). This is the end.\nbc');
    expect(readResultText('abc', { kind: 'chars', offset: 3, length: 10 })).toBe('Offset 3 is past the end: the result has 3 characters.');
  });

  it('never splits a surrogate pair at the end of a range', () => {
    expect(readResultText('a😀b', { kind: 'chars', offset: 0, length: 2 })).toBe('Characters 0-1 of 4 (from line 1). Next: offset 1.\na');
  });

  it('gives lines near the end of a long result by number', () => {
    const out = readResultText(text, { kind: 'lines', startLine: 9_995, endLine: 10_000 });
    const [head, ...lines] = out.split('\n');
    expect(head).toMatch(/^Lines 9,995-10,000 \(characters [\d,]+-[\d,]+ of [\d,]+\)\. This is the end\.$/);
    expect(lines).toEqual(text.split('\n').slice(9_994));
  });

  it('says where the next read starts, a hundred lines by default, and when a line is past the end', () => {
    const out = readResultText(text, { kind: 'lines', startLine: 2 });
    expect(out.split('\n')[0]).toContain('Lines 2-101');
    expect(out.split('\n')[0]).toContain('Next: line 102.');
    expect(out.split('\n').slice(1)).toEqual(text.split('\n').slice(1, 101));
    expect(readResultText('a\nb', { kind: 'lines', startLine: 5 })).toBe('Line 5 is past the end: the result has 2 lines.');
    expect(readResultText('a\nb\n', { kind: 'lines', startLine: 3 })).toBe('Line 3 is past the end: the result has 2 lines.');
  });

  it('cuts one huge line at the read limit and says where the rest is', () => {
    const out = readResultText(`${'y'.repeat(MAX_READ_CHARS + 10)}\nz`, { kind: 'lines', startLine: 1, endLine: 2 });
    expect(out.split('\n')[0]).toContain(`Line 1 is cut at 50,000 characters; read the rest by offset 50,000.`);
    expect(out.split('\n')[1]).toHaveLength(MAX_READ_CHARS);
  });

  it('finds the lines containing a text, case-insensitively, one entry a line', () => {
    expect(readResultText(text, { kind: 'search', text: 'LINE 9999:' })).toBe(`1 line contains "LINE 9999:":\nline 9,999 (offset ${text.indexOf('line 9999:').toLocaleString('en-US')}): line 9999: xx`);
    expect(readResultText('ab ab\ncd\nab', { kind: 'search', text: 'ab' })).toBe('2 lines contain "ab":\nline 1 (offset 0): ab ab\nline 3 (offset 9): ab');
    expect(readResultText(text, { kind: 'search', text: 'nowhere' })).toBe('No line contains "nowhere".');
    const many = readResultText(text, { kind: 'search', text: 'line' });
    expect(many.split('\n')[0]).toBe('10,000 lines contain "line"; the first 50:');
    expect(many.split('\n')).toHaveLength(51);
  });
});

describe('notes', () => {
  it('tells the model the size, the handle and how to read on', () => {
    const note = overflowText('a\nb', { handle: 'r-0000abcd', toolName: 't', chars: 1000, lines: 40 }, 3);
    expect(note).toContain('showing the first 3 of 1,000 characters (line 1-2 of 40)');
    expect(note).toContain('"r-0000abcd"');
    expect(note).toContain('read_result {"handle":"r-0000abcd","offset":3}');
    expect(elidedText({ handle: 'r-0000abcd', toolName: 'mcp__s__t', chars: 5000, lines: 3 })).toContain('mcp__s__t (5,000 characters, 3 lines)');
  });

  it('counts lines as an editor does', () => {
    expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('\n\n')]).toEqual([0, 1, 1, 2, 2]);
  });
});

describe('MemoryToolResultStore', () => {
  it('keeps results per conversation under fresh handles and forgets a deleted conversation', async () => {
    const store = new MemoryToolResultStore();
    const a = await store.put('c1', 'tool', 'one\ntwo');
    const b = await store.put('c1', 'tool', 'three');
    await store.put('c2', 'tool', 'other');
    expect(a.handle).toMatch(/^r-[0-9a-f]{8}$/);
    expect(a.handle).not.toBe(b.handle);
    expect(a).toMatchObject({ chars: 7, lines: 2, toolName: 'tool' });
    expect(store.list('c1').map((r) => r.handle)).toEqual([a.handle, b.handle]);
    expect(await store.read('c1', a.handle)).toBe('one\ntwo');
    expect(await store.read('c2', a.handle)).toBeUndefined();
    await store.deleteConversation('c1');
    expect(store.list('c1')).toEqual([]);
    expect(store.list('c2')).toHaveLength(1);
  });

  it('forgets the oldest results once it holds more than its bound, keeping the newest', async () => {
    const store = new MemoryToolResultStore(10);
    const first = await store.put('c', 't', 'aaaaaa');
    const second = await store.put('c', 't', 'bbbbbb');
    expect(await store.read('c', first.handle)).toBeUndefined();
    expect(await store.read('c', second.handle)).toBe('bbbbbb');
    const huge = await store.put('c', 't', 'c'.repeat(50));
    expect(await store.read('c', huge.handle)).toHaveLength(50);
  });
});

describe('DiskToolResultStore', () => {
  it('keeps each result as a file in its conversation folder and removes the folder with the conversation', async () => {
    const root = path.join(tmp, 'disk');
    const store = new DiskToolResultStore(root);
    const text = numbered(500);
    const info = await store.put('conv-1', 'mcp__s__big', text);
    const file = store.pathOf('conv-1', info.handle)!;
    expect(file).toBe(path.join(root, 'conv-1', `${info.handle}.txt`));
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(await store.read('conv-1', info.handle)).toBe(text);
    // A new store over the same folder (the window reloaded) finds it.
    const again = new DiskToolResultStore(root);
    expect(again.list('conv-1')).toEqual([{ handle: info.handle, toolName: 'mcp__s__big', chars: text.length, lines: 500 }]);
    expect(await again.read('conv-1', info.handle)).toBe(text);
    await again.deleteConversation('conv-1');
    expect(fs.existsSync(path.join(root, 'conv-1'))).toBe(false);
    expect(await again.read('conv-1', info.handle)).toBeUndefined();
  });

  it('never turns an unsafe id or handle into a path', async () => {
    const store = new DiskToolResultStore(path.join(tmp, 'safe'));
    await expect(store.put('../escape', 't', 'x')).rejects.toThrow('not a conversation id: "../escape"');
    expect(store.pathOf('conv', '../../etc/passwd')).toBeUndefined();
    expect(await store.read('conv', 'r-../x')).toBeUndefined();
    expect(store.list('..')).toEqual([]);
    await store.deleteConversation('..');
    expect(fs.existsSync(tmp)).toBe(true);
  });

  it('prunes the folders of conversations the history no longer lists', async () => {
    const root = path.join(tmp, 'prune');
    const store = new DiskToolResultStore(root);
    await store.put('keep', 't', 'a');
    await store.put('gone', 't', 'b');
    await store.prune(new Set(['keep']));
    expect(fs.readdirSync(root)).toEqual(['keep']);
    await new DiskToolResultStore(path.join(tmp, 'missing')).prune(new Set());
  });
});
