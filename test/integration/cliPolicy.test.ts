import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, fixtureServer, repoPath, tempDir, writeJson } from '../support/servers';

// `--policy FILE` and MCP_HARNESS_POLICY on the built CLI, as a real child process.
const cli = repoPath('dist/cli.js');

function run(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, MCP_HARNESS_POLICY: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface ListRow {
  name: string;
  state: string;
  error: string | null;
  fingerprint: string;
}

describe('mcp-harness --policy', () => {
  const tag = processTag();
  const tmp = tempDir();
  const ws = path.join(tmp.dir, 'ws');
  const policyFile = path.join(tmp.dir, 'policy.json');

  beforeAll(() => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    writeJson(ws, '.mcp.json', { mcpServers: { team: fixtureEntry(['--name=team'], { env: tag.env }), stray: fixtureEntry(['--name=stray'], { env: tag.env }) } });
  });
  afterAll(async () => {
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  const list = async (args: string[], env: Record<string, string | undefined> = {}) => {
    const result = await run(['list', '--json', '--workspace', ws, ...args], env);
    return { ...result, rows: (JSON.parse(result.stdout) as { servers: ListRow[] }).servers };
  };

  it('without a policy both servers run', async () => {
    const { code, rows } = await list([]);
    expect(code).toBe(0);
    expect(rows.map((r) => r.state)).toEqual(['running', 'running']);
  });

  it('with --policy only the allowed server runs; the other is listed with the rule', async () => {
    writeJson(tmp.dir, 'policy.json', { allow: [{ command: `* ${fixtureServer} --name=team` }] });
    const { code, rows } = await list(['--policy', policyFile]);
    expect(code).toBe(0);
    expect(rows[0]).toMatchObject({ name: 'team', state: 'running', error: null });
    expect(rows[1]).toMatchObject({ name: 'stray', state: 'blocked' });
    expect(rows[1]!.error).toBe(`not allowed by your organisation's policy: no "allow" rule in ${policyFile} matches command "${process.execPath} ${fixtureServer} --name=stray" or fingerprint ${rows[1]!.fingerprint}`);
    const table = await run(['list', '--workspace', ws, '--policy', policyFile]);
    expect(table.stdout).toMatch(/^stray\s+stdio\s+blocked\s+0\s+not allowed by your organisation's policy: no "allow" rule in /m);
  });

  it('MCP_HARNESS_POLICY names the file too, and a fingerprint from list --json allows that entry', async () => {
    const { rows: open } = await list([]);
    writeJson(tmp.dir, 'by-fingerprint.json', { allow: [{ fingerprint: open[1]!.fingerprint }] });
    const { rows } = await list([], { MCP_HARNESS_POLICY: path.join(tmp.dir, 'by-fingerprint.json') });
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['team', 'blocked'],
      ['stray', 'running'],
    ]);
  });

  it('a bad policy file is named with its field, and no server starts (fails closed)', async () => {
    fs.writeFileSync(policyFile, '{\n  "allow": [{ "command": "node *" }],\n  "requireSandbox": "yes"\n}\n');
    const { code, rows, stderr } = await list(['--policy', policyFile]);
    expect(code).toBe(0);
    expect(stderr).toContain(`mcp-harness: server policy ${policyFile}:3:21: requireSandbox: expected boolean, got string; no server will start until the policy is fixed`);
    expect(rows.map((r) => r.state)).toEqual(['blocked', 'blocked']);
    expect(rows[0]!.error).toContain("not allowed by your organisation's policy: the policy is broken, so no server may start until it is fixed");
  });

  it.runIf(process.platform === 'linux')('"requireSandbox": true runs the sandboxed entry (sandboxed for real) and refuses the other', async () => {
    const boxedWs = path.join(tmp.dir, 'boxed');
    writeJson(boxedWs, '.mcp.json', {
      mcpServers: { boxed: fixtureEntry(['--name=team'], { env: tag.env, sandbox: true }), open: fixtureEntry(['--name=team'], { env: tag.env }) },
    });
    writeJson(tmp.dir, 'sandbox-policy.json', { allow: [{ command: `* ${fixtureServer} --name=team` }], requireSandbox: true });
    const policy = path.join(tmp.dir, 'sandbox-policy.json');
    const result = await run(['list', '--json', '--workspace', boxedWs, '--policy', policy]);
    const rows = (JSON.parse(result.stdout) as { servers: ListRow[] }).servers;
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ['boxed', 'running'],
      ['open', 'blocked'],
    ]);
    expect(rows[1]!.error).toContain(`"requireSandbox" in ${policy} asks every stdio server to declare "sandbox"`);
    // Without the policy both run: the sandbox is the entry's, the requirement the policy's.
    const open = await run(['list', '--json', '--workspace', boxedWs]);
    expect((JSON.parse(open.stdout) as { servers: ListRow[] }).servers.map((r) => r.state)).toEqual(['running', 'running']);
  });

  it('a missing policy file fails closed as well', async () => {
    const missing = path.join(tmp.dir, 'no-such-policy.json');
    const { rows, stderr } = await list(['--policy', missing]);
    expect(stderr).toContain(`mcp-harness: server policy ${missing}: could not be read: `);
    expect(rows.map((r) => r.state)).toEqual(['blocked', 'blocked']);
  });
});
