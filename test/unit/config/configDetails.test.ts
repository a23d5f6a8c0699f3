import { describe, expect, it } from 'vitest';
import { formatConfigError, formatJsonPath, loadMcpConfig, parseMcpConfigText } from '../../../src/core/config';
import { JsonLocator } from '../../../src/core/config/JsonLocator';
import { parseTree } from 'jsonc-parser';
import { parseVariableTemplate } from '../../../src/core/config/parseVariableTemplate';

const FILE = '/ws/.mcp.json';
const parseClaude = (servers: string) => parseMcpConfigText(`{"mcpServers": ${servers}}`, FILE, 'claude', '/ws');
const pathsAndMessages = (text: string) => parseClaude(text).errors.map((e) => [e.jsonPath, e.message]);

describe('config fields: messages and defaults', () => {
  it('names a record "object" and a null entry null', () => {
    expect(pathsAndMessages('{"a": {"command": "x", "headers": 5}}')).toEqual([['mcpServers.a.headers', 'expected object, got number']]);
    expect(pathsAndMessages('{"a": null}')).toEqual([['mcpServers.a', 'expected object, got null']]);
  });

  it('wants a key before the = of an env item', () => {
    expect(pathsAndMessages('{"a": {"command": "x", "env": ["=value", "K="]}}')).toEqual([['mcpServers.a.env[0]', 'expected "KEY=VALUE"']]);
  });

  it('reports an empty input id', () => {
    const text = '{"inputs": [{"id": "", "type": "promptString"}], "servers": {}}';
    expect(parseMcpConfigText(text, '/ws/.vscode/mcp.json', 'vscode').errors.map((e) => [e.jsonPath, e.message])).toEqual([
      ['inputs[0].id', 'must not be empty'],
    ]);
  });

  it('keeps only the optional input fields that were given', () => {
    const text = JSON.stringify({
      inputs: [
        { id: 'bare', type: 'promptString' },
        { id: 'full', type: 'pickString', description: 'd', password: false, default: 'x', options: ['x', { label: 'Y', value: 'y' }] },
      ],
      servers: {},
    });
    const { servers, errors } = parseMcpConfigText(JSON.stringify({ ...JSON.parse(text), servers: { s: { command: 'c' } } }), '/ws/.vscode/mcp.json', 'vscode');
    expect(errors).toEqual([]);
    expect(servers[0].inputs).toStrictEqual([
      { id: 'bare', type: 'promptString' },
      { id: 'full', type: 'pickString', description: 'd', password: false, default: 'x', options: ['x', 'y'] },
    ]);
  });

  it('adds the server to an error only when there is one', () => {
    const result = parseMcpConfigText('{"inputs": 1, "servers": {"s": {"command": 1}}}', '/ws/.vscode/mcp.json', 'vscode');
    expect(result.errors[0]).toStrictEqual({ file: '/ws/.vscode/mcp.json', jsonPath: 'inputs', line: 1, column: 12, message: 'expected array, got number' });
    expect(result.errors[1].server).toBe('s');
  });

  it('accepts streamable_http as http', () => {
    expect(parseClaude('{"a": {"type": "streamable_http", "url": "http://127.0.0.1:1/"}}').servers[0].type).toBe('http');
  });

  it('points an empty server name error at its key', () => {
    const result = parseClaude('{"": {"command": "x"}}');
    const column = '{"mcpServers": {'.length + 1;
    expect(result.errors).toEqual([{ file: FILE, jsonPath: 'mcpServers[""]', line: 1, column, message: 'server name must not be empty' }]);
  });

  it('shows a problem relative to the workspace folder, not the file folder', () => {
    const [def] = parseMcpConfigText('{"servers": {"a": {"command": 1}}}', '/ws/.harness/mcp.json', 'harness', '/ws').servers;
    expect(def.problem).toBe('.harness/mcp.json:1:31: servers.a.command: expected string, got number');
  });
});

describe('parseMcpConfigText: top level', () => {
  it('points a top level that is not an object at its first character, and lists nothing', () => {
    expect(parseMcpConfigText('\n  [1]', FILE, 'claude')).toEqual({
      servers: [],
      errors: [{ file: FILE, line: 2, column: 3, message: 'expected object at top level, got array' }],
    });
  });

  it('reads only the key of each format, and either for user and explicit files', () => {
    const both = '{"mcpServers": {"m": {"command": "x"}}, "servers": {"s": {"command": "y"}}}';
    const names = (source: Parameters<typeof parseMcpConfigText>[2], text = both) =>
      parseMcpConfigText(text, FILE, source).servers.map((s) => s.name);
    expect(names('claude')).toEqual(['m']);
    expect(names('vscode')).toEqual(['s']);
    expect(names('harness')).toEqual(['s']);
    expect(names('user')).toEqual(['m']);
    expect(names('user', '{"servers": {"s": {"command": "y"}}}')).toEqual(['s']);
    expect(names('explicit', '{"servers": {"s": {"command": "y"}}}')).toEqual(['s']);
    const onlyClaude = '{"mcpServers": {"m": {"command": "x"}}}';
    expect(parseMcpConfigText(onlyClaude, FILE, 'harness')).toEqual({ servers: [], errors: [] });
    expect(parseMcpConfigText(onlyClaude, FILE, 'vscode')).toEqual({ servers: [], errors: [] });
  });
});

