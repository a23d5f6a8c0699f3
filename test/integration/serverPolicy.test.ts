import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpHarness, parseServerPolicy, POLICY_REFUSAL, serverPolicyFingerprint, type McpServerPolicyState } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, fixtureServer, tempDir, writeJson } from '../support/servers';

// An organisation's server policy over real fixture servers: refused servers are listed with the
// rule, never spawned (the process tag proves it), and a policy change moves running servers.
describe('server policy', () => {
  const tag = processTag();
  const tmp = tempDir();
  const harnesses: McpHarness[] = [];
  const entry = (flags: string[] = []) => fixtureEntry(flags, { env: tag.env });
  const allowFixture = (extra: Record<string, unknown> = {}) => parseServerPolicy({ allow: [{ command: `${process.execPath} ${fixtureServer} --name=ok*` }], ...extra }, '/etc/mcp-harness/policy.json');

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
  afterAll(() => tmp.cleanup());

  function harnessFor(name: string, servers: Record<string, unknown>, serverPolicy?: McpServerPolicyState) {
    const ws = path.join(tmp.dir, name);
    writeJson(ws, '.mcp.json', { mcpServers: servers });
    const h = new McpHarness({ workspaceFolder: ws, serverPolicy });
    harnesses.push(h);
    return h;
  }

  it('starts only the servers the policy allows; the others are listed, blocked, with the reason', async () => {
    const h = harnessFor('on', { okA: entry(['--name=okA']), other: entry(['--name=other']) }, allowFixture());
    await h.start();
    const [okA, other] = h.snapshots();
    expect(okA!.state.kind).toBe('running');
    expect(other!.state).toEqual({
      kind: 'blocked',
      policy: true,
      reason: `${POLICY_REFUSAL}: no "allow" rule in /etc/mcp-harness/policy.json matches command "${process.execPath} ${fixtureServer} --name=other" or fingerprint ${serverPolicyFingerprint(other!.definition)}`,
    });
    expect(other!.pid).toBeUndefined();
    // Only one process carries the tag: the refused server was never spawned.
    expect(tag.alive()).toHaveLength(1);
    expect(h.tools().some((t) => t.server === 'other')).toBe(false);
    // Starting it by hand is refused the same way.
    await h.startServer('other');
    expect(h.snapshot('other')!.state.kind).toBe('blocked');
  });

  it('without a policy every server starts', async () => {
    const h = harnessFor('off', { okA: entry(['--name=okA']), other: entry(['--name=other']) });
    await h.start();
    expect(h.servers().map((s) => s.state)).toEqual(['running', 'running']);
  });

  it('a broken policy fails closed: no server starts, and each says why', async () => {
    const broken = parseServerPolicy({ allow: [{ comand: 'node *' }] }, '/etc/mcp-harness/policy.json');
    expect(broken.ok).toBe(false);
    const h = harnessFor('broken', { okA: entry(['--name=okA']) }, broken);
    await h.start();
    expect(h.servers()[0]).toMatchObject({
      state: 'blocked',
      error: `${POLICY_REFUSAL}: the policy is broken, so no server may start until it is fixed (/etc/mcp-harness/policy.json: allow[0].comand: unknown field (expected one of "command", "url" or "fingerprint"))`,
    });
    expect(tag.alive()).toEqual([]);
  });

  it('a new policy stops the servers it refuses and starts the ones it now allows', async () => {
    const h = harnessFor('change', { okA: entry(['--name=okA']), other: entry(['--name=other']) }, allowFixture());
    await h.start();
    expect(h.servers().map((s) => s.state)).toEqual(['running', 'blocked']);
    const onlyOther = parseServerPolicy({ allow: [{ command: '* --name=other' }] }, 'settings.json');
    await h.applyConfig({ serverPolicy: onlyOther });
    expect(h.servers().map((s) => s.state)).toEqual(['blocked', 'running']);
    expect(h.servers()[0]!.error).toContain('no "allow" rule in settings.json matches');
    await h.applyConfig({ serverPolicy: undefined });
    expect(h.servers().map((s) => s.state)).toEqual(['running', 'running']);
  });

  it('requireSandbox refuses stdio servers without "sandbox"; a sandboxed one is never run unsandboxed', async () => {
    const h = harnessFor('sandbox', { okA: entry(['--name=okA']), okB: { ...entry(['--name=okB']), sandbox: true } }, allowFixture({ requireSandbox: true }));
    await h.start();
    const [a, b] = h.servers();
    expect(a).toMatchObject({ state: 'blocked', error: expect.stringContaining('"requireSandbox" in /etc/mcp-harness/policy.json asks every stdio server to declare "sandbox"') });
    expect(b).toMatchObject({ state: 'error', error: expect.stringContaining('never runs unsandboxed') });
    expect(tag.alive()).toEqual([]);
  });
});
