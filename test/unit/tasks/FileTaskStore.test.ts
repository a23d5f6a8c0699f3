import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTaskStore } from '../../../src/core/tasks/FileTaskStore';
import type { StoredTask } from '../../../src/core/tasks/taskTypes';
import { tempDir } from '../../support/servers';

const tmp = tempDir('task-store-');
afterAll(() => tmp.cleanup());
const task = (taskId: string, server = 's'): StoredTask => ({ server, taskId, tool: 'build', title: 'Build', createdAt: 1, ttlMs: 60_000, origin: { callId: 'c', conversationId: 'conv' } });

describe('FileTaskStore', () => {
  it('keeps each workspace its own tasks, one change at a time, in a file only its owner reads', async () => {
    const file = path.join(tmp.dir, 'a', 'tasks.json');
    const one = new FileTaskStore(file, '/ws/one');
    const two = new FileTaskStore(file, '/ws/two');
    await one.add(task('t1'));
    await two.add(task('t2'));
    await one.add(task('t3', 'other'));
    await one.add(task('t1'));
    expect(await one.load()).toEqual([task('t3', 'other'), task('t1')]);
    expect(await two.load()).toEqual([task('t2')]);
    await one.remove('s', 't1');
    await one.remove('other', 't3');
    expect(await one.load()).toEqual([]);
    expect(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8')))).toEqual(['/ws/two']);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reads an unreadable file as no tasks, and skips entries that are not tasks', async () => {
    const file = path.join(tmp.dir, 'b.json');
    fs.writeFileSync(file, '{ not json');
    expect(await new FileTaskStore(file, '/ws').load()).toEqual([]);
    fs.writeFileSync(file, JSON.stringify({ '/ws': [task('ok'), { server: 's', taskId: '' }, 'x', { ...task('no-origin'), origin: { conversationId: 1 } }] }));
    const { origin: _origin, ...bare } = task('no-origin');
    expect(await new FileTaskStore(file, '/ws').load()).toEqual([task('ok'), bare]);
    // A change rewrites the file whole, without what could not be read.
    await new FileTaskStore(file, '/ws').remove('s', 'ok');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ '/ws': [bare] });
  });

  it('keeps every task when several processes add at once', async () => {
    const file = path.join(tmp.dir, 'c.json');
    await Promise.all(Array.from({ length: 8 }, (_, i) => new FileTaskStore(file, '/ws').add(task(`t${i}`))));
    expect((await new FileTaskStore(file, '/ws').load()).map((t) => t.taskId).sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
  });
});
