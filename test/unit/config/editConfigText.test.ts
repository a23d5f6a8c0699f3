import { describe, expect, it } from 'vitest';
import { isEditableConfigText, parseMcpConfigText, removeServerFromConfigText, setServerInConfigText } from '../../../src/core/config';
import { detectFormatting } from '../../../src/core/config/editConfigText';

describe('editing config text', () => {
  const vscodeFile = `{
\t// my servers
\t"servers": {
\t\t"a": { "command": "node" }, // keep me
\t},
\t"inputs": []
}
`;

  it('adds a server keeping comments, trailing commas and tab indentation', () => {
    const out = setServerInConfigText(vscodeFile, 'vscode', 'b', { type: 'http', url: 'http://x/mcp' });
    expect(out).toContain('// my servers');
    expect(out).toContain('// keep me');
    expect(out).toMatch(/\n\t\t"b": \{\n\t\t\t"type": "http",/);
    const parsed = parseMcpConfigText(out, '/w/.vscode/mcp.json', 'vscode', '/w');
    expect(parsed.errors).toEqual([]);
    expect(parsed.servers.map((s) => s.name)).toEqual(['a', 'b']);
  });

  it('creates a new file under the right key for each format', () => {
    const claude = setServerInConfigText('', 'claude', 'fs', { command: 'npx', args: ['-y', 'x'] });
    expect(JSON.parse(claude)).toEqual({ mcpServers: { fs: { command: 'npx', args: ['-y', 'x'] } } });
    expect(claude.endsWith('\n')).toBe(true);
    expect(Object.keys(JSON.parse(setServerInConfigText('', 'harness', 'x', { url: 'u' })))).toEqual(['servers']);
  });

  it('removes only the named server', () => {
    const out = removeServerFromConfigText(setServerInConfigText(vscodeFile, 'vscode', 'b', { command: 'x' }), 'vscode', 'a');
    expect(out).toContain('// my servers');
    expect(parseMcpConfigText(out, '/w/.vscode/mcp.json', 'vscode', '/w').servers.map((s) => s.name)).toEqual(['b']);
    expect(removeServerFromConfigText(out, 'vscode', 'nope')).toBe(out);
  });

  it('knows which texts it can edit', () => {
    expect(isEditableConfigText(vscodeFile)).toBe(true);
    expect(isEditableConfigText('')).toBe(true);
    expect(isEditableConfigText('{ "servers": ')).toBe(false);
    expect(isEditableConfigText('[]')).toBe(false);
  });
});

describe('editing config text: formatting and edge cases', () => {
  it('writes a new file in two-space JSON ending with a newline, also from whitespace only', () => {
    const expected = '{\n  "mcpServers": {\n    "a": {\n      "command": "x"\n    }\n  }\n}\n';
    expect(setServerInConfigText('', 'claude', 'a', { command: 'x' })).toBe(expected);
    expect(setServerInConfigText(' \n\t', 'claude', 'a', { command: 'x' })).toBe(expected);
  });

  it('adds no final newline to a file that had none', () => {
    const out = setServerInConfigText('{"servers": {}}', 'vscode', 'a', { command: 'x' });
    expect(out.endsWith('}')).toBe(true);
    expect(JSON.parse(out)).toEqual({ servers: { a: { command: 'x' } } });
  });

  it('keeps tabs and CRLF line endings when removing a server', () => {
    const text = '{\r\n\t"servers": {\r\n\t\t"a": { "command": "x" },\r\n\t\t"b": { "command": "y" }\r\n\t}\r\n}';
    expect(removeServerFromConfigText(text, 'vscode', 'a')).toBe(
      '{\r\n\t"servers": {\r\n\t\t"b": {\r\n\t\t\t"command": "y"\r\n\t\t}\r\n\t}\r\n}',
    );
  });

  it('detects indentation from the first indented line with content', () => {
    expect(detectFormatting('{}')).toEqual({ insertSpaces: true, tabSize: 2, eol: '\n' });
    expect(detectFormatting('{\r\n    "a": 1\r\n}')).toEqual({ insertSpaces: true, tabSize: 4, eol: '\r\n' });
    expect(detectFormatting('{\n\t"a": 1\n}')).toEqual({ insertSpaces: false, tabSize: 1, eol: '\n' });
    expect(detectFormatting('{\n    \n  "a": 1\n}')).toEqual({ insertSpaces: true, tabSize: 2, eol: '\n' });
    expect(detectFormatting(`{\n${' '.repeat(12)}"a": 1\n}`)).toEqual({ insertSpaces: true, tabSize: 8, eol: '\n' });
    expect(detectFormatting('{\n \t"a": 1\n}')).toEqual({ insertSpaces: true, tabSize: 2, eol: '\n' });
  });

  it('treats whitespace as editable and a comment-only text as not an object', () => {
    expect(isEditableConfigText('  \n ')).toBe(true);
    expect(isEditableConfigText('// nothing here')).toBe(false);
  });
});
