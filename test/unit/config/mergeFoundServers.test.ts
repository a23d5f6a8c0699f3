import { describe, expect, it } from 'vitest';
import { describeOrigin, serverEntryFor } from '../../../src/core/config/describeOrigin';
import { dedupeServers, foundServerStatus, isHarnessGateway, launchKey, mergeFoundServers } from '../../../src/core/config/mergeFoundServers';
import type { McpConfigOrigin } from '../../../src/core/config/types';
import { definition } from '../../support/definitions';

const origin = (file: string, source: McpConfigOrigin['source'] = 'vscode'): McpConfigOrigin => ({ source, file, jsonPath: 'servers.x' });

describe('launchKey', () => {
  it('is the same for the same launch whatever the order of env or headers, and none for a broken entry', () => {
    const a = definition('a', { command: 'node', args: ['s.js'], env: { B: '2', A: '1' } });
    const b = definition('b', { command: 'node', args: ['s.js'], env: { A: '1', B: '2' } });
    expect(launchKey(a)).toBe(launchKey(b));
    expect(launchKey(definition('c', { command: 'node', args: ['s.js'], env: { A: '1', B: '2' }, cwd: '/x' }))).not.toBe(launchKey(a));
    expect(launchKey(definition('d', { command: 'node', args: ['other.js'] }))).not.toBe(launchKey(definition('e', { command: 'node', args: ['s.js'] })));
    expect(launchKey(definition('h', { url: 'https://h/mcp', headers: { Y: '2', X: '1' } }))).toBe(launchKey(definition('i', { url: 'https://h/mcp', headers: { X: '1', Y: '2' } })));
    expect(launchKey(definition('j', { url: 'https://h/mcp', headers: {} }))).not.toBe(launchKey(definition('k', { url: 'https://h/mcp', headers: { X: '1' } })));
    expect(launchKey(definition('p', { command: 'node', problem: 'bad' }))).toBeUndefined();
    expect(launchKey(definition('q', { type: undefined }))).toBeUndefined();
  });
});

describe('dedupeServers and mergeFoundServers', () => {
  const first = definition('mem', { command: 'npx', args: ['memory'], origin: origin('/a/.mcp.json') });
  const again = definition('memory', { command: 'npx', args: ['memory'], origin: { ...origin('/home/.claude.json', 'claude-code'), alsoIn: [origin('/home/.cursor/mcp.json', 'cursor')] } });
  const other = definition('git', { command: 'git-mcp', origin: origin('/home/.claude.json', 'claude-code') });

  it('folds the same server into the first, listing every other place it was found', () => {
    const folded = dedupeServers([first, again, other]);
    expect(folded.map((d) => d.name)).toEqual(['mem', 'git']);
    expect(folded[0].origin.alsoIn?.map((o) => o.file)).toEqual(['/home/.claude.json', '/home/.cursor/mcp.json']);
    const broken = definition('broken', { command: 'npx', args: ['memory'], problem: 'bad' });
    expect(dedupeServers([broken, first]).map((d) => d.name)).toEqual(['broken', 'mem']);
  });

  it('adds found servers after the configured ones, never under a name already taken', () => {
    const taken = definition('mem', { command: 'something-else', origin: origin('/home/.cursor/mcp.json', 'cursor') });
    const merged = mergeFoundServers([first], [again, taken, other]);
    expect(merged.map((d) => `${d.name} ${d.command}`)).toEqual(['mem npx', 'git git-mcp']);
    expect(merged[0].origin.alsoIn?.length).toBe(2);
  });

  it('says whether importing a server would add it, and why not', () => {
    expect(foundServerStatus([first], again)).toEqual({ kind: 'configured', as: 'mem' });
    expect(foundServerStatus([first], definition('mem', { command: 'x' }))).toEqual({ kind: 'name-taken', by: first });
    expect(foundServerStatus([first], other)).toEqual({ kind: 'new' });
    expect(foundServerStatus([first], definition('mem2', { command: 'x', problem: 'bad' }))).toEqual({ kind: 'new' });
  });
});

describe('isHarnessGateway', () => {
  it('knows the gateway however it is launched, and nothing else', () => {
    expect(isHarnessGateway({ command: 'mcp-harness', args: ['serve', '--gateway'] })).toBe(true);
    expect(isHarnessGateway({ command: 'npx', args: ['-y', 'mcp-harness', 'serve', '--stdio', '--gateway'] })).toBe(true);
    expect(isHarnessGateway({ command: 'node', args: ['/x/MCP-Harness/dist/cli.js', 'serve', '--gateway'] })).toBe(true);
    expect(isHarnessGateway({ command: 'mcp-harness', args: ['serve'] })).toBe(false);
    expect(isHarnessGateway({ command: 'mcp-harness', args: ['call', '--gateway'] })).toBe(false);
    expect(isHarnessGateway({ command: 'other', args: ['serve', '--gateway', 'mcp-harness'] })).toBe(false);
    expect(isHarnessGateway({ command: undefined, args: [] })).toBe(false);
  });
});

describe('describeOrigin and serverEntryFor', () => {
  it('shortens a file under home, adds the line, and names the agent of other agents\' files', () => {
    expect(describeOrigin({ ...origin('/home/u/.cursor/mcp.json', 'cursor'), line: 3 }, '/home/u')).toBe('Cursor ~/.cursor/mcp.json:3');
    expect(describeOrigin(origin('/etc/mcp.json'), '/home/u')).toBe('/etc/mcp.json');
    expect(describeOrigin(origin('/home/u'), '/home/u')).toBe('/home/u');
    expect(describeOrigin({ ...origin('settings.json', 'user'), line: 2 }, '/home/u')).toBe('settings.json:2');
    expect(describeOrigin(origin('/home/u/x.json'))).toBe('/home/u/x.json');
  });

  it('writes an entry every format reads: the launch, and the flags that are set', () => {
    expect(serverEntryFor(definition('s', { command: 'run', envFile: '.env', cwd: '/w', disabled: true, startupTimeoutMs: 5, toolTimeoutMs: 6 }))).toEqual({
      command: 'run',
      envFile: '.env',
      cwd: '/w',
      disabled: true,
      startupTimeoutMs: 5,
      toolTimeoutMs: 6,
    });
    expect(serverEntryFor(definition('h', { url: 'https://h/mcp', oauth: { clientId: 'c' } }))).toEqual({ type: 'http', url: 'https://h/mcp', oauth: { clientId: 'c' } });
    expect(serverEntryFor(definition('u', { type: undefined, command: 'x' }))).toEqual({ command: 'x' });
  });
});
