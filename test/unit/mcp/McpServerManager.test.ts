import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerDefinition } from '../../../src/core/config/types';
import { McpServerManager } from '../../../src/core/mcp/McpServerManager';
import type { McpServerSnapshot } from '../../../src/core/mcp/McpServerSnapshot';
import { definition, launchOf } from '../../support/definitions';
import { linkedTo, TestTransportFactory } from '../../support/memoryTransports';

function definitions(servers: Record<string, Partial<McpServerDefinition>>): readonly McpServerDefinition[] {
  return Object.entries(servers).map(([name, entry]) => definition(name, entry));
}

const managers: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.shutdown()));
});

/** A manager whose servers run in memory; a server whose command is "broken" drops its transport at once. */
function manager() {
  const started: string[] = [];
  const servers: Record<string, McpServer> = {};
  const m = new McpServerManager({
    clientInfo: { name: 'test', version: '1' },
    handlers: {},
    resolveLaunch: launchOf,
    traceEnabled: () => false,
    reconnectDelaysMs: [],
    createTransports: (launch) =>
      new TestTransportFactory({
        kind: launch.type,
        make: () => {
          started.push(`${launch.command} ${launch.args.join(' ')}`.trim());
          if (launch.command === 'broken') throw new Error('spawn broken ENOENT');
          const server = new McpServer({ name: launch.command ?? 'remote', version: '1' }, { capabilities: { resources: { subscribe: true } } });
          server.registerTool('t', { description: 't' }, () => ({ content: [] }));
          servers[launch.command ?? 'remote'] = server;
          return linkedTo(server);
        },
      }),
  });
  managers.push(m);
  const changes: McpServerSnapshot[] = [];
  let listChanges = 0;
  m.onDidChangeServer((s) => changes.push(s));
  m.onDidChangeServers(() => listChanges++);
  return { m, started, servers, changes, listChanges: () => listChanges };
}

const kinds = (m: McpServerManager) => Object.fromEntries(m.servers().map((s) => [s.name, s.state.kind]));

