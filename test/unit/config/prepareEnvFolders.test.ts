import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareEnvFolders } from '../../../src/core/config/prepareEnvFolders';

describe('prepareEnvFolders', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'env-folders-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates the missing folder of a file path inside the workspace', async () => {
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    const file = path.join(ws, '.harness', 'memory.jsonl');
    const notes = await prepareEnvFolders({ MEMORY_FILE_PATH: file }, [ws]);
    expect(notes).toEqual([{ variable: 'MEMORY_FILE_PATH', folder: path.join(ws, '.harness'), action: 'created' }]);
    expect(fs.statSync(path.join(ws, '.harness')).isDirectory()).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('only reports a missing folder outside every workspace folder', async () => {
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    const outside = path.join(dir, 'elsewhere', 'data.db');
    const notes = await prepareEnvFolders({ DB: outside }, [ws]);
    expect(notes).toEqual([{ variable: 'DB', folder: path.join(dir, 'elsewhere'), action: 'missing' }]);
    expect(fs.existsSync(path.join(dir, 'elsewhere'))).toBe(false);
  });

  it('leaves values alone that are no paths, relative, lists, or whose folder exists', async () => {
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    const notes = await prepareEnvFolders(
      { TOKEN: 'abc', REL: 'data/x.json', URL: 'https://example.com/a/b', LIST: `${ws}/a/b:${ws}/c/d`, OK: path.join(ws, 'x.json'), ROOT: ws },
      [ws],
    );
    expect(notes).toEqual([]);
    expect(fs.readdirSync(ws)).toEqual([]);
  });
});
