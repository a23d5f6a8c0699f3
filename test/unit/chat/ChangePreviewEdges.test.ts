import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandOf, fileChange, unifiedDiff, type FileChange } from '../../../src/core/chat/ChangePreview';
import { tempDir } from '../../support/servers';

const write = { originalName: 'write_file' };
const edit = { originalName: 'edit_file' };

describe('commandOf edges', () => {
  it('runs in "." when there is no workspace folder, and treats an empty cwd as none', () => {
    expect(commandOf({ command: 'ls' }, [])).toEqual({ line: 'ls', cwd: '.' });
    expect(commandOf({ command: 'ls', cwd: '' }, [])).toEqual({ line: 'ls', cwd: '.' });
    expect(commandOf({ command: 'ls', cwd: '' }, ['/ws/'])).toEqual({ line: 'ls', cwd: '/ws/' });
  });

  it('reads no command out of arguments that are not a plain object', () => {
    expect(commandOf(null, ['/ws'])).toBeUndefined();
    expect(commandOf([{ command: 'ls' }], ['/ws'])).toBeUndefined();
    expect(commandOf(Object.assign(() => undefined, { command: 'ls' }), ['/ws'])).toBeUndefined();
  });
});

describe('fileChange edges', () => {
  let ws: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ dir: ws, cleanup } = tempDir('change-preview-edges-'));
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n');
  });
  afterEach(() => cleanup());

  const noFile = { ok: false, error: 'no file to preview in these arguments' };

  it('previews only writes and edits that name a file', async () => {
    expect(await fileChange({ originalName: 'read_file' }, { path: 'a.txt', content: 'x' }, [ws])).toEqual(noFile);
    expect(await fileChange({ originalName: 'run_command' }, { path: 'a.txt', old_string: 'one', new_string: '1' }, [ws])).toEqual(noFile);
    expect(await fileChange(write, { path: 5, content: 'x' }, [ws])).toEqual(noFile);
    expect(await fileChange(write, { path: '', content: 'x' }, [ws])).toEqual(noFile);
    expect(await fileChange(edit, null, [ws])).toEqual(noFile);
    expect(await fileChange(write, [{ path: 'a.txt', content: 'x' }], [ws])).toEqual(noFile);
    expect(await fileChange(write, Object.assign(() => undefined, { path: 'a.txt', content: 'x' }), [ws])).toEqual(noFile);
  });

  it('resolves an absolute path without a workspace folder', async () => {
    const file = path.join(ws, 'a.txt');
    expect(await fileChange(write, { path: file, content: 'new\n' }, [])).toEqual({ ok: true, value: { path: file, absolute: file, before: 'one\ntwo\nthree\n', after: 'new\n' } });
  });

  it('says when a write has no text to write', async () => {
    expect(await fileChange(write, { path: 'a.txt' }, [ws])).toEqual({ ok: false, error: 'argument "content" is not a string' });
    expect(await fileChange(write, { path: 'a.txt', content: 3 }, [ws])).toEqual({ ok: false, error: 'argument "content" is not a string' });
  });

  it('refuses to preview a folder, an unreadable path, and a file over one megabyte', async () => {
    fs.mkdirSync(path.join(ws, 'sub'));
    const sub = path.join(ws, 'sub');
    expect(await fileChange(write, { path: 'sub', content: 'x' }, [ws])).toEqual({ ok: false, error: `${sub} is not a regular file` });
    const inner = path.join(ws, 'a.txt', 'inner');
    expect(await fileChange(write, { path: 'a.txt/inner', content: 'x' }, [ws])).toEqual({ ok: false, error: `${inner} cannot be read: ENOTDIR` });

    const big = path.join(ws, 'big.txt');
    fs.writeFileSync(big, 'x'.repeat(1024 * 1024 + 1));
    expect(await fileChange(write, { path: 'big.txt', content: 'y' }, [ws])).toEqual({ ok: false, error: `${big} is too large to preview (1048577 bytes)` });
    fs.writeFileSync(big, 'x'.repeat(1024 * 1024));
    expect(await fileChange(write, { path: 'big.txt', content: 'y' }, [ws])).toMatchObject({ ok: true, value: { after: 'y' } });
  });

  it('previews a built-in edit only when it matches exactly once, unless it replaces all', async () => {
    const edited = (args: Record<string, unknown>) => fileChange(edit, { path: 'a.txt', ...args }, [ws]);
    expect(await edited({ old_string: '', new_string: 'x' })).toEqual({ ok: false, error: 'old_string is not in the file exactly as given' });
    expect(await edited({ old_string: 'o', new_string: '0' })).toEqual({ ok: false, error: 'old_string occurs 2 times; the tool would refuse' });
    expect(await edited({ old_string: 'o', new_string: '0', replace_all: 'yes' })).toEqual({ ok: false, error: 'old_string occurs 2 times; the tool would refuse' });
    expect(await edited({ old_string: 'o', new_string: '0', replace_all: true })).toMatchObject({ ok: true, value: { after: '0ne\ntw0\nthree\n' } });
    expect(await edited({ old_string: 'two', new_string: '2', replace_all: true })).toMatchObject({ ok: true, value: { after: 'one\n2\nthree\n' } });
    expect(await edited({ old_string: 'e', new_string: 'E' })).toEqual({ ok: false, error: 'old_string occurs 3 times; the tool would refuse' });
  });

  it('needs both strings of a built-in edit, and otherwise reads the server edits', async () => {
    const edited = (args: Record<string, unknown>) => fileChange(edit, { path: 'a.txt', ...args }, [ws]);
    expect(await edited({ old_string: 'two' })).toEqual({ ok: false, error: 'no edits in these arguments' });
    expect(await edited({ new_string: 'two' })).toEqual({ ok: false, error: 'no edits in these arguments' });
    expect(await edited({})).toEqual({ ok: false, error: 'no edits in these arguments' });
    expect(await edited({ edits: { oldText: 'one', newText: '1' } })).toEqual({ ok: false, error: 'no edits in these arguments' });
    expect(await edited({ old_string: 'two', edits: [{ oldText: 'one', newText: '1' }] })).toMatchObject({ ok: true, value: { after: '1\ntwo\nthree\n' } });
  });

  it('names the server edit that has no texts or does not match', async () => {
    const edited = (edits: unknown[]) => fileChange(edit, { path: 'a.txt', edits }, [ws]);
    const first = { oldText: 'one', newText: '1' };
    expect(await edited([first, { oldText: 'two' }])).toEqual({ ok: false, error: 'edits[1] has no oldText and newText' });
    expect(await edited([first, { newText: '2' }])).toEqual({ ok: false, error: 'edits[1] has no oldText and newText' });
    expect(await edited([first, 'two'])).toEqual({ ok: false, error: 'edits[1] has no oldText and newText' });
    const loose = (i: number) => ({ ok: false, error: `edits[${i}].oldText is not in the file exactly as given (the server may still match it loosely)` });
    expect(await edited([first, { oldText: '', newText: 'x' }])).toEqual(loose(1));
    expect(await edited([{ oldText: 'four', newText: '4' }])).toEqual(loose(0));
    // Each edit applies to the text the earlier ones left.
    expect(await edited([first, { oldText: 'one', newText: 'x' }])).toEqual(loose(1));
    expect(await edited([first, { oldText: '1\ntwo', newText: 'x' }])).toMatchObject({ ok: true, value: { after: 'x\nthree\n' } });
  });

  it('applies a server edit found at the second character', async () => {
    expect(await fileChange(edit, { path: 'a.txt', edits: [{ oldText: 'ne', newText: 'NE' }] }, [ws])).toMatchObject({ ok: true, value: { after: 'oNE\ntwo\nthree\n' } });
  });
});