describe('JsonLocator', () => {
  it('puts an offset at a line start on that line, column 1', () => {
    const locator = new JsonLocator('ab\ncd\n\nef', undefined);
    expect(locator.positionAt(0)).toEqual({ line: 1, column: 1 });
    expect(locator.positionAt(2)).toEqual({ line: 1, column: 3 });
    expect(locator.positionAt(3)).toEqual({ line: 2, column: 1 });
    expect(locator.positionAt(6)).toEqual({ line: 3, column: 1 });
    expect(locator.positionAt(7)).toEqual({ line: 4, column: 1 });
    expect(locator.positionAt(9)).toEqual({ line: 4, column: 3 });
  });

  it('finds keys of properties, values of array items, and nothing for a missing path', () => {
    const text = '{\n  "a": [10, 20],\n  "b": 1\n}';
    const locator = new JsonLocator(text, parseTree(text));
    expect(locator.keyPosition(['a'])).toEqual({ line: 2, column: 3 });
    expect(locator.valuePosition(['a'])).toEqual({ line: 2, column: 8 });
    expect(locator.keyPosition(['a', 1])).toEqual({ line: 2, column: 13 });
    expect(locator.keyPosition([])).toEqual({ line: 1, column: 1 });
    expect(locator.keyPosition(['nope'])).toBeUndefined();
    expect(locator.valuePosition(['a', 5])).toBeUndefined();
    expect(new JsonLocator('', undefined).keyPosition(['a'])).toBeUndefined();
  });
});

describe('formatting paths and errors', () => {
  it('formats a path from segments', () => {
    expect(formatJsonPath(['mcpServers', 'my server', 'args', 1])).toBe('mcpServers["my server"].args[1]');
    expect(formatJsonPath([])).toBe('');
  });

  it('leaves out a column without a line, and shows a file equal to the folder as it is', () => {
    expect(formatConfigError({ file: '/ws/a.json', line: 3, message: 'm' }, '/ws')).toBe('a.json:3: m');
    expect(formatConfigError({ file: '/ws', message: 'm' }, '/ws')).toBe('/ws: m');
    // A folder whose name starts with two dots is still inside.
    expect(formatConfigError({ file: '/ws/..x/a.json', message: 'm' }, '/ws')).toBe('..x/a.json: m');
    expect(formatConfigError({ file: '/other/a.json', message: 'm' }, '/ws')).toBe('/other/a.json: m');
  });
});

describe('loadMcpConfig: read failures', () => {
  it('describes whatever a reader throws, with its code when it has one', async () => {
    const load = (thrown: unknown) => loadMcpConfig({ configFiles: ['/cfg/a.json'], readFile: () => Promise.reject(thrown) });
    const message = async (thrown: unknown) => (await load(thrown)).errors.map((e) => e.message);
    expect(await load(Object.assign(new Error('x'), { code: 'EACCES' }))).toEqual({
      servers: [],
      errors: [{ file: '/cfg/a.json', message: 'cannot read file (EACCES)' }],
    });
    expect(await message('busy')).toEqual(['cannot read file (busy)']);
    expect(await message(null)).toEqual(['cannot read file (null)']);
    expect(await message(Object.assign(new Error('odd'), { code: 13 }))).toEqual(['cannot read file (Error: odd)']);
    expect(await message({ reason: 'no code' })).toEqual(['cannot read file ([object Object])']);
  });

  it('gives host-supplied entries no inputs and no text positions', async () => {
    const result = await loadMcpConfig({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { s: { command: 'x' } } } });
    expect(result.servers[0].inputs).toStrictEqual([]);
    expect(result.servers[0].origin).toStrictEqual({ source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.servers.s' });
  });
});

describe('parseVariableTemplate', () => {
  it('returns exactly the parts, with no empty text between adjacent variables', () => {
    expect(parseVariableTemplate('${A}${env:B:-x}')).toStrictEqual([
      { kind: 'variable', raw: '${A}', ref: { kind: 'env', name: 'A' } },
      { kind: 'variable', raw: '${env:B:-x}', ref: { kind: 'env', name: 'B', default: 'x' } },
    ]);
    expect(parseVariableTemplate('')).toStrictEqual([]);
  });

  it('knows prefixes only at the start of a variable', () => {
    expect(parseVariableTemplate('${xenv:A}')[0]).toMatchObject({ ref: { kind: 'unsupported' } });
    expect(parseVariableTemplate('${xinput:a}')[0]).toMatchObject({ ref: { kind: 'unsupported' } });
    expect(parseVariableTemplate('${input:a b}')[0]).toMatchObject({ ref: { kind: 'input', id: 'a b' } });
  });
});
