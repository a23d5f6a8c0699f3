import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServeConfig, parseServeConfigText } from '../../../src/core/config/parseServeConfig';
import { TempDir } from './tempDir';

describe('reading the serve section', () => {
  it('accepts comments and trailing commas', () => {
    const text = '{\n  // what serve offers\n  "serve": { "deny": ["a",], },\n}';
    expect(parseServeConfigText(text, 'f')).toEqual({ config: { expose: [], deny: ['a'] }, errors: [] });
  });

  it('takes nothing from a file with a syntax error, though the section before it is complete', () => {
    expect(parseServeConfigText('{"serve": {"deny": ["a"]}} trailing', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [] });
  });

  it('is no error for a file without a serve section', () => {
    expect(parseServeConfigText('{"servers": {}}', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [] });
  });

  it('accepts a limit of one', () => {
    expect(parseServeConfigText('{"serve": {"maxSessions": 1}}', 'f').config).toEqual({ expose: [], deny: [], maxSessions: 1 });
  });

  it('refuses list items that are not names: numbers and blank strings', () => {
    const { config, errors } = parseServeConfigText('{"serve": {"expose": [5, "  ", "ok"]}}', 'f');
    expect(config.expose).toEqual(['ok']);
    expect(errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['serve.expose[0]', 'expected a name or pattern, got number'],
      ['serve.expose[1]', 'expected a name or pattern, got string'],
    ]);
  });

  it('points each error at the line and column of the value at fault', () => {
    const text = ['{', '  "serve": {', '    "deny": "x",', '    "expose": [1],', '    "maxSessions": 0,', '    "other": true', '  }', '}'].join('\n');
    const errors = parseServeConfigText(text, '/c.json').errors;
    expect(errors.map((e) => [e.jsonPath, e.line, e.column])).toEqual([
      ['serve.expose[0]', 4, 16],
      ['serve.deny', 3, 13],
      ['serve.maxSessions', 5, 20],
      ['serve.other', 6, 14],
    ]);
    expect(parseServeConfigText('{\n  "serve": 3\n}', '/c.json').errors).toEqual([{ file: '/c.json', jsonPath: 'serve', line: 2, column: 12, message: 'expected object, got number' }]);
  });
});

describe('loading the serve sections', () => {
  let tmp: TempDir;
  beforeEach(() => {
    tmp = new TempDir();
  });
  afterEach(() => tmp.dispose());

  it('reads exactly the files it is given, and none when given none', async () => {
    const asked: string[] = [];
    const readFile = async (file: string) => {
      asked.push(file);
      throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    };
    await loadServeConfig({ readFile });
    expect(asked).toEqual([]);
    await loadServeConfig({ workspaceFolders: ['/ws'], readFile });
    expect(asked).toEqual([path.join('/ws', '.harness', 'mcp.json')]);
  });

  it('reads real files as UTF-8 by default', async () => {
    const user = tmp.write('config.json', '{"serve": {"expose": ["café_*"]}}');
    const ws = tmp.mkdir('ws');
    fs.mkdirSync(path.join(ws, '.harness'));
    fs.writeFileSync(path.join(ws, '.harness', 'mcp.json'), '{"serve": {"deny": ["run_command"]}}');
    const result = await loadServeConfig({ userConfigFile: user, workspaceFolders: [ws] });
    expect(result.expose).toEqual([{ pattern: 'café_*', source: { kind: 'user', file: user } }]);
    expect(result.deny).toEqual([{ pattern: 'run_command', source: { kind: 'workspace', file: path.join(ws, '.harness', 'mcp.json') } }]);
  });
});
