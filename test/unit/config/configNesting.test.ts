import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isEditableConfigText,
  loadMcpConfig,
  parseMcpConfigText,
  removeServerFromConfigText,
  setServerInConfigText,
} from '../../../src/core/config';
import { findExcessNesting, MAX_CONFIG_NESTING } from '../../../src/core/config/jsonNesting';
import { TempDir } from './tempDir';

/** A claude-style file whose one server has `args` nested `depth` arrays deep. */
function deepArgs(depth: number): string {
  return `{\n  "mcpServers": {\n    "deep": { "command": "x", "args": ${'['.repeat(depth)}${']'.repeat(depth)} }\n  }\n}\n`;
}

/** An object `depth` levels deep built without recursion, as host settings could hold it. */
function deepObject(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) {
    value = i % 2 === 0 ? [value] : { nested: value };
  }
  return value;
}

describe('findExcessNesting', () => {
  it('allows exactly the limit and points at the first bracket past it', () => {
    expect(findExcessNesting('[[[]]]', 3)).toBeUndefined();
    expect(findExcessNesting('[[[[]]]]', 3)).toBe(3);
    expect(findExcessNesting('{"a":{"b":[{}]}}', 4)).toBeUndefined();
    expect(findExcessNesting('{"a":{"b":[{}]}}', 3)).toBe(11);
  });

  it('counts closed levels back down, so siblings at the limit pass', () => {
    expect(findExcessNesting('[[[]],[[]],[[]]]', 3)).toBeUndefined();
    expect(findExcessNesting('{"a":[[]],"b":{"c":{}}}', 3)).toBeUndefined();
    expect(findExcessNesting('{"a":{},"b":{},"c":{}}', 2)).toBeUndefined();
  });

  it('ignores brackets inside strings and comments', () => {
    const text = `{ "a": "[[[[[[", /* {{{{{{ */ "b": [ // [[[[[[\n ] }`;
    expect(findExcessNesting(text, 2)).toBeUndefined();
  });

  it('does not let stray closing brackets hide later depth', () => {
    expect(findExcessNesting(']]]]]][[[[', 3)).toBe(9);
    expect(findExcessNesting('}}}}{{{{', 3)).toBe(7);
  });

  it('defaults to MAX_CONFIG_NESTING', () => {
    expect(findExcessNesting('['.repeat(MAX_CONFIG_NESTING))).toBeUndefined();
    expect(findExcessNesting('['.repeat(MAX_CONFIG_NESTING + 1))).toBe(MAX_CONFIG_NESTING);
  });
});

describe('parseMcpConfigText: deep nesting', () => {
  it.each([3_000, 100_000])('reports %i levels as an error at the offending bracket instead of throwing', (depth) => {
    const result = parseMcpConfigText(deepArgs(depth), '/ws/.mcp.json', 'claude', '/ws');
    // Line 3: `    "deep": { "command": "x", "args": ` then the arrays. The document, `mcpServers` and
    // the entry take three levels, so the (limit - 2)th `[` is the first one past the limit.
    const column = '    "deep": { "command": "x", "args": '.length + (MAX_CONFIG_NESTING - 2);
    expect(result).toEqual({
      servers: [],
      errors: [
        {
          file: '/ws/.mcp.json',
          line: 3,
          column,
          message: `nested deeper than ${MAX_CONFIG_NESTING} levels of objects and arrays`,
        },
      ],
    });
  });

  it('still parses a file nested right up to the limit', () => {
    // Three levels are taken by the document, `mcpServers` and the entry.
    const text = `{"mcpServers":{"a":{"command":"x","args":["ok"],"x-extra":${'['.repeat(MAX_CONFIG_NESTING - 3)}${']'.repeat(MAX_CONFIG_NESTING - 3)}}}}`;
    const result = parseMcpConfigText(text, '/f.json', 'claude');
    expect(result.errors).toEqual([]);
    expect(result.servers.map((s) => [s.name, s.args])).toEqual([['a', ['ok']]]);
  });

  it('counts past a byte order mark as editors do', () => {
    const result = parseMcpConfigText('\ufeff' + '['.repeat(MAX_CONFIG_NESTING + 1), '/f.json', 'claude');
    expect(result.errors).toEqual([
      expect.objectContaining({ line: 1, column: MAX_CONFIG_NESTING + 1 }),
    ]);
  });

  it('refuses to edit text nested too deep for the editing parser', () => {
    expect(isEditableConfigText(deepArgs(3_000))).toBe(false);
    expect(isEditableConfigText(deepArgs(10))).toBe(true);
    const message = `cannot edit a config nested deeper than ${MAX_CONFIG_NESTING} levels`;
    expect(() => setServerInConfigText(deepArgs(100_000), 'claude', 'x', { command: 'y' })).toThrow(message);
    expect(() => removeServerFromConfigText(deepArgs(100_000), 'claude', 'deep')).toThrow(message);
    expect(removeServerFromConfigText(deepArgs(10), 'claude', 'deep')).not.toContain('"deep"');
  });
});

describe('loadMcpConfig: one deeply nested file among healthy ones', () => {
  let tmp: TempDir;
  beforeEach(() => {
    tmp = new TempDir();
  });
  afterEach(() => {
    tmp.dispose();
  });

  it.each([3_000, 100_000])('loads every other file when one is nested %i levels deep', async (depth) => {
    const bad = tmp.write('ws/.mcp.json', deepArgs(depth));
    tmp.write('ws/.vscode/mcp.json', JSON.stringify({ servers: { healthy: { command: 'node', args: ['a.js'] } } }));
    const explicit = tmp.write('other.json', JSON.stringify({ mcpServers: { also: { url: 'http://127.0.0.1:1/mcp' } } }));
    const folder = tmp.path('ws');
    const result = await loadMcpConfig({ workspaceFolders: [folder], configFiles: [explicit] });
    expect(result.servers.map((s) => [s.name, s.type, s.problem])).toEqual([
      ['also', 'http', undefined],
      ['healthy', 'stdio', undefined],
    ]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ file: bad, line: 3, message: expect.stringContaining('nested deeper') });
    expect(path.isAbsolute(result.errors[0].file)).toBe(true);
  });

  it('survives deeply nested host-supplied entries', async () => {
    const result = await loadMcpConfig({
      userServers: {
        label: 'settings.json',
        jsonPath: 'mcpHarness.servers',
        entries: {
          deep: { command: 'x', args: deepObject(100_000), 'x-extra': deepObject(100_000) },
          fine: { command: 'y' },
        },
      },
    });
    expect(result.servers.map((s) => [s.name, s.problem === undefined])).toEqual([
      ['deep', false],
      ['fine', true],
    ]);
    expect(result.errors.map((e) => [e.file, e.jsonPath, e.message])).toEqual([
      ['settings.json', 'mcpHarness.servers.deep.args', 'expected array, got object'],
    ]);
  });
});
