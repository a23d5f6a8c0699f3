import { describe, expect, it } from 'vitest';
import { isEditableConfigText, parseMcpConfigText, removeServerFromConfigText, setServerInConfigText } from '../../../src/core/config';

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
