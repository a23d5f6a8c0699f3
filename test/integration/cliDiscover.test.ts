import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, repoPath, tempDir, writeJson } from '../support/servers';

// `list --discover` of the built CLI, in a temp home holding each agent's file, and the library's
// `discover: true` against the same home.
const cli = repoPath('dist/cli.js');

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, XDG_CONFIG_HOME: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('discovering servers other agents configured', () => {
  const tag = processTag();
  const tmp = tempDir();
  const home = path.join(tmp.dir, 'home');
  const ws = path.join(tmp.dir, 'ws');

  beforeAll(() => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    const fixture = fixtureEntry([], { env: tag.env });
    writeJson(ws, '.vscode/mcp.json', { servers: { mine: fixture } });
    writeJson(home, '.config/Claude/claude_desktop_config.json', {
      mcpServers: { desk: { ...fixture, env: { ...tag.env, WHO: 'desktop' } }, sameAsMine: fixture },
    });
    fs.mkdirSync(path.join(home, '.cursor'), { recursive: true });
    fs.writeFileSync(path.join(home, '.cursor', 'mcp.json'), '{\n  // mine\n  "mcpServers": {\n    "remote": { "url": "http://127.0.0.1:9/mcp" },\n    "broken": { "args": ["x"] }\n  }\n}\n');
    writeJson(home, '.claude.json', { projects: { [ws]: { mcpServers: { proj: { type: 'stdio', command: 'proj-mcp' } } } } });
  });

  afterAll(async () => {
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('list --discover shows name, file:line and command or URL, and starts nothing', async () => {
    const { code, stdout, stderr } = await run(['list', '--discover', '--workspace', ws], { HOME: home });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^NAME\s+FROM\s+COMMAND\/URL\s+STATUS/m);
    expect(stdout).toMatch(/^proj\s+Claude Code ~\/\.claude\.json:5\s+proj-mcp\s+would be imported$/m);
    expect(stdout).toMatch(/^desk\s+Claude Desktop ~\/\.config\/Claude\/claude_desktop_config\.json:3\s+\S*node\S* \S*fixture\.mjs\s+would be imported$/m);
    expect(stdout).toMatch(/^sameAsMine\s+Claude Desktop \S+:\d+\s+.*configured already as mine$/m);
    expect(stdout).toMatch(/^remote\s+Cursor ~\/\.cursor\/mcp\.json:4\s+http:\/\/127\.0\.0\.1:9\/mcp\s+would be imported$/m);
    expect(stdout).toMatch(/^broken\s+Cursor ~\/\.cursor\/mcp\.json:5\s+\(broken: see the config errors\)\s+broken, not imported$/m);
    expect(stderr).toContain(`${path.join(home, '.cursor', 'mcp.json')}:5:5: mcpServers.broken: needs "command" (stdio) or "url" (http/sse)`);
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('list --discover --json gives every origin', async () => {
    const { code, stdout } = await run(['list', '--discover', '--json', '--workspace', ws], { HOME: home });
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    const desk = out.servers.find((s: { name: string }) => s.name === 'desk');
    expect(desk).toMatchObject({ transport: 'stdio', status: 'new', origins: [{ source: 'claude-desktop', file: path.join(home, '.config/Claude/claude_desktop_config.json'), line: 3 }] });
    expect(out.configErrors).toHaveLength(1);
  });

  it('rejects --discover with another command', async () => {
    const { code, stderr } = await run(['tools', '--discover'], { HOME: home });
    expect(code).toBe(2);
    expect(stderr).toContain('--discover goes with list only');
  });

  it('discover: true lists discovered servers and starts them only through checkStart', async () => {
    const asked: string[] = [];
    const harness = await createHarness({
      workspaceFolder: ws,
      discover: { home, platform: 'linux', env: {} },
      checkStart: async (def) => {
        if (def.origin.source === 'vscode') return undefined;
        asked.push(def.name);
        return 'needs your approval to start';
      },
    });
    try {
      const servers = harness.servers().map((s) => ({ name: s.name, state: s.state, source: s.origin.source, also: s.origin.alsoIn?.map((o) => o.source) }));
      expect(servers).toEqual([
        { name: 'mine', state: 'running', source: 'vscode', also: ['claude-desktop'] },
        { name: 'proj', state: 'blocked', source: 'claude-code', also: undefined },
        { name: 'desk', state: 'blocked', source: 'claude-desktop', also: undefined },
        { name: 'remote', state: 'blocked', source: 'cursor', also: undefined },
        { name: 'broken', state: 'error', source: 'cursor', also: undefined },
      ]);
      expect(asked.sort()).toEqual(['desk', 'proj', 'remote']);
      expect(harness.configErrors().map((e) => e.file)).toEqual([path.join(home, '.cursor', 'mcp.json')]);
    } finally {
      await harness.dispose();
    }
  });
});
