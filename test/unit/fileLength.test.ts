import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

// House rule: a source file stays under 300 lines, or says at its top why it is one piece. This
// keeps a long file a decision someone wrote down rather than something that grew.
const MAX_LINES = 300;
const ROOT = path.resolve(__dirname, '../..');
const FOLDERS = ['src', 'webview'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The comment a file opens with (line comments joined, or one block comment), or '' when it opens with code. */
function openingComment(text: string): string {
  const body = text.replace(/^#!.*\n/, '');
  const block = /^\s*\/\*([\s\S]*?)\*\//.exec(body);
  if (block) return block[1].replace(/^\s*\*\s?/gm, '').trim();
  const lines: string[] = [];
  for (const line of body.split('\n')) {
    const m = /^\s*\/\/\s?(.*)$/.exec(line);
    if (!m) break;
    lines.push(m[1]);
  }
  return lines.join(' ').trim();
}

describe('source file length', () => {
  it(`every file over ${MAX_LINES} lines says at its top why it stays whole`, () => {
    const unexplained = FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder)))
      .map((file) => ({ file: path.relative(ROOT, file), text: fs.readFileSync(file, 'utf8') }))
      .filter(({ text }) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0) > MAX_LINES)
      // A reason is a sentence, not a banner: at least a few words.
      .filter(({ text }) => openingComment(text).split(/\s+/).length < 8)
      .map(({ file }) => file);
    expect(unexplained).toEqual([]);
  });

  it('reads the opening comment in either style, and none when code comes first', () => {
    expect(openingComment('// Long because a\n// b c\nexport {}')).toBe('Long because a b c');
    expect(openingComment('/**\n * Long because\n * it is.\n */\nexport {}')).toBe('Long because\nit is.');
    expect(openingComment('#!/usr/bin/env node\n// why\n')).toBe('why');
    expect(openingComment('import x from "y";\n// late')).toBe('');
  });
});
