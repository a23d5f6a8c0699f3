import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../../src/core/tools/builtin/editFile';
import { createGlobSearchTool } from '../../../src/core/tools/builtin/globSearch';
import { createGrepSearchTool } from '../../../src/core/tools/builtin/grepSearch';
import { createListDirectoryTool } from '../../../src/core/tools/builtin/listDirectory';
import { createReadFileTool } from '../../../src/core/tools/builtin/readFile';
import { optionalInteger, optionalStringList, BuiltinArgumentError } from '../../../src/core/tools/builtin/toolKit';
import { walkFiles } from '../../../src/core/tools/builtin/walkFiles';
import { WorkspaceRoots } from '../../../src/core/tools/builtin/WorkspaceRoots';
import { createWriteFileTool } from '../../../src/core/tools/builtin/writeFile';

// Real files and symlinks in a temp workspace: what these tools read and write.
let ws: string;
let outside: string;
let roots: WorkspaceRoots;

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-edges-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-away-')));
  fs.mkdirSync(path.join(ws, 'src', 'node_modules', 'dep'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.git'));
  fs.mkdirSync(path.join(ws, 'b-dir'));
  fs.writeFileSync(path.join(ws, 'src', 'one.ts'), 'one\n');
  fs.writeFileSync(path.join(ws, 'src', 'two.ts'), 'two\n');
  fs.writeFileSync(path.join(ws, 'src', 'node_modules', 'dep', 'index.ts'), 'dep\n');
  fs.writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref\n');
  fs.writeFileSync(path.join(ws, 'b-dir', 'z.ts'), 'z\n');
  fs.writeFileSync(path.join(ws, 'a.ts'), 'a\n');
  fs.writeFileSync(path.join(outside, 'secret.ts'), 'secret\n');
  fs.symlinkSync(path.join(ws, 'a.ts'), path.join(ws, 'link-in.ts'));
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(ws, 'link-out.ts'));
  fs.symlinkSync(path.join(ws, 'missing.ts'), path.join(ws, 'link-broken.ts'));
  fs.symlinkSync(path.join(ws, 'src'), path.join(ws, 'link-dir'));
  roots = new WorkspaceRoots([ws]);
});

afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('walkFiles', () => {
  it('walks sorted and depth-first, skips .git and node_modules, follows file links inside only, never folder links', async () => {
    const seen: string[] = [];
    for await (const f of walkFiles(ws, ws)) seen.push(f.relative);
    expect(seen).toEqual(['a.ts', 'link-in.ts', 'b-dir/z.ts', 'src/one.ts', 'src/two.ts']);
    const inside: string[] = [];
    for await (const f of walkFiles(path.join(ws, 'src', 'node_modules'), ws)) inside.push(f.relative);
    expect(inside).toEqual(['dep/index.ts']);
  });

  it('stops when aborted, and goes on past a folder it cannot read', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const f of walkFiles(ws, ws, controller.signal)) {
      seen.push(f.relative);
      controller.abort();
    }
    // It looks at the signal between folders.
    expect(seen).toEqual(['a.ts', 'link-in.ts']);
    const none: string[] = [];
    for await (const f of walkFiles(path.join(ws, 'nowhere'), ws)) none.push(f.relative);
    expect(none).toEqual([]);
  });
});

describe('list_directory', () => {
  const list = (args: Record<string, unknown>) => createListDirectoryTool(roots).invoke(args, {});

  it('shows where links lead, and caps the entries it lists', async () => {
    const result = await list({});
    expect(result.text.split('\n')).toEqual([
      '(workspace root): 8 entries',
      '.git/',
      'b-dir/',
      'src/',
      'a.ts (2 B)',
      'link-broken.ts -> (outside the workspace or broken)',
      'link-dir -> src',
      'link-in.ts -> a.ts',
      'link-out.ts -> (outside the workspace or broken)',
    ]);
    const capped = await list({ path: 'src', max_entries: 1 });
    expect(capped.text).toBe('src/: 3 entries\nnode_modules/\n…[2 more entries not shown]');
    expect(capped.structuredContent).toEqual({ path: 'src', entries: [{ name: 'node_modules', type: 'directory' }], total: 3 });
    expect((await list({ path: 'b-dir' })).text).toBe('b-dir/: 1 entry\nz.ts (2 B)');
  });

  it('refuses a file, and a bad count', async () => {
    expect(await list({ path: 'a.ts' })).toMatchObject({ isError: true, text: 'list_directory: "a.ts" is not a directory' });
    expect(await list({ max_entries: 0 })).toMatchObject({ isError: true, text: 'list_directory: argument "max_entries" must be an integer of at least 1' });
  });
});

