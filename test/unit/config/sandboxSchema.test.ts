import { describe, expect, it } from 'vitest';
import { parseMcpConfigText } from '../../../src/core/config/parseMcpConfigText';

function parseSandbox(sandbox: unknown) {
  const text = JSON.stringify({ mcpServers: { fs: { command: 'npx', sandbox } } });
  return parseMcpConfigText(text, '/ws/.mcp.json', 'claude', '/ws');
}

describe('the sandbox field of a server entry', () => {
  it('takes true as the default sandbox and an object as written', () => {
    expect(parseSandbox(true).servers[0]!.sandbox).toEqual({});
    expect(parseSandbox({ network: { allowedDomains: ['api.example'] } }).servers[0]!.sandbox).toEqual({ network: { allowedDomains: ['api.example'] } });
  });

  it('says what it expects when the value is neither true nor an object', () => {
    const expected = 'expected true or {"filesystem": {"allowWrite": [...], "denyRead": [...]}, "network": {"allowedDomains": [...]}}';
    for (const [value, kind] of [[5, 'number'], ['yes', 'string'], [null, 'null']] as const) {
      const { errors, servers } = parseSandbox(value);
      expect(errors.map((e) => [e.jsonPath, e.message])).toEqual([['mcpServers.fs.sandbox', `${expected}, got ${kind}`]]);
      expect(servers[0]!.sandbox).toBeUndefined();
    }
  });
});
