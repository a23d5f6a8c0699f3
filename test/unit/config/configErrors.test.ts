import { describe, expect, it } from 'vitest';
import { formatConfigError, McpConfigError, parseMcpConfigText } from '../../../src/core/config';

const WS = '/ws';
const CLAUDE = '/ws/.mcp.json';

function parseClaude(servers: string) {
  return parseMcpConfigText(`{ "mcpServers": ${servers} }`, CLAUDE, 'claude', WS);
}

function formatted(errors: readonly McpConfigError[]): string[] {
  return errors.map((e) => formatConfigError(e, WS));
}

describe('parseMcpConfigText: bad entries', () => {
  it('reports a number in args at its JSON path and position, and keeps the server with a problem', () => {
    const result = parseClaude('{\n  "github": { "command": "npx", "args": ["a", 1] }\n}');
    expect(result.errors).toEqual([
      {
        file: CLAUDE,
        jsonPath: 'mcpServers.github.args[1]',
        line: 2,
        column: 47,
        message: 'expected string, got number',
        server: 'github',
      },
    ]);
    expect(formatted(result.errors)).toEqual(['.mcp.json:2:47: mcpServers.github.args[1]: expected string, got number']);
    expect(result.servers).toHaveLength(1);
    expect(result.servers[0]).toMatchObject({
      name: 'github',
      type: 'stdio',
      command: 'npx',
      problem: '.mcp.json:2:47: mcpServers.github.args[1]: expected string, got number',
    });
  });

  it('rejects numbers and booleans as env values instead of coercing them', () => {
    const result = parseClaude('{ "a": { "command": "x", "env": { "PORT": 3000, "DEBUG": true, "OK": "1" } } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['mcpServers.a.env.PORT', 'expected string, got number'],
      ['mcpServers.a.env.DEBUG', 'expected string, got boolean'],
    ]);
    expect(result.servers[0].problem).toMatch(/mcpServers\.a\.env\.PORT: expected string, got number$/);
  });

  it('reports a bad item in the env array form', () => {
    const result = parseClaude('{ "a": { "command": "x", "env": ["A=1", "NO_EQUALS", 5] } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['mcpServers.a.env[1]', 'expected "KEY=VALUE"'],
      ['mcpServers.a.env[2]', 'expected string, got number'],
    ]);
  });

  it('reports env that is neither object nor array', () => {
    const result = parseClaude('{ "a": { "command": "x", "env": "A=1" } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['mcpServers.a.env', 'expected object or array of "KEY=VALUE" strings, got string'],
    ]);
  });

  it('keeps a server with an unsupported type, without a type, and records the error at type', () => {
    const result = parseClaude('{ "ws": { "type": "websocket", "url": "ws://h" } }');
    expect(result.servers[0]).toMatchObject({
      name: 'ws',
      type: undefined,
      problem: 'unsupported transport type "websocket" (expected stdio, http or sse)',
    });
    expect(formatted(result.errors)).toEqual([
      '.mcp.json:1:35: mcpServers.ws.type: unsupported transport type "websocket" (expected stdio, http or sse)',
    ]);
  });

  it('reports an entry with neither command nor url at the entry path', () => {
    const result = parseClaude('{ "empty": { "args": [] } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message, e.server])).toEqual([
      ['mcpServers.empty', 'needs "command" (stdio) or "url" (http/sse)', 'empty'],
    ]);
    expect(result.servers[0]).toMatchObject({ type: undefined });
    expect(result.servers[0].problem).toBe('.mcp.json:1:19: mcpServers.empty: needs "command" (stdio) or "url" (http/sse)');
  });

  it('reports a declared type whose required field is missing', () => {
    const result = parseClaude('{ "a": { "type": "stdio", "url": "http://h" }, "b": { "type": "sse", "command": "x" } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['mcpServers.a', 'type "stdio" needs "command"'],
      ['mcpServers.b', 'type "sse" needs "url"'],
    ]);
  });

  it('reports wrong types of the other fields', () => {
    const result = parseClaude(`{ "a": {
      "type": 1, "command": "x", "args": "a b", "cwd": 2, "envFile": false, "url": null,
      "headers": { "X": 1 }, "disabled": "yes", "startupTimeoutMs": 0, "toolTimeoutMs": 1.5
    } }`);
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['mcpServers.a.type', 'expected string, got number'],
      ['mcpServers.a.args', 'expected array, got string'],
      ['mcpServers.a.envFile', 'expected string, got boolean'],
      ['mcpServers.a.cwd', 'expected string, got number'],
      ['mcpServers.a.url', 'expected string, got null'],
      ['mcpServers.a.headers.X', 'expected string, got number'],
      ['mcpServers.a.disabled', 'expected boolean, got string'],
      ['mcpServers.a.startupTimeoutMs', 'expected positive integer, got 0'],
      ['mcpServers.a.toolTimeoutMs', 'expected positive integer, got 1.5'],
    ]);
    expect(result.servers[0]).toMatchObject({ name: 'a', command: 'x', args: [], disabled: false });
  });

  it('reports an entry that is not an object', () => {
    const result = parseClaude('{ "s": "npx server" }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([['mcpServers.s', 'expected object, got string']]);
    expect(result.servers[0]).toMatchObject({ name: 's', type: undefined });
    expect(result.servers[0].problem).toContain('expected object, got string');
  });

  it('reports an empty server name and drops only that entry', () => {
    const result = parseClaude('{ "": { "command": "x" }, "ok": { "command": "y" } }');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([['mcpServers[""]', 'server name must not be empty']]);
    expect(result.servers.map((s) => s.name)).toEqual(['ok']);
  });

  it('keeps loading the other entries when one is bad', () => {
    const result = parseClaude(`{
      "first": { "command": "a" },
      "bad": { "command": "b", "args": [1] },
      "ws": { "type": "websocket", "url": "x" },
      "last": { "url": "http://h" }
    }`);
    expect(result.servers.map((s) => [s.name, s.problem === undefined])).toEqual([
      ['first', true],
      ['bad', false],
      ['ws', false],
      ['last', true],
    ]);
    expect(result.errors).toHaveLength(2);
  });

  it('reports a servers map that is not an object and ignores the rest of the file', () => {
    const vscode = parseMcpConfigText('{ "servers": [], "inputs": 5 }', '/ws/.vscode/mcp.json', 'vscode', WS);
    expect(vscode).toEqual({
      servers: [],
      errors: [{ file: '/ws/.vscode/mcp.json', jsonPath: 'servers', line: 1, column: 14, message: 'expected object, got array' }],
    });
    const claude = parseClaude('"x"');
    expect(claude.errors.map((e) => [e.jsonPath, e.message])).toEqual([['mcpServers', 'expected object, got string']]);
  });

  it('reports bad inputs entries at their path and keeps the good ones', () => {
    const text = `{
      "inputs": [
        { "type": "promptString", "id": "good" },
        { "type": "promptString" },
        { "type": "promptString", "id": 7 },
        { "type": "promptString", "id": "good" },
        "nope",
        { "type": "pickString", "id": "p", "options": [1], "password": "yes" }
      ],
      "servers": { "a": { "command": "x" } }
    }`;
    const result = parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode', WS);
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['inputs[1].id', 'missing (expected string)'],
      ['inputs[2].id', 'expected string, got number'],
      ['inputs[3].id', 'duplicate input id "good"'],
      ['inputs[4]', 'expected object, got string'],
      ['inputs[5].password', 'expected boolean, got string'],
      ['inputs[5].options[0]', 'expected string or {"value": string}, got number'],
    ]);
    expect(result.errors[1]).toMatchObject({ line: 5, column: 41 });
    expect(result.servers[0].inputs.map((i) => i.id)).toEqual(['good']);
  });

  it('reports inputs that are not an array', () => {
    const result = parseMcpConfigText('{"inputs": {}, "servers": {}}', '/ws/.vscode/mcp.json', 'vscode');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([['inputs', 'expected array, got object']]);
  });
});

describe('formatConfigError', () => {
  const error: McpConfigError = {
    file: '/ws/.mcp.json',
    jsonPath: 'mcpServers.github.args[1]',
    message: 'expected string, got number',
  };

  it('drops the parts that are absent', () => {
    expect(formatConfigError(error, '/ws')).toBe('.mcp.json: mcpServers.github.args[1]: expected string, got number');
    expect(formatConfigError({ ...error, line: 3, column: 7 }, '/ws')).toBe(
      '.mcp.json:3:7: mcpServers.github.args[1]: expected string, got number',
    );
    expect(formatConfigError({ file: '/ws/.mcp.json', line: 2, column: 1, message: 'syntax error: ValueExpected' })).toBe(
      '/ws/.mcp.json:2:1: syntax error: ValueExpected',
    );
  });

  it('keeps absolute paths outside relativeTo and labels as they are', () => {
    expect(formatConfigError(error, '/elsewhere')).toBe('/ws/.mcp.json: mcpServers.github.args[1]: expected string, got number');
    expect(formatConfigError({ file: 'settings.json', jsonPath: 'mcpHarness.servers.a', message: 'm' }, '/ws')).toBe(
      'settings.json: mcpHarness.servers.a: m',
    );
  });
});
