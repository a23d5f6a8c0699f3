import { describe, expect, it } from 'vitest';
import { formatConfigError, McpConfigError, parseMcpConfigText } from '../../../src/core/config';

const WS = '/ws';
const CLAUDE = '/ws/.mcp.json';

function parseClaude(servers: string) {
  return parseMcpConfigText(`{ "mcpServers": ${servers} }`, CLAUDE, 'claude', WS);
}

function onlyError(errors: readonly McpConfigError[]): McpConfigError {
  expect(errors).toHaveLength(1);
  return errors[0];
}

describe('parseMcpConfigText: formats', () => {
  it('reads the Claude format (.mcp.json) with type inference', () => {
    const result = parseClaude(`{
      "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "T": "x" } },
      "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer 1" } }
    }`);
    expect(result.errors).toEqual([]);
    const [github, remote] = result.servers;
    expect(github).toMatchObject({
      name: 'github',
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-github'],
      env: { T: 'x' },
      headers: {},
      disabled: false,
      workspaceFolder: WS,
      inputs: [],
      origin: { source: 'claude', file: CLAUDE, jsonPath: 'mcpServers.github' },
    });
    expect(github.problem).toBeUndefined();
    expect(remote).toMatchObject({ type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer 1' } });
  });

  it('reads the VS Code format with inputs attached to every server of the file', () => {
    const text = `{
      "inputs": [
        { "type": "promptString", "id": "api-key", "description": "API key", "password": true },
        { "type": "pickString", "id": "region", "options": ["eu", { "label": "US", "value": "us" }], "default": "eu" }
      ],
      "servers": {
        "a": { "type": "stdio", "command": "node", "args": ["a.js"] },
        "b": { "type": "sse", "url": "http://localhost:1/sse" }
      }
    }`;
    const result = parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode', WS);
    expect(result.errors).toEqual([]);
    const inputs = [
      { type: 'promptString', id: 'api-key', description: 'API key', password: true },
      { type: 'pickString', id: 'region', options: ['eu', 'us'], default: 'eu' },
    ];
    expect(result.servers.map((s) => [s.name, s.type, s.origin.source, s.origin.jsonPath])).toEqual([
      ['a', 'stdio', 'vscode', 'servers.a'],
      ['b', 'sse', 'vscode', 'servers.b'],
    ]);
    expect(result.servers[0].inputs).toEqual(inputs);
    expect(result.servers[1].inputs).toEqual(inputs);
  });

  it('reads the harness format and every accepted field', () => {
    const text = `{ "servers": { "h": {
      "command": "srv", "envFile": ".env", "cwd": "sub", "disabled": true,
      "startupTimeoutMs": 5000, "toolTimeoutMs": 60000, "somethingNew": { "kept": true }
    } } }`;
    const result = parseMcpConfigText(text, '/ws/.harness/mcp.json', 'harness', WS);
    expect(result.errors).toEqual([]);
    expect(result.servers[0]).toMatchObject({
      type: 'stdio',
      envFile: '.env',
      cwd: 'sub',
      disabled: true,
      startupTimeoutMs: 5000,
      toolTimeoutMs: 60000,
      origin: { source: 'harness', jsonPath: 'servers.h' },
    });
  });

  it('accepts the env array form and the streamable-http type spellings', () => {
    const result = parseClaude(`{
      "a": { "command": "x", "env": ["A=1", "B=two=2", "C="] },
      "b": { "type": "streamable-http", "url": "http://h/mcp" },
      "c": { "type": "streamableHttp", "url": "http://h/mcp" }
    }`);
    expect(result.errors).toEqual([]);
    expect(result.servers[0].env).toEqual({ A: '1', B: 'two=2', C: '' });
    expect(result.servers.map((s) => s.type)).toEqual(['stdio', 'http', 'http']);
  });

  it('detects the format of an explicit file by its top-level key', () => {
    const claude = parseMcpConfigText('{"mcpServers": {"a": {"command": "x"}}}', '/x/a.json', 'explicit');
    const vscode = parseMcpConfigText(
      '{"servers": {"b": {"url": "http://h", "headers": {"k": "${input:k}"}}}, "inputs": [{"type": "promptString", "id": "k"}]}',
      '/x/b.json',
      'explicit',
    );
    expect(claude.servers[0].origin).toMatchObject({ source: 'explicit', jsonPath: 'mcpServers.a' });
    expect(vscode.servers[0].origin.jsonPath).toBe('servers.b');
    expect(vscode.servers[0].inputs.map((i) => i.id)).toEqual(['k']);
    const neither = parseMcpConfigText('{"other": {}}', '/x/c.json', 'explicit');
    expect(neither.servers).toEqual([]);
    expect(onlyError(neither.errors).message).toBe('expected a "mcpServers" or "servers" object at top level');
  });

  it('treats an empty or comments-only file as configuring nothing', () => {
    expect(parseMcpConfigText('', CLAUDE, 'claude')).toEqual({ servers: [], errors: [] });
    expect(parseMcpConfigText('  // nothing yet\n', CLAUDE, 'claude')).toEqual({ servers: [], errors: [] });
    expect(parseMcpConfigText('{}', CLAUDE, 'claude')).toEqual({ servers: [], errors: [] });
  });
});

describe('parseMcpConfigText: JSONC and syntax errors', () => {
  it('accepts comments and trailing commas in every format', () => {
    const text = `// leading comment
    {
      /* block */ "servers": {
        "a": { "command": "x", "args": ["1", "2",], }, // trailing
      },
    }`;
    for (const source of ['vscode', 'harness', 'explicit'] as const) {
      const result = parseMcpConfigText(text, '/ws/f.json', source, WS);
      expect(result.errors).toEqual([]);
      expect(result.servers[0].args).toEqual(['1', '2']);
    }
  });

  it('reports a syntax error with 1-based line and column and loads nothing from the file', () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}';
    const result = parseMcpConfigText(text, CLAUDE, 'claude', WS);
    expect(result.servers).toEqual([]);
    expect(result.errors).toEqual([{ file: CLAUDE, line: 4, column: 5, message: 'syntax error: CommaExpected' }]);
    expect(formatConfigError(result.errors[0], WS)).toBe('.mcp.json:4:5: syntax error: CommaExpected');
  });

  it('does not count a byte order mark as a column', () => {
    const result = parseMcpConfigText('\uFEFF{"mcpServers": {"a": {"command": "x"}}}', CLAUDE, 'claude');
    expect(result.errors).toEqual([]);
    expect(result.servers[0].origin).toMatchObject({ line: 1, column: 17 });
  });

  it('reports a top-level value that is not an object', () => {
    const result = parseMcpConfigText('[1]', CLAUDE, 'claude');
    const message = 'expected object at top level, got array';
    expect(onlyError(result.errors)).toEqual({ file: CLAUDE, line: 1, column: 1, message });
  });
});

describe('parseMcpConfigText: origins', () => {
  it('records the line and column of each entry key and quotes non-identifier names', () => {
    const text = [
      '{',
      '  "servers": {',
      '    "plain": { "command": "a" },',
      '      "my server": { "command": "b" },',
      '    "a.b": { "command": "c" },',
      '    "x__y": { "command": "d" }',
      '  }',
      '}',
    ].join('\n');
    const result = parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode', WS);
    expect(result.errors).toEqual([]);
    expect(result.servers.map((s) => [s.name, s.origin.jsonPath, s.origin.line, s.origin.column])).toEqual([
      ['plain', 'servers.plain', 3, 5],
      ['my server', 'servers["my server"]', 4, 7],
      ['a.b', 'servers["a.b"]', 5, 5],
      ['x__y', 'servers.x__y', 6, 5],
    ]);
  });
});
