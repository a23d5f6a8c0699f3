import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../../src/core/tools/builtin/editFile';
import { WorkspaceRoots } from '../../../src/core/tools/builtin/WorkspaceRoots';
import { createWriteFileTool } from '../../../src/core/tools/builtin/writeFile';
import type { ToolCallResult } from '../../../src/core/tools/types';
import { tempWorkspace } from '../../support/workspace';

/** A workspace holding `files`, with edit_file and write_file calls into it. */
function tools(files: Record<string, string | Buffer>) {
  const ws = tempWorkspace(files);
  const edit = createEditFileTool(ws.roots);
  const write = createWriteFileTool(ws.roots);
  return {
    ws,
    edit: (args: Record<string, unknown>): Promise<ToolCallResult> => edit.invoke(args, {}),
    write: (args: Record<string, unknown>): Promise<ToolCallResult> => write.invoke(args, {}),
    content: (rel: string) => fs.readFileSync(ws.at(rel), 'utf8'),
  };
}

const EIGHT_MB = 8 * 1024 * 1024;

describe('edit_file', () => {
  it('puts the new text in as typed, "$" patterns included', async () => {
    const t = tools({ 'p.txt': 'price = 10\n' });
    expect((await t.edit({ path: 'p.txt', old_string: '10', new_string: "$&$1$' 20" })).isError).toBe(false);
    expect(t.content('p.txt')).toBe("price = $&$1$' 20\n");
  });

  it('counts occurrences that do not overlap', async () => {
    const t = tools({ 'three.txt': 'aaa', 'four.txt': 'aaaa' });
    expect((await t.edit({ path: 'three.txt', old_string: 'aa', new_string: 'b' })).text.split('\n')[0]).toBe('Edited three.txt: 1 replacement.');
    expect(t.content('three.txt')).toBe('ba');
    expect(await t.edit({ path: 'four.txt', old_string: 'aa', new_string: 'b' })).toMatchObject({
      isError: true,
      text: 'edit_file: old_string occurs 2 times in four.txt; no change made. Add surrounding lines to make it unique, or pass replace_all: true',
    });
    expect(t.content('four.txt')).toBe('aaaa');
  });

  it('shows three lines of context around a change', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const t = tools({ 'ten.txt': ten });
    const result = await t.edit({ path: 'ten.txt', old_string: 'l5\n', new_string: 'L5\n' });
    const diff = '--- a/ten.txt\n+++ b/ten.txt\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n';
    expect(result.text).toBe(`Edited ten.txt: 1 replacement.\n${diff}`);
    expect(result.structuredContent).toStrictEqual({ path: 'ten.txt', replacements: 1, diff });
  });

  it('with replace_all, also takes a string that occurs once', async () => {
    const t = tools({ 'one.txt': 'x y\n' });
    const result = await t.edit({ path: 'one.txt', old_string: 'y', new_string: 'z', replace_all: true });
    expect(result.structuredContent).toMatchObject({ replacements: 1 });
    expect(t.content('one.txt')).toBe('x z\n');
  });

  it('names the argument that is missing or of the wrong type', async () => {
    const t = tools({ 'f.txt': 'x\n' });
    expect((await t.edit({ path: 'f.txt', old_string: 'x' })).text).toBe('edit_file: argument "new_string" must be a string');
    expect((await t.edit({ path: 'f.txt', new_string: 'x' })).text).toBe('edit_file: argument "old_string" must be a string');
    expect((await t.edit({ path: 'f.txt', old_string: 'x', new_string: 'y', replace_all: 'yes' })).text).toBe(
      'edit_file: argument "replace_all" must be true or false',
    );
    expect(t.content('f.txt')).toBe('x\n');
  });

  it('says exactly why a missing string or file changed nothing', async () => {
    const t = tools({ 'f.txt': 'alpha\n' });
    expect(await t.edit({ path: 'f.txt', old_string: 'alpha ', new_string: 'b' })).toMatchObject({
      isError: true,
      text: 'edit_file: old_string was not found in f.txt; no change made (it must match exactly, whitespace included)',
    });
    expect(await t.edit({ path: 'nope.txt', old_string: 'a', new_string: 'b' })).toMatchObject({ isError: true, text: 'edit_file: "nope.txt" does not exist' });
  });

  it('refuses a file over 8 MB before reading it, and reads one of exactly 8 MB', async () => {
    const t = tools({});
    fs.writeFileSync(t.ws.at('big.txt'), '');
    fs.truncateSync(t.ws.at('big.txt'), EIGHT_MB + 1);
    expect(await t.edit({ path: 'big.txt', old_string: 'a', new_string: 'b' })).toMatchObject({
      isError: true,
      text: `edit_file: "big.txt" is too large to edit (${EIGHT_MB + 1} bytes)`,
    });
    fs.truncateSync(t.ws.at('big.txt'), EIGHT_MB);
    // Sparse zeros: read, then found to be binary.
    expect((await t.edit({ path: 'big.txt', old_string: 'a', new_string: 'b' })).text).toBe('edit_file: "big.txt" is a binary file');
  });
});

