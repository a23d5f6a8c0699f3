import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changesThings, commandOf, fileChange, unifiedDiff } from '../../../src/core/chat/ChangePreview';

describe('changesThings', () => {
  it('counts writes and commands by name, destructive and explicitly writing tools', () => {
    expect(changesThings({ originalName: 'write_file' })).toBe(true);
    expect(changesThings({ originalName: 'run_command' })).toBe(true);
    expect(changesThings({ originalName: 'delete', annotations: { destructiveHint: true } })).toBe(true);
    expect(changesThings({ originalName: 'create_directory', annotations: { readOnlyHint: false, destructiveHint: false } })).toBe(true);
  });

  it('never counts a read-only tool, and leaves unannotated tools plain', () => {
    expect(changesThings({ originalName: 'write_file', annotations: { readOnlyHint: true } })).toBe(false);
    expect(changesThings({ originalName: 'read_graph', annotations: { readOnlyHint: true, destructiveHint: true } })).toBe(false);
    expect(changesThings({ originalName: 'echo' })).toBe(false);
  });
});

describe('commandOf', () => {
  it('shows the command line and the folder it runs in', () => {
    expect(commandOf({ command: 'npm test' }, ['/ws'])).toEqual({ line: 'npm test', cwd: '/ws' });
    expect(commandOf({ command: 'ls', cwd: 'src' }, ['/ws'])).toEqual({ line: 'ls', cwd: path.resolve('/ws', 'src') });
    expect(commandOf({}, ['/ws'])).toBeUndefined();
  });
});

describe('fileChange', () => {
  let ws: string;
  beforeEach(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'change-preview-'));
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\nthree\n');
  });
  afterEach(() => fs.rmSync(ws, { recursive: true, force: true }));

  it('previews a write over an existing file and a new one, writing nothing', async () => {
    const replaced = await fileChange({ originalName: 'write_file' }, { path: 'a.txt', content: 'one\n2\nthree\n' }, [ws]);
    expect(replaced).toMatchObject({ ok: true, value: { path: 'a.txt', absolute: path.join(ws, 'a.txt'), before: 'one\ntwo\nthree\n', after: 'one\n2\nthree\n' } });
    if (!replaced.ok) throw new Error('no change');
    const diff = unifiedDiff(replaced.value);
    expect(diff.text.split('\n')).toEqual(['--- a/a.txt', '+++ b/a.txt', '@@ -1,3 +1,3 @@', ' one', '-two', '+2', ' three']);
    expect(diff.truncated).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');

    const created = await fileChange({ originalName: 'write_file' }, { path: path.join(ws, 'new.md'), content: '# hi\n' }, [ws]);
    expect(created).toMatchObject({ ok: true, value: { before: undefined, after: '# hi\n' } });
    if (created.ok) expect(unifiedDiff(created.value).text).toMatch(/^--- \/dev\/null\n\+\+\+ b\/.*new\.md/);
    expect(fs.existsSync(path.join(ws, 'new.md'))).toBe(false);
  });

  it('applies the built-in edit and the filesystem server edit shapes', async () => {
    const builtin = await fileChange({ originalName: 'edit_file' }, { path: 'a.txt', old_string: 'two', new_string: 'TWO' }, [ws]);
    expect(builtin).toMatchObject({ ok: true, value: { after: 'one\nTWO\nthree\n' } });
    const server = await fileChange({ originalName: 'edit_file' }, { path: 'a.txt', edits: [{ oldText: 'one', newText: '1' }, { oldText: 'three', newText: '3' }] }, [ws]);
    expect(server).toMatchObject({ ok: true, value: { after: '1\ntwo\n3\n' } });
  });

  it('says why there is no preview', async () => {
    expect(await fileChange({ originalName: 'edit_file' }, { path: 'a.txt', old_string: 'four', new_string: '4' }, [ws])).toEqual({ ok: false, error: 'old_string is not in the file exactly as given' });
    expect(await fileChange({ originalName: 'edit_file' }, { path: 'missing.txt', old_string: 'a', new_string: 'b' }, [ws])).toEqual({ ok: false, error: 'missing.txt does not exist' });
    fs.writeFileSync(path.join(ws, 'bin'), Buffer.from([1, 0, 2]));
    expect(await fileChange({ originalName: 'write_file' }, { path: 'bin', content: 'x' }, [ws])).toMatchObject({ ok: false, error: expect.stringMatching(/binary/) });
    expect(await fileChange({ originalName: 'write_file' }, { path: 'x', content: 'x' }, [])).toMatchObject({ ok: false, error: expect.stringMatching(/no workspace folder/) });
    expect(await fileChange({ originalName: 'read_file' }, { path: 'a.txt' }, [ws])).toMatchObject({ ok: false });
  });

  it('cuts a long diff and says so', async () => {
    const content = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const change = await fileChange({ originalName: 'write_file' }, { path: 'long.txt', content }, [ws]);
    if (!change.ok) throw new Error(change.error);
    const diff = unifiedDiff(change.value, 10);
    expect(diff.text.split('\n')).toHaveLength(10);
    expect(diff.truncated).toBe(true);
  });
});
