import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isWithin, WorkspacePathError, WorkspaceRoots } from '../../../src/core/tools/builtin/WorkspaceRoots';
import { tempDir } from '../../support/servers';
import { tempWorkspace } from '../../support/workspace';

/** A folder outside the workspace, removed when the test finishes. */
function elsewhere(): string {
  const away = tempDir('tool-away-');
  onTestFinished(away.cleanup);
  return away.dir;
}

async function refusal(pending: Promise<unknown>): Promise<WorkspacePathError> {
  const err = await pending.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(WorkspacePathError);
  return err as WorkspacePathError;
}

describe('WorkspaceRoots.resolveExisting', () => {
  it('names a path by its place under the root, with forward slashes; the root itself is "."', async () => {
    const ws = tempWorkspace({ 'src/deep/x.ts': 'x\n' });
    expect(await ws.roots.resolveExisting('src/deep/x.ts')).toEqual({ absolute: ws.at('src/deep/x.ts'), relative: 'src/deep/x.ts', root: ws.dir });
    expect(await ws.roots.resolveExisting('src/../src/deep')).toEqual({ absolute: ws.at('src/deep'), relative: 'src/deep', root: ws.dir });
    expect((await ws.roots.resolveExisting('')).relative).toBe('.');
    expect((await ws.roots.resolveExisting(ws.dir)).relative).toBe('.');
  });

  it('resolves roots given relative to the current folder', () => {
    expect(new WorkspaceRoots(['some/where', '/abs/root']).roots).toEqual([path.resolve('some/where'), '/abs/root']);
  });

  it('says no folder is open when there are no roots', async () => {
    const roots = new WorkspaceRoots([]);
    for (const resolve of [() => roots.resolveExisting('a.txt'), () => roots.resolveForWrite('a.txt')]) {
      const err = await refusal(resolve());
      expect(err).toMatchObject({ name: 'WorkspacePathError', code: 'no_roots', message: 'no workspace folder is open' });
    }
  });

  it('refuses a path with a NUL byte, or one that is not a string', async () => {
    const ws = tempWorkspace({ 'a.txt': 'a' });
    expect(await refusal(ws.roots.resolveExisting('a.txt\0.png'))).toMatchObject({ code: 'outside_workspace', message: '"a.txt\0.png" is not a valid path' });
    expect((await refusal(ws.roots.resolveForWrite(42 as unknown as string))).message).toBe('"42" is not a valid path');
  });

  it('refuses ".." onto the parent and a sibling folder whose name starts like the root, naming the workspace', async () => {
    const top = tempWorkspace({ 'ws/a.txt': 'a', 'ws-other/b.txt': 'b' });
    const roots = new WorkspaceRoots([top.at('ws')]);
    expect(await refusal(roots.resolveExisting('..'))).toMatchObject({
      code: 'outside_workspace',
      message: `".." climbs out of the workspace with ".." (the workspace is ${top.at('ws')})`,
    });
    const sibling = top.at('ws-other/b.txt');
    expect((await refusal(roots.resolveExisting(sibling))).message).toBe(`"${sibling}" is outside the workspace (the workspace is ${top.at('ws')})`);
    expect((await refusal(roots.resolveExisting('../ws-other/b.txt'))).message).toContain('climbs out of the workspace');
  });

  it('accepts a name that merely starts with two dots', async () => {
    const ws = tempWorkspace({ '..notes.txt': 'n', 'd/..x': 'x' });
    expect((await ws.roots.resolveExisting('..notes.txt')).relative).toBe('..notes.txt');
    expect((await ws.roots.resolveForWrite('d/..x')).relative).toBe('d/..x');
  });

  it('reports a missing path, and a path that goes through a file, as not found', async () => {
    const ws = tempWorkspace({ 'a.txt': 'a' });
    expect(await refusal(ws.roots.resolveExisting('nope/x.txt'))).toMatchObject({ code: 'not_found', message: '"nope/x.txt" does not exist' });
    expect(await refusal(ws.roots.resolveExisting('a.txt/x'))).toMatchObject({ code: 'not_found', message: '"a.txt/x" does not exist' });
  });

  it('passes on an error other than a missing file, such as a symlink loop', async () => {
    const ws = tempWorkspace();
    fs.symlinkSync('loop', ws.at('loop'));
    // Each asked only when the one before has been answered: a rejection nobody waits on yet is an unhandled one.
    for (const resolve of [() => ws.roots.resolveExisting('loop'), () => ws.roots.resolveForWrite('loop'), () => ws.roots.resolveForWrite('loop/x.txt')]) {
      const err = await resolve().then(() => undefined, (e: unknown) => e);
      expect(err).not.toBeInstanceOf(WorkspacePathError);
      expect(err).toMatchObject({ code: 'ELOOP' });
    }
  });

  it('refuses a link to elsewhere, saying where it leads', async () => {
    const ws = tempWorkspace();
    const away = elsewhere();
    fs.writeFileSync(path.join(away, 's.txt'), 's');
    fs.symlinkSync(path.join(away, 's.txt'), ws.at('out.txt'));
    expect(await refusal(ws.roots.resolveExisting('out.txt'))).toMatchObject({
      code: 'outside_workspace',
      message: `"out.txt" resolves through a symlink to ${path.join(away, 's.txt')}, outside the workspace (the workspace is ${ws.dir})`,
    });
  });

  it('resolves relative paths against the first of several roots, and absolute ones in any', async () => {
    const top = tempWorkspace({ 'one/f.txt': '1', 'two/f.txt': '2', 'two/g.txt': 'g' });
    const roots = new WorkspaceRoots([top.at('one'), top.at('two')]);
    expect(await roots.resolveExisting('f.txt')).toEqual({ absolute: top.at('one/f.txt'), relative: 'f.txt', root: top.at('one') });
    expect(await roots.resolveExisting(top.at('two/g.txt'))).toEqual({ absolute: top.at('two/g.txt'), relative: 'g.txt', root: top.at('two') });
    expect((await refusal(roots.resolveExisting('g.txt'))).code).toBe('not_found');
    expect((await refusal(roots.resolveExisting('/'))).message).toBe(`"/" is outside the workspace (the workspace folders are ${top.at('one')}, ${top.at('two')})`);
  });

  it('accepts a root given through a symlink, by its link path and by its real path', async () => {
    const top = tempWorkspace({ 'real/a.txt': 'a' });
    fs.symlinkSync(top.at('real'), top.at('alias'));
    const roots = new WorkspaceRoots([top.at('alias')]);
    const expected = { absolute: top.at('real/a.txt'), relative: 'a.txt', root: top.at('real') };
    expect(await roots.resolveExisting('a.txt')).toEqual(expected);
    expect(await roots.resolveExisting(top.at('alias/a.txt'))).toEqual(expected);
    expect(await roots.resolveExisting(top.at('real/a.txt'))).toEqual(expected);
    expect(await roots.resolveForWrite(top.at('real/new.txt'))).toEqual({ ...expected, absolute: top.at('real/new.txt'), relative: 'new.txt' });
  });
});

