import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMcpConfig, mergeServerDefinitions, McpServerDefinition } from '../../../src/core/config';
import { TempDir } from './tempDir';

let tmp: TempDir;
beforeEach(() => {
  tmp = new TempDir();
});
afterEach(() => {
  tmp.dispose();
});

/** `{ "<key>": { name: { command: "<tag>" } } }` for each name. */
function config(key: 'servers' | 'mcpServers', tag: string, ...names: string[]): string {
  return JSON.stringify({ [key]: Object.fromEntries(names.map((n) => [n, { command: tag }])) }, null, 2);
}

function summary(servers: readonly McpServerDefinition[]) {
  return servers.map((s) => [s.name, s.command, s.origin.source, s.workspaceFolder]);
}

describe('loadMcpConfig', () => {
  it('returns nothing, without errors, for a folder with no config files', async () => {
    const folder = tmp.mkdir('empty');
    expect(await loadMcpConfig({ workspaceFolders: [folder] })).toEqual({ servers: [], errors: [] });
    expect(await loadMcpConfig({})).toEqual({ servers: [], errors: [] });
  });

  it('ignores a missing file even when a path segment is a file (ENOTDIR)', async () => {
    tmp.write('ws/.vscode', 'not a folder');
    const folder = tmp.path('ws');
    expect(await loadMcpConfig({ workspaceFolders: [folder] })).toEqual({ servers: [], errors: [] });
  });

  it('reports a config path that cannot be read (EISDIR) naming the file', async () => {
    tmp.mkdir('ws/.mcp.json');
    const folder = tmp.path('ws');
    const result = await loadMcpConfig({ workspaceFolders: [folder] });
    expect(result.errors).toEqual([{ file: path.join(folder, '.mcp.json'), message: 'cannot read file (EISDIR)' }]);
  });

  it('reads all three workspace files with absolute origins and entry positions', async () => {
    const vscodeFile = tmp.write('ws/.vscode/mcp.json', config('servers', 'v', 'a'));
    tmp.write('ws/.mcp.json', config('mcpServers', 'c', 'b'));
    tmp.write('ws/.harness/mcp.json', config('servers', 'h', 'c'));
    const folder = tmp.path('ws');
    const result = await loadMcpConfig({ workspaceFolders: [folder] });
    expect(result.errors).toEqual([]);
    expect(summary(result.servers)).toEqual([
      ['a', 'v', 'vscode', folder],
      ['b', 'c', 'claude', folder],
      ['c', 'h', 'harness', folder],
    ]);
    expect(result.servers[0].origin).toEqual({ source: 'vscode', file: vscodeFile, jsonPath: 'servers.a', line: 3, column: 5 });
  });

  it('applies precedence: explicit, then per folder .vscode, .mcp.json, .harness, then user', async () => {
    const explicit1 = tmp.write('explicit1.json', config('mcpServers', 'e1', 'x'));
    const explicit2 = tmp.write('explicit2.json', config('servers', 'e2', 'x', 'e2only'));
    tmp.write('ws1/.vscode/mcp.json', config('servers', 'v1', 'x', 'shared', 'v1only'));
    tmp.write('ws1/.mcp.json', config('mcpServers', 'c1', 'shared', 'v1only', 'c1only'));
    tmp.write('ws1/.harness/mcp.json', config('servers', 'h1', 'c1only', 'h1only'));
    tmp.write('ws2/.mcp.json', config('mcpServers', 'c2', 'shared', 'h1only', 'c2only'));
    const [ws1, ws2] = [tmp.path('ws1'), tmp.path('ws2')];
    const result = await loadMcpConfig({
      configFiles: [explicit1, explicit2],
      workspaceFolders: [ws1, ws2],
      userServers: {
        label: 'settings.json',
        jsonPath: 'mcpHarness.servers',
        entries: { c2only: { command: 'u' }, user: { command: 'u' } },
      },
    });
    expect(result.errors).toEqual([]);
    expect(summary(result.servers)).toEqual([
      ['x', 'e1', 'explicit', ws1],
      ['e2only', 'e2', 'explicit', ws1],
      ['shared', 'v1', 'vscode', ws1],
      ['v1only', 'v1', 'vscode', ws1],
      ['c1only', 'c1', 'claude', ws1],
      ['h1only', 'h1', 'harness', ws1],
      ['c2only', 'c2', 'claude', ws2],
      ['user', 'u', 'user', ws1],
    ]);
    const user = result.servers.find((s) => s.name === 'user');
    expect(user?.origin).toEqual({ source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.servers.user' });
  });

  it('gives explicit and user entries no workspace folder when none is open', async () => {
    const file = tmp.write('cfg.json', config('servers', 'e', 'a'));
    const result = await loadMcpConfig({
      configFiles: [file],
      userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { b: { url: 'http://h' } } },
    });
    expect(summary(result.servers)).toEqual([
      ['a', 'e', 'explicit', undefined],
      ['b', undefined, 'user', undefined],
    ]);
  });

  it('reports a missing explicit file (the user named it)', async () => {
    const missing = tmp.path('nope.json');
    const result = await loadMcpConfig({ configFiles: [missing] });
    expect(result.errors).toEqual([{ file: missing, message: 'file not found' }]);
  });

  it('reports problems in every file and keeps loading the rest', async () => {
    tmp.write('ws/.vscode/mcp.json', '{ "servers": { "a": { "command": "x" }, } ');
    tmp.write(
      'ws/.mcp.json',
      '{\n  "mcpServers": {\n    "b": { "command": "npx", "args": ["a", 1] },\n    "c": { "command": "y" }\n  }\n}',
    );
    const folder = tmp.path('ws');
    const result = await loadMcpConfig({ workspaceFolders: [folder] });
    expect(result.errors).toEqual([
      { file: path.join(folder, '.vscode', 'mcp.json'), line: 1, column: 43, message: 'syntax error: CloseBraceExpected' },
      {
        file: path.join(folder, '.mcp.json'),
        jsonPath: 'mcpServers.b.args[1]',
        line: 3,
        column: 44,
        message: 'expected string, got number',
        server: 'b',
      },
    ]);
    expect(result.servers.map((s) => [s.name, s.problem])).toEqual([
      ['b', '.mcp.json:3:44: mcpServers.b.args[1]: expected string, got number'],
      ['c', undefined],
    ]);
  });

  it('validates user entries like file entries, at paths under the host prefix', async () => {
    const result = await loadMcpConfig({
      userServers: {
        label: 'settings.json',
        jsonPath: 'mcpHarness.servers',
        entries: { bad: { command: 'x', env: { PORT: 1 } }, 'my server': { url: 'http://h' } },
      },
    });
    expect(result.errors).toEqual([
      {
        file: 'settings.json',
        jsonPath: 'mcpHarness.servers.bad.env.PORT',
        message: 'expected string, got number',
        server: 'bad',
      },
    ]);
    expect(result.servers.map((s) => [s.origin.jsonPath, s.problem])).toEqual([
      ['mcpHarness.servers.bad', 'settings.json: mcpHarness.servers.bad.env.PORT: expected string, got number'],
      ['mcpHarness.servers["my server"]', undefined],
    ]);
    const notAnObject = await loadMcpConfig({
      userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: [] },
    });
    expect(notAnObject.errors).toEqual([
      { file: 'settings.json', jsonPath: 'mcpHarness.servers', message: 'expected object, got array' },
    ]);
  });

  it('uses an injected readFile', async () => {
    const reads: string[] = [];
    const result = await loadMcpConfig({
      workspaceFolders: ['/virtual'],
      readFile: async (file) => {
        reads.push(file);
        if (file === path.join('/virtual', '.mcp.json')) {
          return config('mcpServers', 'v', 'a');
        }
        throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      },
    });
    const expected = [['.harness', 'mcp.json'], ['.mcp.json'], ['.vscode', 'mcp.json']].map((s) => path.join('/virtual', ...s));
    expect(reads.sort()).toEqual(expected.sort());
    expect(summary(result.servers)).toEqual([['a', 'v', 'claude', '/virtual']]);
  });

  it('reads a real file on disk each call (edits take effect on reload)', async () => {
    const file = tmp.write('ws/.mcp.json', config('mcpServers', 'one', 'a'));
    const folder = tmp.path('ws');
    expect((await loadMcpConfig({ workspaceFolders: [folder] })).servers[0].command).toBe('one');
    fs.writeFileSync(file, config('mcpServers', 'two', 'a'));
    expect((await loadMcpConfig({ workspaceFolders: [folder] })).servers[0].command).toBe('two');
  });
});

describe('mergeServerDefinitions', () => {
  const def = (name: string, command: string) =>
    ({ name, command, origin: { source: 'user', file: 'l', jsonPath: name } }) as unknown as McpServerDefinition;

  it('keeps the first definition of each name in order of first appearance', () => {
    const merged = mergeServerDefinitions([[def('a', '1'), def('b', '1')], [], [def('b', '2'), def('c', '2'), def('a', '2')]]);
    expect(merged.map((d) => [d.name, d.command])).toEqual([
      ['a', '1'],
      ['b', '1'],
      ['c', '2'],
    ]);
  });
});
