import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServeConfig, parseServeConfigText } from '../../../src/core/config/parseServeConfig';

describe('parseServeConfigText', () => {
  it('reads expose, deny and the session limits', () => {
    const text = '{ "serve": { "expose": [" write_file "], "deny": ["run_*"], "sessionIdleTimeoutMs": 60000, "maxSessions": 5 } }';
    expect(parseServeConfigText(text, 'f')).toEqual({ config: { expose: ['write_file'], deny: ['run_*'], sessionIdleTimeoutMs: 60000, maxSessions: 5 }, errors: [] });
  });

  it.each([
    ['"sessionIdleTimeoutMs": 0', 'serve.sessionIdleTimeoutMs', 'expected a positive integer, got number'],
    ['"maxSessions": 1.5', 'serve.maxSessions', 'expected a positive integer, got number'],
    ['"maxSessions": "10"', 'serve.maxSessions', 'expected a positive integer, got string'],
    ['"expose": [""]', 'serve.expose[0]', 'expected a name or pattern, got string'],
    ['"deny": {}', 'serve.deny', 'expected array of names or patterns, got object'],
    ['"other": 1', 'serve.other', 'unknown field (expected "expose", "deny", "sessionIdleTimeoutMs", "maxSessions")'],
  ])('reports %s at %s', (field, jsonPath, message) => {
    const { config, errors } = parseServeConfigText(`{"serve": {${field}}}`, '/x.json');
    expect(errors).toEqual([expect.objectContaining({ file: '/x.json', jsonPath, message, line: 1 })]);
    expect(config).toEqual({ expose: [], deny: [] });
  });

  it('treats a BOM, a syntax error, a missing or a bad section alike: nothing offered', () => {
    expect(parseServeConfigText('\uFEFF{"serve": {"deny": ["a"]}}', 'f').config).toEqual({ expose: [], deny: ['a'] });
    expect(parseServeConfigText('{"serve": {', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [] });
    expect(parseServeConfigText('[]', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [] });
    expect(parseServeConfigText('{"serve": 3}', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [expect.objectContaining({ jsonPath: 'serve', message: 'expected object, got number' })] });
  });
});

describe('loadServeConfig', () => {
  const files: Record<string, string> = {
    '/home/me/.config/mcp-harness/config.json': '{"serve": {"expose": ["write_file"], "sessionIdleTimeoutMs": 1000}}',
    '/mine.json': '{"serve": {"expose": ["edit_file"], "deny": ["grep_search"], "maxSessions": 7, "sessionIdleTimeoutMs": 2000}}',
    [path.join('/ws', '.harness', 'mcp.json')]: '{"serve": {"expose": ["*", "run_command"], "deny": ["edit_*"], "maxSessions": 100000}}',
  };
  const readFile = async (file: string) => {
    if (!(file in files)) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return files[file];
  };

  it("widens from the user's files only; a workspace file narrows and what it asked for is reported", async () => {
    const result = await loadServeConfig({ userConfigFile: '/home/me/.config/mcp-harness/config.json', configFiles: ['/mine.json', '/missing.json'], workspaceFolders: ['/ws'], readFile });
    const user = { kind: 'user', file: '/home/me/.config/mcp-harness/config.json' };
    const explicit = { kind: 'explicit', file: '/mine.json' };
    const workspace = { kind: 'workspace', file: path.join('/ws', '.harness', 'mcp.json') };
    expect(result.expose).toEqual([
      { pattern: 'write_file', source: user },
      { pattern: 'edit_file', source: explicit },
    ]);
    expect(result.deny).toEqual([
      { pattern: 'grep_search', source: explicit },
      { pattern: 'edit_*', source: workspace },
    ]);
    // The first of the user's files to set a limit wins.
    expect(result.sessionIdleTimeoutMs).toEqual({ value: 1000, source: user });
    expect(result.maxSessions).toEqual({ value: 7, source: explicit });
    expect(result.ignored).toEqual([
      { file: workspace.file, field: 'serve.expose', entries: ['*', 'run_command'] },
      { file: workspace.file, field: 'serve.maxSessions', entries: ['100000'] },
    ]);
    expect(result.errors).toEqual([]);
  });

  it('has no limits and nothing ignored when no file sets them', async () => {
    const result = await loadServeConfig({ workspaceFolders: ['/nowhere'], readFile });
    expect(result).toEqual({ expose: [], deny: [], ignored: [], errors: [] });
  });
});