describe('WorkspaceRoots.resolveForWrite', () => {
  it('resolves a path that does not exist yet, missing folders and all, through links that stay inside', async () => {
    const ws = tempWorkspace({ 'src/a.ts': 'a' });
    fs.symlinkSync(ws.at('src'), ws.at('link-dir'));
    expect(await ws.roots.resolveForWrite('new/a/b.txt')).toEqual({ absolute: ws.at('new/a/b.txt'), relative: 'new/a/b.txt', root: ws.dir });
    expect(await ws.roots.resolveForWrite('link-dir/x/y.ts')).toEqual({ absolute: ws.at('src/x/y.ts'), relative: 'src/x/y.ts', root: ws.dir });
    expect((await ws.roots.resolveForWrite('src/a.ts')).relative).toBe('src/a.ts');
  });

  it('follows a dangling link to where writing would land, relative targets from the link\'s folder', async () => {
    const ws = tempWorkspace({ 'd/keep.txt': 'k' });
    fs.symlinkSync(ws.at('missing.txt'), ws.at('broken'));
    fs.symlinkSync('../later.txt', ws.at('d/rel-broken'));
    fs.symlinkSync(ws.at('nodir'), ws.at('broken-dir'));
    expect(await ws.roots.resolveForWrite('broken')).toEqual({ absolute: ws.at('missing.txt'), relative: 'missing.txt', root: ws.dir });
    expect((await ws.roots.resolveForWrite('d/rel-broken')).relative).toBe('later.txt');
    expect((await ws.roots.resolveForWrite('broken-dir/x/y.txt')).relative).toBe('nodir/x/y.txt');
  });

  it('refuses a dangling link to elsewhere, saying it is a symlink', async () => {
    const ws = tempWorkspace();
    const away = elsewhere();
    fs.symlinkSync(path.join(away, 'planted.txt'), ws.at('dangling.txt'));
    expect(await refusal(ws.roots.resolveForWrite('dangling.txt'))).toMatchObject({
      code: 'outside_workspace',
      message: `"dangling.txt" is a symlink to ${path.join(away, 'planted.txt')}, outside the workspace (the workspace is ${ws.dir})`,
    });
    fs.symlinkSync(away, ws.at('out'));
    expect((await refusal(ws.roots.resolveForWrite('out/x/y.txt'))).message).toBe(
      `"out/x/y.txt" resolves through a symlink to ${path.join(away, 'x', 'y.txt')}, outside the workspace (the workspace is ${ws.dir})`,
    );
  });

  it('resolves a path below a file, leaving the write itself to fail', async () => {
    const ws = tempWorkspace({ 'a.txt': 'a' });
    expect(await ws.roots.resolveForWrite('a.txt/x')).toEqual({ absolute: ws.at('a.txt/x'), relative: 'a.txt/x', root: ws.dir });
  });

  it('resolves paths in a root folder that does not exist yet', async () => {
    const top = tempWorkspace();
    const roots = new WorkspaceRoots([top.at('future')]);
    expect(await roots.resolveForWrite('sub/f.txt')).toEqual({ absolute: top.at('future/sub/f.txt'), relative: 'sub/f.txt', root: top.at('future') });
    expect((await refusal(roots.resolveExisting('sub/f.txt'))).code).toBe('not_found');
  });
});

describe('isWithin', () => {
  it('holds for the folder itself and what is below it, not for the parent or a sibling with a longer name', () => {
    expect(isWithin('/w/a', '/w/a')).toBe(true);
    expect(isWithin('/w/a', '/w/a/b/c')).toBe(true);
    expect(isWithin('/w/a', '/w/a/..b')).toBe(true);
    expect(isWithin('/w/a', '/w')).toBe(false);
    expect(isWithin('/w/a', '/w/ab')).toBe(false);
    expect(isWithin('/w/a', '/w/b/a')).toBe(false);
  });
});
