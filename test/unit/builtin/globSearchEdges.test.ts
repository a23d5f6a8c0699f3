import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGlobSearchTool } from '../../../src/core/tools/builtin/globSearch';
import { createGrepSearchTool } from '../../../src/core/tools/builtin/grepSearch';
import { walkFiles } from '../../../src/core/tools/builtin/walkFiles';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace';

function glob(ws: TempWorkspace, args: Record<string, unknown>) {
  return createGlobSearchTool(ws.roots).invoke(args, {});
}

async function walked(base: string, root: string): Promise<string[]> {
  const seen: string[] = [];
  for await (const file of walkFiles(base, root)) seen.push(file.relative);
  return seen;
}

const tree = {
  'z.ts': 'z\n',
  'B.ts': 'B\n',
  'a.ts': 'a\n',
  'b/w.ts': 'w\n',
  'a/y/q.ts': 'q\n',
  'a/x.ts': 'x\n',
  '.hg/store.ts': 'hg\n',
  '.svn/entries.ts': 'svn\n',
};

describe('walkFiles', () => {
  it('yields a folder’s files in code-unit order before descending, one folder at a time', async () => {
    const ws = tempWorkspace(tree);
    expect(await walked(ws.dir, ws.dir)).toEqual(['B.ts', 'a.ts', 'z.ts', 'a/x.ts', 'a/y/q.ts', 'b/w.ts']);
  });

  it('follows a file link to elsewhere in the workspace, read from its target, but not one to a folder', async () => {
    const ws = tempWorkspace(tree);
    fs.symlinkSync(path.join(ws.dir, 'z.ts'), path.join(ws.dir, 'a', 'to-z.ts'));
    fs.symlinkSync(path.join(ws.dir, 'b'), path.join(ws.dir, 'a', 'to-b'));
    const files: { absolute: string; relative: string }[] = [];
    for await (const file of walkFiles(path.join(ws.dir, 'a'), ws.dir)) files.push(file);
    expect(files).toEqual([
      { absolute: path.join(ws.dir, 'z.ts'), relative: 'to-z.ts' },
      { absolute: path.join(ws.dir, 'a', 'x.ts'), relative: 'x.ts' },
      { absolute: path.join(ws.dir, 'a', 'y', 'q.ts'), relative: 'y/q.ts' },
    ]);
    expect(await walked(path.join(ws.dir, 'a'), path.join(ws.dir, 'a'))).toEqual(['x.ts', 'y/q.ts']);
  });
});

describe('glob_search', () => {
  it('lists paths relative to the folder searched and says which folder had none', async () => {
    const ws = tempWorkspace(tree);
    const result = await glob(ws, { pattern: '**/*.ts', path: 'a' });
    expect(result.text).toBe('x.ts\ny/q.ts');
    expect(result.structuredContent).toEqual({ files: ['x.ts', 'y/q.ts'], truncated: false });
    expect(await glob(ws, { pattern: '*.md', path: 'a/y' })).toMatchObject({ isError: false, text: 'No files in a/y match "*.md".', structuredContent: { files: [], truncated: false } });
    expect((await glob(ws, { pattern: '*.md' })).text).toBe('No files in the workspace match "*.md".');
  });

  it('finds nothing once the call is cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await createGlobSearchTool(tempWorkspace(tree).roots).invoke({ pattern: '**' }, { signal: controller.signal });
    expect(result.text).toBe('No files in the workspace match "**".');
  });

  it('takes a leading "!" to mean every other file', async () => {
    expect((await glob(tempWorkspace(tree), { pattern: '!a/**' })).text).toBe('B.ts\na.ts\nz.ts\nb/w.ts');
  });

  it('finds a file linked in from another folder of the workspace', async () => {
    const ws = tempWorkspace(tree);
    fs.symlinkSync(path.join(ws.dir, 'z.ts'), path.join(ws.dir, 'b', 'to-z.ts'));
    expect((await glob(ws, { pattern: '*.ts', path: 'b' })).text).toBe('to-z.ts\nw.ts');
    expect((await createGrepSearchTool(ws.roots).invoke({ pattern: '^z', path: 'b' }, {})).text).toBe('b/to-z.ts:1: z');
  });

  it('adds no note when the matches fill the cap exactly, and one when there are more', async () => {
    const ws = tempWorkspace(tree);
    const exact = await glob(ws, { pattern: '*.ts', max_results: 3 });
    expect(exact.text).toBe('B.ts\na.ts\nz.ts');
    expect(exact.structuredContent).toEqual({ files: ['B.ts', 'a.ts', 'z.ts'], truncated: false });
    const more = await glob(ws, { pattern: '**', max_results: 2 });
    expect(more.text).toBe('B.ts\na.ts\n…[more than 2 matches; narrow the pattern]');
    expect(more.structuredContent).toEqual({ files: ['B.ts', 'a.ts'], truncated: true });
  });

  it('returns 500 paths by default and never more than 10,000', async () => {
    const ws = tempWorkspace();
    for (let i = 0; i < 10_001; i++) fs.writeFileSync(path.join(ws.dir, `f${String(i).padStart(5, '0')}`), '');
    const byDefault = await glob(ws, { pattern: '*' });
    expect(byDefault.structuredContent).toMatchObject({ truncated: true });
    expect((byDefault.structuredContent!.files as string[]).at(-1)).toBe('f00499');
    expect(byDefault.text.split('\n').at(-1)).toBe('…[more than 500 matches; narrow the pattern]');
    const most = await glob(ws, { pattern: '*', max_results: 50_000 });
    expect(most.structuredContent!.files).toHaveLength(10_000);
    expect(most.text.split('\n').at(-1)).toBe('…[more than 10000 matches; narrow the pattern]');
  });

  it.each([
    [{ pattern: 'a/!(x)' }, 'glob_search: argument "pattern" uses a negated extglob !(...) in "a/!(x)"'],
    [{ pattern: ['*.ts'] }, 'glob_search: argument "pattern" must be a string'],
    [{ pattern: '*', path: 'nope' }, 'glob_search: "nope" does not exist'],
    [{ pattern: '*', max_results: 1.5 }, 'glob_search: argument "max_results" must be an integer of at least 1'],
  ])('refuses %j with a message naming the argument', async (args, message) => {
    expect(await glob(tempWorkspace(tree), args)).toMatchObject({ isError: true, text: expect.stringContaining(message) });
  });
});
