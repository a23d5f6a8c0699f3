import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileTaskStore, storedTask } from '../../../src/core/tasks/FileTaskStore';
import type { StoredTask } from '../../../src/core/tasks/taskTypes';
import { tempDir } from '../../support/servers';

const tmp = tempDir('task-store-edges-');
afterAll(() => tmp.cleanup());
const base: StoredTask = { server: 's', taskId: 't1', tool: 'build', title: 'Build', createdAt: 5 };

describe('reading a stored task back', () => {
  it.each([null, undefined, 'task', 7])('refuses %j', (value) => {
    expect(storedTask(value)).toBeUndefined();
  });

  it.each(['server', 'taskId', 'tool', 'title'])('refuses a task whose %s is missing or empty', (key) => {
    expect(storedTask({ ...base, [key]: '' })).toBeUndefined();
    expect(storedTask({ ...base, [key]: 3 })).toBeUndefined();
  });

  it('refuses a task without a creation time', () => {
    expect(storedTask({ ...base, createdAt: '5' })).toBeUndefined();
  });

  it('keeps only a positive time to live', () => {
    expect(storedTask({ ...base, ttlMs: 100 })).toEqual({ ...base, ttlMs: 100 });
    for (const ttlMs of [0, -5, '100']) expect(storedTask({ ...base, ttlMs })).toEqual(base);
  });

  it('keeps the origin of the call when it names one, with only its known text fields', () => {
    expect(storedTask({ ...base, origin: { callId: 'c', modelCallId: 'm', conversationId: 2, extra: 'x' } })).toEqual({ ...base, origin: { callId: 'c', modelCallId: 'm' } });
    expect(storedTask({ ...base, origin: { callId: 'c', modelCallId: 4, conversationId: 'conv' } })).toEqual({ ...base, origin: { callId: 'c', conversationId: 'conv' } });
    for (const origin of [null, 'c', { callId: 1 }]) expect(storedTask({ ...base, origin })).toEqual(base);
  });
});

describe('FileTaskStore changes', () => {
  it('tells tasks of different servers apart, even with the same id', async () => {
    const store = new FileTaskStore(path.join(tmp.dir, 'ids.json'), '/ws');
    await store.add(base);
    await store.add({ ...base, server: 'other' });
    await store.add({ ...base, taskId: 't2' });
    await store.remove('s', 't1');
    expect((await store.load()).map((t) => `${t.server}/${t.taskId}`)).toEqual(['other/t1', 's/t2']);
    await store.remove('other', 't2');
    expect(await store.load()).toHaveLength(2);
  });

  it.each(['null', '[1, 2]', '42', '{ "/ws": "not a list" }'])('starts over from a file holding %s', async (content) => {
    const file = path.join(tmp.dir, `odd-${content.length}.json`);
    fs.writeFileSync(file, content);
    const store = new FileTaskStore(file, '/ws');
    expect(await store.load()).toEqual([]);
    await store.add(base);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ '/ws': [base] });
  });
});