describe('unifiedDiff edges', () => {
  const numbered = Array.from({ length: 12 }, (_, i) => `l${i}`).join('\n') + '\n';
  const change = (p: string, before: string | undefined, after: string): FileChange => ({ path: p, absolute: `/${p}`, before, after });

  it('names files by their path without the leading slashes', () => {
    expect(unifiedDiff(change('//srv/app/a.txt', 'x\n', 'y\n')).text.split('\n').slice(0, 2)).toEqual(['--- a/srv/app/a.txt', '+++ b/srv/app/a.txt']);
    expect(unifiedDiff(change('src/a.txt', 'x\n', 'y\n')).text.split('\n').slice(0, 2)).toEqual(['--- a/src/a.txt', '+++ b/src/a.txt']);
  });

  it('shows a new file as added from nothing', () => {
    expect(unifiedDiff(change('new.md', undefined, '# hi\n'))).toEqual({ text: '--- /dev/null\n+++ b/new.md\n@@ -0,0 +1,1 @@\n+# hi', truncated: false });
  });

  it('shows three lines of context around a change', () => {
    const diff = unifiedDiff(change('n.txt', numbered, numbered.replace('l6', 'L6')));
    expect(diff.text.split('\n')).toEqual(['--- a/n.txt', '+++ b/n.txt', '@@ -4,7 +4,7 @@', ' l3', ' l4', ' l5', '-l6', '+L6', ' l7', ' l8', ' l9']);
  });

  it('is not cut when it has exactly as many lines as allowed', () => {
    const diff = unifiedDiff(change('n.txt', numbered, numbered.replace('l6', 'L6')), 11);
    expect(diff.text.split('\n')).toHaveLength(11);
    expect(diff.truncated).toBe(false);
    expect(unifiedDiff(change('n.txt', numbered, numbered.replace('l6', 'L6')), 10).truncated).toBe(true);
  });
});
