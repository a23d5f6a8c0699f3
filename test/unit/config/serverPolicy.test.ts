import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkServerPolicy,
  loadServerPolicyFile,
  matchPattern,
  parseMcpConfigText,
  parseServerPolicy,
  POLICY_REFUSAL,
  serverPolicyFingerprint,
  type McpServerPolicyState,
} from '../../../src/core/config';
import { tempDir } from '../../support/servers';

function server(entry: Record<string, unknown>, name = 's', file = '/ws/.mcp.json') {
  return parseMcpConfigText(JSON.stringify({ mcpServers: { [name]: entry } }), file, 'claude', path.dirname(file)).servers[0]!;
}

function policy(raw: unknown): McpServerPolicyState {
  return parseServerPolicy(raw, '/etc/mcp-policy.json');
}

describe('parseServerPolicy', () => {
  it('reads allow rules and requireSandbox', () => {
    const parsed = policy({ allow: [{ command: 'npx -y @acme/*' }, { url: 'https://mcp.acme.com/*' }, { fingerprint: `sha256:${'a'.repeat(64)}` }], requireSandbox: true });
    expect(parsed).toEqual({
      ok: true,
      value: { source: '/etc/mcp-policy.json', allow: [{ command: 'npx -y @acme/*' }, { url: 'https://mcp.acme.com/*' }, { fingerprint: `sha256:${'a'.repeat(64)}` }], requireSandbox: true },
    });
  });

  it.each([
    [[], 'expected an object with "allow", got array'],
    [{}, 'allow: missing (expected an array of rules; [] allows no server)'],
    [{ allow: {} }, 'allow: expected array of rules, got object'],
    [{ allow: [], alow: [] }, 'alow: unknown field'],
    [{ allow: [], requireSandbox: 'yes' }, 'requireSandbox: expected boolean, got string'],
    [{ allow: ['npx'] }, 'allow[0]: expected an object such as {"command": "npx -y @scope/*"}, got string'],
    [{ allow: [{ command: 'a', url: 'b' }] }, 'allow[0]: expected exactly one of "command", "url" or "fingerprint"'],
    [{ allow: [{ comand: 'a' }] }, 'allow[0].comand: unknown field'],
    [{ allow: [{ url: '' }] }, 'allow[0].url: expected a non-empty string, got string'],
    [{ allow: [{ url: 3 }] }, 'allow[0].url: expected a non-empty string, got number'],
    [{ allow: [{ fingerprint: 'abc' }] }, 'allow[0].fingerprint: expected "sha256:" and 64 lower-case hex digits'],
  ])('refuses %j, naming the source and the field', (raw, message) => {
    const parsed = policy(raw);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.source).toBe('/etc/mcp-policy.json');
    expect(parsed.error).toContain(`/etc/mcp-policy.json: ${message}`);
  });
});

describe('loadServerPolicyFile', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('reads JSON with comments', async () => {
    const file = path.join(tmp.dir, 'ok.json');
    fs.writeFileSync(file, '// the team\'s servers\n{ "allow": [{ "command": "node *" },], }');
    expect(await loadServerPolicyFile(file)).toEqual({ ok: true, value: { source: file, allow: [{ command: 'node *' }], requireSandbox: false } });
  });

  it('names the line and column of a bad field', async () => {
    const file = path.join(tmp.dir, 'bad.json');
    fs.writeFileSync(file, '{\n  "allow": [\n    { "command": 7 }\n  ]\n}');
    expect(await loadServerPolicyFile(file)).toEqual({ ok: false, source: file, error: `${file}:3:18: allow[0].command: expected a non-empty string, got number` });
  });

  it('reports a syntax error and a missing file as broken (failing closed)', async () => {
    const file = path.join(tmp.dir, 'syntax.json');
    fs.writeFileSync(file, '{ "allow": [ }');
    const syntax = await loadServerPolicyFile(file);
    expect(syntax).toMatchObject({ ok: false, error: expect.stringMatching(/syntax\.json:1:\d+: is not valid JSON$/) });
    const missing = await loadServerPolicyFile(path.join(tmp.dir, 'nope.json'));
    expect(missing).toMatchObject({ ok: false, error: expect.stringContaining('nope.json: could not be read: ') });
    const def = server({ command: 'node', args: ['x.js'] });
    expect(checkServerPolicy(missing, def)).toMatch(new RegExp(`^${POLICY_REFUSAL}: the policy is broken, so no server may start until it is fixed \\(.*nope\\.json: could not be read`));
  });
});

