import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createListDirectoryTool } from '../../../src/core/tools/builtin/listDirectory';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace';

function list(ws: TempWorkspace, args: Record<string, unknown> = {}) {
  return createListDirectoryTool(ws.roots).invoke(args, {});
}

describe('list_directory', () => {
  it('puts folders first, each group in code-unit order, with sizes in readable units', async () => {
    const ws = tempWorkspace({ 'c.txt': 'x'.repeat(1536), 'a.txt': '', 'b/keep': '', 'C/keep': '', 'A.txt': 'hi' });
    const result = await list(ws);
    expect(result.text).toBe('(workspace root): 5 entries\nC/\nb/\nA.txt (2 B)\na.txt (0 B)\nc.txt (1.5 KB)');
    expect(result.structuredContent).toEqual({
      path: '.',
      entries: [
        { name: 'C', type: 'directory' },
        { name: 'b', type: 'directory' },
        { name: 'A.txt', type: 'file' },
        { name: 'a.txt', type: 'file' },
        { name: 'c.txt', type: 'file' },
      ],
      total: 5,
    });
  });

  it('shows a link by where it leads from the workspace root, and counts it as a file', async () => {
    const ws = tempWorkspace({ 'top.txt': 'top', 'src/deep/x.ts': 'x' });
    fs.symlinkSync(path.join(ws.dir, 'top.txt'), path.join(ws.dir, 'src', 'to-top'));
    fs.symlinkSync(path.join(ws.dir, 'src', 'deep'), path.join(ws.dir, 'src', 'to-deep'));
    const result = await list(ws, { path: 'src' });
    expect(result.text).toBe('src/: 3 entries\ndeep/\nto-deep -> src/deep\nto-top -> top.txt');
    expect(result.structuredContent).toMatchObject({
      path: 'src',
      entries: [
        { name: 'deep', type: 'directory' },
        { name: 'to-deep', type: 'file' },
        { name: 'to-top', type: 'file' },
      ],
    });
  });

  it('lists an empty folder, and a folder with one entry, in plain words', async () => {
    const ws = tempWorkspace({ 'one/only.txt': 'abc' });
    fs.mkdirSync(path.join(ws.dir, 'none'));
    expect(await list(ws, { path: 'none' })).toMatchObject({ isError: false, text: 'none/: 0 entries', structuredContent: { path: 'none', entries: [], total: 0 } });
    expect((await list(ws, { path: 'one' })).text).toBe('one/: 1 entry\nonly.txt (3 B)');
    expect((await list(ws, { path: './one/' })).text).toBe('one/: 1 entry\nonly.txt (3 B)');
  });

  it('adds no note when the entries fill the cap exactly', async () => {
    const ws = tempWorkspace({ 'a.txt': '', 'b.txt': '' });
    const result = await list(ws, { max_entries: 2 });
    expect(result.text).toBe('(workspace root): 2 entries\na.txt (0 B)\nb.txt (0 B)');
    expect(result.structuredContent).toMatchObject({ total: 2 });
  });

  it('shows 500 entries by default and never more than 5000', async () => {
    const ws = tempWorkspace();
    for (let i = 0; i < 5001; i++) fs.writeFileSync(path.join(ws.dir, `f${String(i).padStart(4, '0')}`), '');
    const byDefault = await list(ws);
    expect(byDefault.structuredContent).toMatchObject({ total: 5001 });
    expect((byDefault.structuredContent!.entries as unknown[]).length).toBe(500);
    expect(byDefault.text.split('\n').slice(-2)).toEqual(['f0499 (0 B)', '…[4501 more entries not shown]']);
    const most = await list(ws, { max_entries: 99_999 });
    expect((most.structuredContent!.entries as unknown[]).length).toBe(5000);
    expect(most.text.split('\n').at(-1)).toBe('…[1 more entries not shown]');
  });

  it.each([
    [{ path: 7 }, 'list_directory: argument "path" must be a string'],
    [{ path: 'nope' }, 'list_directory: "nope" does not exist'],
    [{ max_entries: -3 }, 'list_directory: argument "max_entries" must be an integer of at least 1'],
  ])('refuses %j with a message naming it', async (args, message) => {
    expect(await list(tempWorkspace(), args)).toMatchObject({ isError: true, text: expect.stringContaining(message) });
  });
});
