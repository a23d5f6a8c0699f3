import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseServeConfigText } from '../../../src/core/config/parseServeConfig';
import { AuditLog } from '../../../src/core/permissions/AuditLog';
import { gatewayUri, gatewayUriTemplate, parseGatewayUri } from '../../../src/core/serve/ServeCatalog';
import { ServeExposure } from '../../../src/core/serve/ServeExposure';
import { mcpServersEntry, serveLaunch } from '../../../src/core/serve/serveLaunch';
import { tempDir } from '../../support/servers';
import { harnessTool } from '../../support/tools';

const builtin = (name: string, readOnly: boolean) => harnessTool({ name, originalName: name, description: '', inputSchema: {}, annotations: { readOnlyHint: readOnly } });
const mcp = (server: string, name: string, exposed = `mcp__${server}__${name}`) => harnessTool({ name: exposed, server, originalName: name, description: '', inputSchema: {} });

describe('ServeExposure', () => {
  it('offers read-only built-ins by default, adds exposed ones, and lets deny win', () => {
    const plain = new ServeExposure({ expose: [], deny: [], gateway: false });
    expect(plain.allowsTool(builtin('read_file', true))).toBe(true);
    expect(plain.allowsTool(builtin('write_file', false))).toBe(false);
    expect(plain.allowsTool(mcp('a', 'b'))).toBe(false);
    const tuned = new ServeExposure({ expose: ['write_*', 'run_command'], deny: ['*_command', 'read_file', 'mcp__secret__*'], gateway: true });
    expect(tuned.allowsTool(builtin('write_file', false))).toBe(true);
    expect(tuned.allowsTool(builtin('run_command', false))).toBe(false);
    expect(tuned.allowsTool(builtin('read_file', true))).toBe(false);
    expect(tuned.allowsTool(mcp('github', 'search'))).toBe(true);
    expect(tuned.allowsTool(mcp('secret', 'x'))).toBe(false);
  });

  it('binds deny patterns to servers: every alias of a denied tool is denied, and only that server\'s', () => {
    const e = new ServeExposure({ expose: [], deny: ['mcp__p_q__read'], gateway: true });
    // p_q's read is denied whatever name it is exposed under.
    expect(e.allowsTool(mcp('p_q', 'read', 'mcp__p_q__read_2'))).toBe(false);
    expect(e.allowsTool(mcp('p_q', 'read'))).toBe(false);
    // p.q's read took the plain name first; the rule is not about it.
    expect(e.allowsTool(mcp('p.q', 'read', 'mcp__p_q__read'))).toBe(true);
  });

  it('denies the resources and prompts of a denied server, and those denied by pattern', () => {
    const e = new ServeExposure({ expose: [], deny: ['mcp__secret', 'mcp__docs__private_*'], gateway: true });
    expect(e.allowsServerItem('secret', 'readme')).toBe(false);
    expect(e.allowsServerItem('secret', undefined)).toBe(false);
    expect(e.decide({ kind: 'resource', server: 'secret', uri: 'file:///x' })).toMatchObject({ outcome: 'deny', reason: 'not offered' });
    expect(e.allowsServerItem('docs', 'private_notes')).toBe(false);
    expect(e.allowsServerItem('docs', 'public')).toBe(true);
    // A URI a template made has no listed name: only the server-wide rules apply.
    expect(e.decide({ kind: 'resource', server: 'docs', uri: 'docs://x' })).toMatchObject({ outcome: 'allow' });
    expect(e.decide({ kind: 'prompt', server: 'docs', name: 'private_p' })).toMatchObject({ outcome: 'deny' });
    expect(new ServeExposure({ expose: [], deny: [], gateway: false }).allowsServerItem('docs', 'public')).toBe(false);
  });

  it('matches whole names, with * and ? as the only wildcards', () => {
    const e = new ServeExposure({ expose: [], deny: ['mcp__a.b__?'], gateway: true });
    expect(e.allowsTool(mcp('a.b', 'x'))).toBe(false);
    expect(e.allowsTool(mcp('aXb', 'x'))).toBe(true);
    expect(e.allowsTool(mcp('a.b', 'xy'))).toBe(true);
  });
});

