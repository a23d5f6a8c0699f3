import { describe, expect, it } from 'vitest';
import { describeLaunch, redactArgs, redactEnv, redactHeaders, redactUrl } from '../../../src/core/config';
import type { McpServerDefinition } from '../../../src/core/config';

const base: McpServerDefinition = {
  name: 's', type: 'stdio', args: [], env: {}, headers: {}, disabled: false, inputs: [],
  origin: { source: 'claude', file: '/w/.mcp.json', jsonPath: 'mcpServers.s' },
};

describe('redaction for display', () => {
  it('masks secret-looking flags and pairs but keeps variables and ordinary arguments', () => {
    expect(redactArgs(['-y', 'pkg', '--api-key', 'sk-123', '--token=abc', 'TOKEN=xyz', '--token', '${input:tok}', '--port', '80'])).toEqual([
      '-y', 'pkg', '--api-key', '••••', '--token=••••', 'TOKEN=••••', '--token', '${input:tok}', '--port', '80',
    ]);
  });

  it('describes a command line or URL', () => {
    expect(describeLaunch({ ...base, command: 'npx', args: ['-y', 'a b', '--secret', 's'] })).toBe('npx -y "a b" --secret ••••');
    expect(describeLaunch({ ...base, type: 'http', url: 'https://user:pw@h.example/mcp?token=t&x=1' })).toBe('https://user:••••@h.example/mcp?token=••••&x=1');
    expect(redactUrl('not a url')).toBe('not a url');
  });

  it('masks header and env values, keeping auth schemes and variable references', () => {
    expect(redactHeaders({ Authorization: 'Bearer abc', 'X-Key': 'k', 'X-Ref': '${input:k}' })).toEqual({ Authorization: 'Bearer ••••', 'X-Key': '••••', 'X-Ref': '${input:k}' });
    expect(redactEnv({ A: 'plain', B: '${env:B}' })).toEqual({ A: '••••', B: '${env:B}' });
  });
});
