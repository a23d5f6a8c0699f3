import { describe, expect, it } from 'vitest';
import { loadMcpConfig, parseMcpConfigText, resolveServerLaunch } from '../../../src/core/config';

const FILE = '/ws/.mcp.json';

function parseClaude(text: string) {
  return parseMcpConfigText(text, FILE, 'claude', '/ws');
}

const reserved = (key: string) => `"${key}" is a reserved name and cannot be used as a key`;

describe('reserved keys in env and headers', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('reports env key %s at the key, and the entry gets a problem', (key) => {
    const text = `{\n  "mcpServers": {\n    "x": {\n      "command": "node",\n      "env": { "OK": "1", "${key}": "2" }\n    }\n  }\n}`;
    const result = parseClaude(text);
    expect(result.errors).toEqual([
      {
        file: FILE,
        jsonPath: `mcpServers.x.env.${key}`,
        line: 5,
        column: '      "env": { "OK": "1", '.length + 1,
        message: reserved(key),
        server: 'x',
      },
    ]);
    // As for any other bad field: the field is dropped, the rest of the entry is kept, and the
    // entry is listed with its problem instead of starting without the variable it asked for.
    expect(result.servers).toHaveLength(1);
    expect(result.servers[0]).toMatchObject({ name: 'x', type: 'stdio', command: 'node', env: {} });
    expect(result.servers[0].problem).toBe(`.mcp.json:5:${'      "env": { "OK": "1", '.length + 1}: mcpServers.x.env.${key}: ${reserved(key)}`);
  });

  it('reports every reserved header key, together with the schema errors of the same entry', () => {
    const text = '{"mcpServers": {"h": {"url": "http://127.0.0.1:9/mcp", "headers": {"__proto__": "a", "constructor": "b", "X-Ok": "c"}, "args": [1]}}}';
    const result = parseClaude(text);
    expect(result.errors.map((e) => [e.jsonPath, e.message, e.column])).toEqual([
      ['mcpServers.h.args[0]', 'expected string, got number', text.indexOf('[1]') + 2],
      ['mcpServers.h.headers.__proto__', reserved('__proto__'), text.indexOf('"__proto__"') + 1],
      ['mcpServers.h.headers.constructor', reserved('constructor'), text.indexOf('"constructor"') + 1],
    ]);
    expect(result.servers[0]).toMatchObject({ name: 'h', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {}, args: [] });
  });

  it('reports a reserved name in the KEY=VALUE env form at its item', () => {
    const result = parseClaude('{"mcpServers": {"x": {"command": "node", "env": ["A=1", "__proto__=2", "constructor=", "prototype"]}}}');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([
      // `prototype` without `=` is not an assignment at all, which the schema reports.
      ['mcpServers.x.env[3]', 'expected "KEY=VALUE"'],
      ['mcpServers.x.env[1]', reserved('__proto__')],
      ['mcpServers.x.env[2]', reserved('constructor')],
    ]);
    expect(result.servers[0].env).toEqual({});
  });

  it('does not mistake names that merely contain a reserved word', () => {
    const result = parseClaude(
      '{"mcpServers": {"x": {"command": "n", "env": {"__proto__x": "1", "MY_CONSTRUCTOR": "2", "Prototype": "3"}, "headers": {"constructors": "4"}}}}',
    );
    expect(result.errors).toEqual([]);
    expect(result.servers[0].env).toEqual({ __proto__x: '1', MY_CONSTRUCTOR: '2', Prototype: '3' });
    expect(result.servers[0].env).not.toHaveProperty('__proto__');
    expect(result.servers[0].headers).toEqual({ constructors: '4' });
    const array = parseClaude('{"mcpServers": {"x": {"command": "n", "env": ["__proto__x=1", "a=__proto__"]}}}');
    expect(array.errors).toEqual([]);
    expect(array.servers[0].env).toEqual({ __proto__x: '1', a: '__proto__' });
  });

  it('reports reserved keys in host-supplied entries (parsed settings) too', async () => {
    const entries: unknown = JSON.parse('{"s": {"command": "node", "env": {"__proto__": "1"}}}');
    const result = await loadMcpConfig({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries } });
    expect(result.errors).toEqual([
      { file: 'settings.json', jsonPath: 'mcpHarness.servers.s.env.__proto__', message: reserved('__proto__'), server: 's' },
    ]);
  });
});

describe('reserved words as server names and input ids', () => {
  it('keeps servers named __proto__ and constructor as ordinary servers', () => {
    const result = parseClaude('{"mcpServers": {"__proto__": {"command": "p"}, "constructor": {"command": "c"}, "prototype": {"url": "http://127.0.0.1:1/"}}}');
    expect(result.errors).toEqual([]);
    expect(result.servers.map((s) => [s.name, s.type, s.command ?? s.url, s.origin.jsonPath])).toEqual([
      ['__proto__', 'stdio', 'p', 'mcpServers.__proto__'],
      ['constructor', 'stdio', 'c', 'mcpServers.constructor'],
      ['prototype', 'http', 'http://127.0.0.1:1/', 'mcpServers.prototype'],
    ]);
  });

  it('resolves an input whose id is __proto__ like any other', async () => {
    const text = JSON.stringify({
      inputs: [
        { id: '__proto__', type: 'promptString' },
        { id: 'constructor', type: 'promptString' },
      ],
      servers: { s: { command: 'node', args: ['${input:__proto__}', '${input:constructor}'] } },
    });
    const result = parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode', '/ws');
    expect(result.errors).toEqual([]);
    const answers = new Map([
      ['__proto__', 'one'],
      ['constructor', 'two'],
    ]);
    const launch = await resolveServerLaunch(result.servers[0], {
      env: {},
      userHome: '/home/me',
      inputResolver: { resolveInput: async (input) => answers.get(input.id) },
    });
    expect(launch).toEqual({ ok: true, value: expect.objectContaining({ args: ['one', 'two'] }) });
  });

  it('reports a duplicate __proto__ input id as a duplicate', () => {
    const text = '{"inputs": [{"id": "__proto__", "type": "promptString"}, {"id": "__proto__", "type": "promptString"}], "servers": {}}';
    const result = parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode');
    expect(result.errors.map((e) => [e.jsonPath, e.message])).toEqual([['inputs[1].id', 'duplicate input id "__proto__"']]);
  });
});