describe('parseServeConfigText', () => {
  it('reads expose and deny, and names the file and field of each bad entry', () => {
    const text = '{\n  // comment\n  "servers": {},\n  "serve": { "expose": ["write_file", 7], "deny": "run_command", "extra": 1 }\n}';
    const { config, errors } = parseServeConfigText(text, '/ws/.harness/mcp.json');
    expect(config).toEqual({ expose: ['write_file'], deny: [] });
    expect(errors).toEqual([
      { file: '/ws/.harness/mcp.json', jsonPath: 'serve.expose[1]', line: 4, column: 39, message: 'expected a name or pattern, got number' },
      { file: '/ws/.harness/mcp.json', jsonPath: 'serve.deny', line: 4, column: 51, message: 'expected array of names or patterns, got string' },
      { file: '/ws/.harness/mcp.json', jsonPath: 'serve.extra', line: 4, column: 75, message: 'unknown field (expected "expose", "deny", "sessionIdleTimeoutMs", "maxSessions")' },
    ]);
  });

  it('treats a missing section as empty', () => {
    expect(parseServeConfigText('{"servers": {}}', 'f')).toEqual({ config: { expose: [], deny: [] }, errors: [] });
  });
});

describe('gateway resource URIs', () => {
  it('round-trip a server name and any URI, whatever they contain', () => {
    for (const [server, uri] of [
      ['everything', 'demo://resource/static/document/architecture.md'],
      ['a/b c', 'file:///tmp/x y?q=1#f'],
      ['x__y', 'mcp-harness://inner/nested'],
    ]) {
      const exposed = gatewayUri(server, uri);
      expect(exposed.startsWith('mcp-harness://')).toBe(true);
      expect(parseGatewayUri(exposed)).toEqual({ server, uri });
    }
    expect(parseGatewayUri('file:///etc/passwd')).toBeUndefined();
    const template = gatewayUriTemplate('everything', 'demo://resource/dynamic/text/{resourceId}');
    expect(template).toBe('mcp-harness://everything/demo%3A%2F%2Fresource%2Fdynamic%2Ftext%2F{resourceId}');
    expect(parseGatewayUri(template.replace('{resourceId}', encodeURIComponent('a/b')))).toEqual({ server: 'everything', uri: 'demo://resource/dynamic/text/a/b' });
    expect(parseGatewayUri('mcp-harness://%E0%A4%A/x')).toBeUndefined();
  });
});

describe('AuditLog of serve calls', () => {
  it('writes start, end and denied lines in order, each with the client and method, secrets redacted', async () => {
    const tmp = tempDir();
    try {
      const file = path.join(tmp.dir, 'nested', 'audit.jsonl');
      const log = new AuditLog(file);
      const client = { transport: 'http' as const, sessionId: 's1', name: 'cursor', version: '1.0' };
      const decider = { by: 'rule' as const, rule: 'serve exposure' };
      const id = log.start({ client, method: 'tools/call', tool: 'mcp__gh__search', server: 'gh', arguments: { q: 'x', apiKey: 'sk-1234567890abcdef1234' }, decider });
      log.denied({ client, method: 'resources/read', tool: 'mcp-harness://gh/x', arguments: {}, decider, reason: 'not offered' });
      log.end(id, { outcome: 'ok', outputChars: 12 });
      await log.flush();
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.map((l) => l.event)).toEqual(['start', 'denied', 'end']);
      expect(lines[0]).toMatchObject({ id, client, method: 'tools/call', server: 'gh', arguments: { q: 'x', apiKey: '[redacted]' } });
      expect(lines[1]).toMatchObject({ client, method: 'resources/read', reason: 'not offered' });
      expect(lines[2]).toMatchObject({ id, client, method: 'tools/call', outcome: 'ok', outputChars: 12, durationMs: expect.any(Number) });
    } finally {
      tmp.cleanup();
    }
  });
});

describe('mcpServersEntry', () => {
  it('is a ready mcpServers entry running the bundled CLI with the gateway for the folder', () => {
    const launch = serveLaunch('/ext', '/work/project', '/usr/bin/node');
    expect(JSON.parse(mcpServersEntry(launch))).toEqual({
      mcpServers: {
        'mcp-harness': { command: '/usr/bin/node', args: ['/ext/dist/cli.js', 'serve', '--gateway', '--workspace', '/work/project'], cwd: '/work/project' },
      },
    });
  });
});