describe('checkServerPolicy', () => {
  const stdio = server({ command: 'npx', args: ['-y', '@acme/files', '/data'] });
  const remote = server({ type: 'http', url: 'https://mcp.acme.com/v1/mcp' });

  it('allows everything without a policy', () => {
    expect(checkServerPolicy(undefined, stdio)).toBeUndefined();
  });

  it('matches command rules against the command line and URL rules against the URL', () => {
    const p = policy({ allow: [{ command: 'npx -y @acme/*' }, { url: 'https://mcp.acme.com/*' }] });
    expect(checkServerPolicy(p, stdio)).toBeUndefined();
    expect(checkServerPolicy(p, remote)).toBeUndefined();
    expect(checkServerPolicy(p, server({ command: 'npx', args: ['-y', '@evil/files'] }))).toBe(
      `${POLICY_REFUSAL}: no "allow" rule in /etc/mcp-policy.json matches command "npx -y @evil/files" or fingerprint ${serverPolicyFingerprint(server({ command: 'npx', args: ['-y', '@evil/files'] }))}`,
    );
    expect(checkServerPolicy(p, server({ type: 'http', url: 'https://mcp.acme.com.evil.io/mcp' }))).toContain('matches URL "https://mcp.acme.com.evil.io/mcp"');
  });

  it('never lets a command rule allow a URL or the other way round', () => {
    const p = policy({ allow: [{ command: '*' }] });
    expect(checkServerPolicy(p, remote)).toContain(POLICY_REFUSAL);
    expect(checkServerPolicy(policy({ allow: [{ url: '*' }] }), stdio)).toContain(POLICY_REFUSAL);
  });

  it('allows by fingerprint, which ignores the name and the file but not what runs', () => {
    const p = policy({ allow: [{ fingerprint: serverPolicyFingerprint(stdio) }] });
    expect(checkServerPolicy(p, server({ command: 'npx', args: ['-y', '@acme/files', '/data'] }, 'renamed', '/elsewhere/.mcp.json'))).toBeUndefined();
    expect(checkServerPolicy(p, server({ command: 'npx', args: ['-y', '@acme/files', '/etc'] }))).toContain(POLICY_REFUSAL);
    expect(checkServerPolicy(p, server({ command: 'npx', args: ['-y', '@acme/files', '/data'], env: { NODE_OPTIONS: '--require /tmp/x.js' } }))).toContain(POLICY_REFUSAL);
  });

  it('with requireSandbox refuses stdio servers without "sandbox", naming the rule that allowed them', () => {
    const p = policy({ allow: [{ command: 'npx *' }, { url: 'https://*' }], requireSandbox: true });
    expect(checkServerPolicy(p, stdio)).toBe(`${POLICY_REFUSAL}: "requireSandbox" in /etc/mcp-policy.json asks every stdio server to declare "sandbox" (allowed by {"command":"npx *"})`);
    expect(checkServerPolicy(p, server({ command: 'npx', args: ['-y', '@acme/files'], sandbox: true }))).toBeUndefined();
    expect(checkServerPolicy(p, remote)).toBeUndefined();
  });

  it('an empty allow list allows nothing', () => {
    expect(checkServerPolicy(policy({ allow: [] }), stdio)).toContain(POLICY_REFUSAL);
  });
});

describe('matchPattern', () => {
  it('matches whole strings with * as any run', () => {
    expect(matchPattern('node *', 'node server.js --port 3')).toBe(true);
    expect(matchPattern('node', 'node server.js')).toBe(false);
    expect(matchPattern('https://*.acme.com/*', 'https://a.b.acme.com/mcp')).toBe(true);
    expect(matchPattern('https://*.acme.com/*', 'https://acme.com.evil/x.acme.com/')).toBe(true); // documented: * spans slashes
    expect(matchPattern('a?c', 'abc')).toBe(false); // ? is itself
  });

  it('never lets * stand for a variable, which could take any value at start', () => {
    expect(matchPattern('https://mcp.acme.com/*', 'https://${env:HOST}/mcp')).toBe(false);
    expect(matchPattern('https://*/mcp', 'https://${env:HOST}/mcp')).toBe(false);
    expect(matchPattern('https://${env:HOST}/*', 'https://${env:HOST}/mcp')).toBe(true);
    expect(matchPattern('https://${env:OTHER}/*', 'https://${env:HOST}/mcp')).toBe(false);
    expect(matchPattern('node * --token ${input:t}', 'node a.js --token ${input:t}')).toBe(true);
  });

  it('takes time proportional to the product of the lengths', () => {
    const text = 'a'.repeat(5000);
    expect(matchPattern('*a*a*a*a*a*a*a*a*b', text)).toBe(false);
  });
});
