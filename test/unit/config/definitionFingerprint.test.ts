import { describe, expect, it } from 'vitest';
import { definitionFingerprint, McpInputDefinition, parseMcpConfigText } from '../../../src/core/config';

function first(text: string, file = '/ws/.mcp.json') {
  return parseMcpConfigText(text, file, 'claude', '/ws').servers[0];
}

describe('definitionFingerprint', () => {
  const base = '{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"A": "1", "B": "2"}}}}';

  it('is equal for the same settings regardless of key order, origin or layout', () => {
    const reordered = '{\n // moved\n "mcpServers": {\n  "a": {"env": {"B": "2", "A": "1"}, "args": ["1"], "command": "x"}\n }\n}';
    const a = first(base);
    const b = first(reordered, '/other/.mcp.json');
    expect(a.origin).not.toEqual(b.origin);
    expect(definitionFingerprint(a)).toBe(definitionFingerprint(b));
  });

  it('differs when anything that affects the run changes', () => {
    const fingerprint = definitionFingerprint(first(base));
    const variants = [
      '{"mcpServers": {"a": {"command": "y", "args": ["1"], "env": {"A": "1", "B": "2"}}}}',
      '{"mcpServers": {"a": {"command": "x", "args": ["1", "2"], "env": {"A": "1", "B": "2"}}}}',
      '{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"A": "1", "B": "3"}}}}',
      '{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"A": "1", "B": "2"}, "disabled": true}}}',
      '{"mcpServers": {"a": {"command": "x", "args": ["1"], "env": {"A": "1", "B": "2"}, "toolTimeoutMs": 10}}}',
    ];
    for (const text of variants) {
      expect(definitionFingerprint(first(text))).not.toBe(fingerprint);
    }
    const otherFolder = parseMcpConfigText(base, '/ws/.mcp.json', 'claude', '/ws2').servers[0];
    expect(definitionFingerprint(otherFolder)).not.toBe(fingerprint);
  });

  it('sorts keys at every level, whatever order they came in', () => {
    const keys = Array.from({ length: 12 }, (_, i) => `K${String.fromCharCode(65 + i)}`);
    const forward = first(JSON.stringify({ mcpServers: { a: { command: 'x', env: Object.fromEntries(keys.map((k) => [k, k])) } } }));
    const backward = first(JSON.stringify({ mcpServers: { a: { command: 'x', env: Object.fromEntries([...keys].reverse().map((k) => [k, k])) } } }));
    expect(definitionFingerprint(backward)).toBe(definitionFingerprint(forward));
    // Objects inside arrays too, as a host building definitions by hand may order them.
    const withInputs = (inputs: McpInputDefinition[]) => ({ ...forward, inputs });
    expect(definitionFingerprint(withInputs([{ type: 'promptString', id: 'k', description: 'd' }]))).toBe(
      definitionFingerprint(withInputs([{ description: 'd', id: 'k', type: 'promptString' }])),
    );
    expect(definitionFingerprint({ ...forward, cwd: undefined })).toBe(definitionFingerprint(forward));
  });
});