describe('glob_search', () => {
  it('says when there are more matches than it shows', async () => {
    const glob = createGlobSearchTool(roots);
    const result = await glob.invoke({ pattern: '**/*.ts', max_results: 2 }, {});
    expect(result.text.split('\n').slice(0, 3)).toEqual(['a.ts', 'link-in.ts', expect.stringContaining('more')]);
    expect(await glob.invoke({ pattern: '' }, {})).toMatchObject({ isError: true, text: 'glob_search: argument "pattern" must not be empty' });
    expect((await glob.invoke({ pattern: '*.md' }, {})).isError).toBe(false);
  });
});

describe('grep_search', () => {
  it('searches one file when given one', async () => {
    const result = await createGrepSearchTool(roots).invoke({ pattern: 'two', path: 'src/two.ts' }, {});
    expect(result.text).toContain('src/two.ts:1: two');
  });
});

describe('read_file', () => {
  it('says a range starts past the end, and cuts a long line without breaking a character', async () => {
    const read = createReadFileTool(roots);
    expect((await read.invoke({ path: 'a.ts', start_line: 5 }, {})).text).toContain('[a.ts has fewer than 5 lines]');
    fs.writeFileSync(path.join(ws, 'wide.txt'), `${'é'.repeat(200_000)}\nsecond\n`);
    const wide = await read.invoke({ path: 'wide.txt' }, {});
    expect(wide.text).not.toContain('\uFFFD');
    expect(wide.text).toMatch(/output capped/);
  });
});

describe('write_file and edit_file', () => {
  it('says whether it created or replaced a file', async () => {
    const write = createWriteFileTool(roots);
    expect((await write.invoke({ path: 'new/file.txt', content: 'hello' }, {})).text).toBe('Created new/file.txt (5 B).');
    expect((await write.invoke({ path: 'new/file.txt', content: 'hello!' }, {})).text).toBe('Replaced new/file.txt (6 B).');
  });

  it('refuses edits that cannot mean anything, and edits every occurrence when asked', async () => {
    const edit = (args: Record<string, unknown>) => createEditFileTool(roots).invoke(args, {});
    fs.writeFileSync(path.join(ws, 'twice.txt'), 'x y x\n');
    expect(await edit({ path: 'twice.txt', old_string: '', new_string: 'a' })).toMatchObject({ isError: true, text: 'edit_file: argument "old_string" must not be empty (use write_file to create a file)' });
    expect(await edit({ path: 'twice.txt', old_string: 'x', new_string: 'x' })).toMatchObject({ isError: true, text: 'edit_file: "old_string" and "new_string" are the same; nothing to change' });
    expect(await edit({ path: 'src', old_string: 'a', new_string: 'b' })).toMatchObject({ isError: true, text: 'edit_file: "src" is not a regular file' });
    fs.writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([0, 1, 2, 0, 255]));
    expect(await edit({ path: 'bin.dat', old_string: 'a', new_string: 'b' })).toMatchObject({ isError: true, text: 'edit_file: "bin.dat" is a binary file' });
    const all = await edit({ path: 'twice.txt', old_string: 'x', new_string: 'z', replace_all: true });
    expect(all.text.split('\n')[0]).toBe('Edited twice.txt: 2 replacements.');
    expect(fs.readFileSync(path.join(ws, 'twice.txt'), 'utf8')).toBe('z y z\n');
    const one = await edit({ path: 'twice.txt', old_string: 'y', new_string: 'w' });
    expect(one.structuredContent).toMatchObject({ path: 'twice.txt', replacements: 1, diff: expect.stringMatching(/^--- a\/twice.txt/) });
  });
});

describe('argument helpers', () => {
  it('read integers within bounds and strings or lists of strings', () => {
    expect(optionalInteger({}, 'n')).toBeUndefined();
    expect(optionalInteger({ n: null }, 'n')).toBeUndefined();
    expect(optionalInteger({ n: 5 }, 'n', { max: 3 })).toBe(3);
    expect(optionalInteger({ n: 0 }, 'n', { min: 0 })).toBe(0);
    expect(() => optionalInteger({ n: 1.5 }, 'n')).toThrow(BuiltinArgumentError);
    expect(() => optionalInteger({ n: '2' }, 'n')).toThrow('argument "n" must be an integer of at least 1');
    expect(optionalStringList({ s: 'a' }, 's')).toEqual(['a']);
    expect(optionalStringList({ s: ['a', 'b'] }, 's')).toEqual(['a', 'b']);
    expect(optionalStringList({}, 's')).toBeUndefined();
    expect(() => optionalStringList({ s: ['a', 1] }, 's')).toThrow('argument "s" must be a string or a list of strings');
  });
});
