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
    expect(redactEnv({ A: 'plain', B: '${env:B}', API_TOKEN: 'literal', MEMORY_FILE_PATH: '/data/memory.jsonl' })).toEqual({
      A: 'plain',
      B: '${env:B}',
      API_TOKEN: '••••',
      MEMORY_FILE_PATH: '/data/memory.jsonl',
    });
  });
});

describe('redaction edge cases', () => {
  it('recognises secret names in their usual spellings', () => {
    for (const name of ['APIKEY', 'api_key', 'Api-Key', 'privatekey', 'PRIVATE_KEY', 'private-key', 'x-auth', 'SESSION_ID', 'cookie', 'passwd']) {
      expect(redactArgs([`${name}=v`]), name).toEqual([`${name}=••••`]);
    }
    expect(redactArgs(['privateXkey=v', 'apiXkey=v', 'port=80'])).toEqual(['privateXkey=v', 'apiXkey=v', 'port=80']);
  });

  it('masks a secret flag value only when one follows, and only after a real flag', () => {
    expect(redactArgs(['--token', 'abc'])).toEqual(['--token', '••••']);
    expect(redactArgs(['-token', 'abc'])).toEqual(['-token', '••••']);
    expect(redactArgs(['--token', 'abc-'])).toEqual(['--token', '••••']);
    expect(redactArgs(['run', '--token'])).toEqual(['run', '--token']);
    expect(redactArgs(['--token', '--verbose'])).toEqual(['--token', '--verbose']);
    expect(redactArgs(['x--token', 'abc'])).toEqual(['x--token', 'abc']);
    expect(redactArgs(['--token.file', 'path'])).toEqual(['--token.file', 'path']);
  });

  it('masks a NAME=value pair whose value spans lines, and keeps only whole variable references', () => {
    expect(redactArgs(['TOKEN=a\nb'])).toEqual(['TOKEN=••••']);
    expect(redactArgs(['TOKEN=${input:t}', 'TOKEN=x${input:t}', 'TOKEN=${input:t}x'])).toEqual(['TOKEN=${input:t}', 'TOKEN=••••', 'TOKEN=••••']);
    expect(redactEnv({ A: 'x${B}', C: '${D}y', D_SECRET: 'x${B}' })).toEqual({ A: 'x${B}', C: '${D}y', D_SECRET: '••••' });
  });

  it('keeps the scheme only of a value that starts with it', () => {
    expect(redactHeaders({ A: 'Bearer  two-spaces', B: 'xBearer abc', C: 'token abc' })).toEqual({ A: 'Bearer ••••', B: '••••', C: 'token ••••' });
  });

  it('leaves a URL without a password as it is, and says when there is nothing to run', () => {
    expect(redactUrl('http://user@h.example/mcp')).toBe('http://user@h.example/mcp');
    expect(describeLaunch(base)).toBe('(no command or url)');
  });
});