describe('write_file', () => {
  it('reports the path written, whether it was new, and its size in bytes', async () => {
    const t = tools({});
    const created = await t.write({ path: 'notes/u.txt', content: 'é✓' });
    expect(created).toMatchObject({ isError: false, text: 'Created notes/u.txt (5 B).' });
    expect(created.structuredContent).toStrictEqual({ path: 'notes/u.txt', created: true, bytes: 5 });
    expect(t.content('notes/u.txt')).toBe('é✓');
    const replaced = await t.write({ path: 'notes/u.txt', content: '' });
    expect(replaced.text).toBe('Replaced notes/u.txt (0 B).');
    expect(replaced.structuredContent).toStrictEqual({ path: 'notes/u.txt', created: false, bytes: 0 });
    expect(t.content('notes/u.txt')).toBe('');
  });

  it('writes through a link that stays inside, naming the file it lands in', async () => {
    const t = tools({ 'a.ts': 'a\n' });
    fs.symlinkSync(t.ws.at('a.ts'), t.ws.at('link.ts'));
    fs.symlinkSync(t.ws.at('later.ts'), t.ws.at('dangling.ts'));
    expect((await t.write({ path: 'link.ts', content: 'A\n' })).text).toBe('Replaced a.ts (2 B).');
    expect(t.content('a.ts')).toBe('A\n');
    expect(fs.lstatSync(t.ws.at('link.ts')).isSymbolicLink()).toBe(true);
    expect((await t.write({ path: 'dangling.ts', content: 'L' })).text).toBe('Created later.ts (1 B).');
    expect(t.content('later.ts')).toBe('L');
  });

  it('fails as an error result onto a folder or below a file', async () => {
    const t = tools({ 'src/a.ts': 'a', 'f.txt': 'f' });
    expect(await t.write({ path: 'src', content: 'x' })).toMatchObject({ isError: true, text: `write_file: "${t.ws.at('src')}" is a directory` });
    expect((await t.write({ path: 'f.txt/x', content: 'x' })).isError).toBe(true);
    expect(t.content('f.txt')).toBe('f');
    expect((await t.write({ path: 'g.txt' })).text).toBe('write_file: argument "content" must be a string');
    expect(fs.existsSync(t.ws.at('g.txt'))).toBe(false);
  });

  it('creates the workspace folder itself when it does not exist yet', async () => {
    const top = tempWorkspace();
    const write = createWriteFileTool(new WorkspaceRoots([top.at('future')]));
    expect((await write.invoke({ path: 'f.txt', content: 'f' }, {})).text).toBe('Created f.txt (1 B).');
    expect(fs.readFileSync(top.at('future/f.txt'), 'utf8')).toBe('f');
  });
});
