import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadHooksConfig } from '../../../src/core/config/loadHooksConfig';
import { TempDir } from './tempDir';

/** A hooks file with one PreToolUse command. */
const hooksFile = (command: string) => JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } });

describe('loadHooksConfig with real files', () => {
  let tmp: TempDir;
  beforeEach(() => {
    tmp = new TempDir();
  });
  afterEach(() => tmp.dispose());

  it('reads nothing from nowhere', async () => {
    expect(await loadHooksConfig({})).toEqual({ hooks: [], errors: [] });
  });

  it('runs the hooks of each folder in folder order, each belonging to its folder, Claude Code settings only when opted in', async () => {
    const a = tmp.mkdir('a');
    const b = tmp.mkdir('b');
    tmp.write('a/.harness/hooks.json', hooksFile('a-harness'));
    tmp.write('a/.claude/settings.json', hooksFile('a-claude'));
    tmp.write('b/.harness/hooks.json', hooksFile('b-harness'));
    tmp.write('b/.claude/settings.json', hooksFile('b-claude'));
    const plain = await loadHooksConfig({ workspaceFolders: [a, b] });
    expect(plain.hooks.map((h) => [h.command, h.origin.source, h.origin.workspaceFolder, h.origin.file])).toEqual([
      ['a-harness', 'workspace', a, path.join(a, '.harness', 'hooks.json')],
      ['b-harness', 'workspace', b, path.join(b, '.harness', 'hooks.json')],
    ]);
    const all = await loadHooksConfig({ workspaceFolders: [a, b], claudeSettings: true });
    expect(all.hooks.map((h) => [h.command, h.origin.source, h.origin.workspaceFolder])).toEqual([
      ['a-harness', 'workspace', a],
      ['a-claude', 'claude', a],
      ['b-harness', 'workspace', b],
      ['b-claude', 'claude', b],
    ]);
    expect(all.hooks[1]!.id).toBe(`${path.join(a, '.claude', 'settings.json')}#hooks.PreToolUse[0].hooks[0]`);
    expect(all.hooks[1]!.origin).toMatchObject({ jsonPath: 'hooks.PreToolUse[0].hooks[0]', line: 1, column: 35 });
    expect(all.errors).toEqual([]);
  });

  it('resolves user and explicit files, which belong to the first folder, or to none', async () => {
    const a = tmp.mkdir('a');
    const mine = tmp.write('mine.json', hooksFile('mine'));
    const named = tmp.write('named.json', hooksFile('named'));
    const relative = path.relative(process.cwd(), named);
    const withFolder = await loadHooksConfig({ workspaceFolders: [a, tmp.mkdir('b')], userFiles: [path.relative(process.cwd(), mine)], files: [relative] });
    expect(withFolder.hooks.map((h) => [h.command, h.origin.source, h.origin.file, h.origin.workspaceFolder])).toEqual([
      ['mine', 'user', mine, a],
      ['named', 'explicit', named, a],
    ]);
    const alone = await loadHooksConfig({ userFiles: [mine], files: [named] });
    expect(alone.hooks.map((h) => h.command)).toEqual(['mine', 'named']);
    for (const hook of alone.hooks) expect(hook.origin).not.toHaveProperty('workspaceFolder');
  });

  it("reads the host's own entries first, at their path in its label, belonging to the first folder if any", async () => {
    const a = tmp.mkdir('a');
    tmp.write('a/.harness/hooks.json', hooksFile('workspace'));
    const user = { label: 'settings.json', path: ['mcpHarness', 'hooks'], value: { PreToolUse: [{ hooks: [{ type: 'command', command: 'mine' }, { type: 'command' }] }] } };
    const loaded = await loadHooksConfig({ workspaceFolders: [a], user, files: [tmp.write('x.json', '{ "hooks": { "Stop": [] } }')] });
    expect(loaded.hooks.map((h) => [h.command, h.origin])).toEqual([
      ['mine', { source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.hooks.PreToolUse[0].hooks[0]', workspaceFolder: a }],
      ['workspace', expect.objectContaining({ source: 'workspace' })],
    ]);
    // Errors come in the same order: the host's entries, then each file.
    expect(loaded.errors).toEqual([
      { file: 'settings.json', jsonPath: 'mcpHarness.hooks.PreToolUse[0].hooks[1].command', message: 'expected a command line, got undefined' },
      { file: tmp.path('x.json'), jsonPath: 'hooks.Stop', line: 1, column: 14, message: 'unknown hook event (expected PreToolUse, PostToolUse, UserPromptSubmit, SessionStart)' },
    ]);
    const noFolder = await loadHooksConfig({ user });
    expect(noFolder.hooks[0]!.origin).not.toHaveProperty('workspaceFolder');
  });

  it('skips missing places except a named file, and says when a file cannot be read', async () => {
    const a = tmp.mkdir('a');
    // `.harness` is a file here: its hooks.json cannot exist (ENOTDIR), which is the same as missing.
    tmp.write('a/.harness', 'not a folder');
    const b = tmp.mkdir('b');
    tmp.mkdir('b/.harness/hooks.json');
    const loaded = await loadHooksConfig({
      workspaceFolders: [a, b],
      claudeSettings: true,
      userFiles: [tmp.path('absent.json'), tmp.path('a/.harness/user.json')],
      files: [tmp.path('gone.json'), tmp.path('a/.harness/inner.json'), tmp.mkdir('dir.json')],
    });
    expect(loaded.hooks).toEqual([]);
    expect(loaded.errors).toEqual([
      { file: tmp.path('gone.json'), message: 'file not found' },
      { file: tmp.path('a/.harness/inner.json'), message: 'file not found' },
      { file: tmp.path('dir.json'), message: 'cannot read file (EISDIR)' },
      { file: path.join(b, '.harness', 'hooks.json'), message: 'cannot read file (EISDIR)' },
    ]);
  });

  it('reports a broken file for itself, and the other files still count', async () => {
    const a = tmp.mkdir('a');
    tmp.write('a/.harness/hooks.json', '{ "hooks": ');
    tmp.write('a/.claude/settings.json', hooksFile('claude'));
    const loaded = await loadHooksConfig({ workspaceFolders: [a], claudeSettings: true });
    expect(loaded.hooks.map((h) => h.command)).toEqual(['claude']);
    expect(loaded.errors).toEqual([{ file: path.join(a, '.harness', 'hooks.json'), line: 1, column: 12, message: 'invalid JSON: ValueExpected' }]);
  });

  it('words failures of a host reader, with or without an error code', async () => {
    const failing = (reason: unknown) => loadHooksConfig({ files: ['/h/x.json'], readFile: () => Promise.reject(reason) });
    expect((await failing(Object.assign(new Error('nope'), { code: 'EACCES' }))).errors).toEqual([{ file: path.resolve('/h/x.json'), message: 'cannot read file (EACCES)' }]);
    expect((await failing(new Error('boom'))).errors).toEqual([{ file: path.resolve('/h/x.json'), message: 'cannot read file (Error: boom)' }]);
    expect((await failing(undefined)).errors).toEqual([{ file: path.resolve('/h/x.json'), message: 'cannot read file (undefined)' }]);
    const read: string[] = [];
    const loaded = await loadHooksConfig({ workspaceFolders: ['/w'], userFiles: ['/u.json'], readFile: async (file) => (read.push(file), hooksFile(file)) });
    expect(read).toEqual([path.resolve('/u.json'), path.join('/w', '.harness', 'hooks.json')]);
    expect(loaded.hooks.map((h) => h.command)).toEqual(read);
    read.length = 0;
    await loadHooksConfig({ workspaceFolders: ['/w'], readFile: async (file) => (read.push(file), '{}') });
    expect(read).toEqual([path.join('/w', '.harness', 'hooks.json')]);
  });
});