describe('McpServerManager', () => {
  it('starts added servers and keeps a broken one from taking the others down', async () => {
    const { m, listChanges } = manager();
    const { diff, settled } = m.applyDefinitions(definitions({ a: { command: 'alpha' }, bad: { command: 'broken' }, b: { command: 'beta' } }));
    expect(diff).toEqual({ added: ['a', 'bad', 'b'], removed: [], restarted: [], unchanged: [] });
    expect(listChanges()).toBe(1);
    await settled;
    expect(kinds(m)).toEqual({ a: 'running', bad: 'error', b: 'running' });
    expect(m.get('bad')!.snapshot.lastError).toBe('spawn broken ENOENT');
    expect(m.servers().map((s) => s.name)).toEqual(['a', 'bad', 'b']);
  });

  it('applies a new configuration as a diff: removed stop, changed restart, the rest are left alone', async () => {
    const { m, started, listChanges } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' }, b: { command: 'beta' }, c: { command: 'gamma' } })).settled;
    const a = m.get('a');
    const { diff, settled } = m.applyDefinitions(definitions({ a: { command: 'alpha' }, b: { command: 'beta', args: ['--v2'] }, d: { command: 'delta' } }));
    expect(diff).toEqual({ added: ['d'], removed: ['c'], restarted: ['b'], unchanged: ['a'] });
    await settled;
    expect(m.get('a')).toBe(a);
    expect(m.get('c')).toBeUndefined();
    expect(kinds(m)).toEqual({ a: 'running', b: 'running', d: 'running' });
    expect(m.get('b')!.snapshot.restartCount).toBe(1);
    expect([...started].sort()).toEqual(['alpha', 'beta', 'beta --v2', 'delta', 'gamma']);
    expect(listChanges()).toBe(2);
    // The same list again in the same order changes nothing.
    m.applyDefinitions(definitions({ a: { command: 'alpha' }, b: { command: 'beta', args: ['--v2'] }, d: { command: 'delta' } }));
    expect(listChanges()).toBe(2);
  });

  it('can take a configuration without starting anything, stopping what changed', async () => {
    const { m, started } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' } })).settled;
    const { settled } = m.applyDefinitions(definitions({ a: { command: 'alpha', args: ['x'] }, b: { command: 'beta' } }), { start: false });
    await settled;
    expect(kinds(m)).toEqual({ a: 'stopped', b: 'stopped' });
    expect(m.get('a')!.definition.args).toEqual(['x']);
    expect(started).toEqual(['alpha']);
    await m.startAll();
    expect(kinds(m)).toEqual({ a: 'running', b: 'running' });
  });

  it('restarts a failed server on an explicit reload only', async () => {
    const { m, started } = manager();
    await m.applyDefinitions(definitions({ bad: { command: 'broken' } })).settled;
    const again = m.applyDefinitions(definitions({ bad: { command: 'broken' } }));
    expect(again.diff.unchanged).toEqual(['bad']);
    await again.settled;
    expect(started).toEqual(['broken']);
    const reload = m.applyDefinitions(definitions({ bad: { command: 'broken' } }), { restartFailed: true });
    expect(reload.diff.restarted).toEqual(['bad']);
    await reload.settled;
    expect(started).toEqual(['broken', 'broken']);
  });

  it('runs start, stop, restart by name, and names a server it does not know', async () => {
    const { m, changes } = manager();
    m.applyDefinitions(definitions({ a: { command: 'alpha' } }), { start: false });
    await m.start('a');
    expect(kinds(m)).toEqual({ a: 'running' });
    await m.restart('a');
    expect(m.get('a')!.snapshot.restartCount).toBe(1);
    await m.stop('a');
    expect(kinds(m)).toEqual({ a: 'stopped' });
    await m.whenSettled();
    expect(changes.map((s) => `${s.name} ${s.state.kind}`)).toEqual(['a starting', 'a running', 'a stopped', 'a starting', 'a running', 'a stopped']);
    expect(() => m.start('zz')).toThrow('no MCP server named "zz"');
    expect(() => m.signIn('zz')).toThrow('no MCP server named "zz"');
    expect(() => m.signOut('zz')).toThrow('no MCP server named "zz"');
  });

  it('passes on logs and resource updates with the server they came from', async () => {
    const { m, servers } = manager();
    const logs: string[] = [];
    const updates: string[] = [];
    m.onDidLog((e) => logs.push(`${e.server}: ${e.message}`));
    m.onDidUpdateResource((u) => updates.push(`${u.server} ${u.uri}`));
    await m.applyDefinitions(definitions({ a: { command: 'alpha' } })).settled;
    expect(logs).toContain('a: connected over stdio: alpha 1, protocol 2025-11-25, 1 tools');
    await servers.alpha.server.sendResourceUpdated({ uri: 'mem://r' });
    await expect.poll(() => updates).toEqual(['a mem://r']);
  });

  it('stops everything on shutdown, once, and refuses configurations after', async () => {
    const { m } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' }, b: { command: 'beta' } })).settled;
    const a = m.get('a')!;
    await Promise.all([m.shutdown(), m.shutdown()]);
    expect(a.state).toEqual({ kind: 'stopped' });
    expect(m.servers()).toEqual([]);
    expect(() => m.applyDefinitions([])).toThrow('McpServerManager is disposed');
  });
});

describe('McpServerManager, settling and retiring', () => {
  it('stops a removed server, and waits for starting servers when asked to settle', async () => {
    const { m } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' } })).settled;
    const a = m.get('a')!;
    await m.applyDefinitions([]).settled;
    expect(a.state).toEqual({ kind: 'stopped' });
    m.applyDefinitions(definitions({ b: { command: 'beta' } }));
    await m.whenSettled();
    expect(m.get('b')!.state.kind).toBe('running');
  });

  it('leaves a broken entry and a running server alone on a reload that restarts failed ones', async () => {
    const { m, started } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' }, bad: { command: 'alpha', problem: 'no "command"' } })).settled;
    const reload = m.applyDefinitions(definitions({ a: { command: 'alpha' }, bad: { command: 'alpha', problem: 'no "command"' } }), { restartFailed: true });
    expect(reload.diff).toMatchObject({ restarted: [], unchanged: ['a', 'bad'] });
    await reload.settled;
    expect(started).toEqual(['alpha']);
  });

  it('stops its servers when disposed', async () => {
    const { m } = manager();
    await m.applyDefinitions(definitions({ a: { command: 'alpha' } })).settled;
    const a = m.get('a')!;
    m.dispose();
    await expect.poll(() => a.state.kind).toBe('stopped');
    expect(m.servers()).toEqual([]);
  });
});
