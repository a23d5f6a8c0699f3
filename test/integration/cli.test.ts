import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, freePort, referenceServers, repoPath, tempDir, writeJson } from '../support/servers';

// The built CLI (dist/cli.js, what `npm run build` makes and users run), as a real child process.
const cli = repoPath('dist/cli.js');

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mcp-harness CLI', () => {
  const tag = processTag();
  const tmp = tempDir();
  const ws = path.join(tmp.dir, 'ws');
  // Only the quick fixture server, for the many `call` runs.
  const quick = path.join(tmp.dir, 'quick');

  beforeAll(() => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    writeJson(ws, '.mcp.json', {
      mcpServers: {
        fixture: fixtureEntry([], { env: tag.env }),
        everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
        broken: { command: 'no-such-command-for-cli-test', env: tag.env },
        needsToken: { command: process.execPath, args: ['-e', ''], env: { ...tag.env, TOKEN: '${CLI_TEST_UNSET_TOKEN}' } },
        badArgs: { command: process.execPath, args: ['ok', 7] },
      },
    });
    writeJson(quick, '.mcp.json', { mcpServers: { fixture: fixtureEntry([], { env: tag.env }) } });
  });

  afterAll(async () => {
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('list prints one row per server and the config errors, exiting 0 although some failed', async () => {
    const { code, stdout, stderr } = await run(['list', '--workspace', ws]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^NAME\s+TRANSPORT\s+STATE\s+TOOLS\s+ERROR/m);
    expect(stdout).toMatch(/^fixture\s+stdio\s+running\s+14\s*$/m);
    expect(stdout).toMatch(/^broken\s+stdio\s+error\s+0\s+command not found: "no-such-command-for-cli-test"/m);
    expect(stdout).toMatch(/^needsToken\s+stdio\s+error\s+0\s+env var CLI_TEST_UNSET_TOKEN is not set/m);
    expect(stderr).toContain('.mcp.json:');
    expect(stderr).toContain('mcpServers.badArgs.args[1]: expected string, got number');
  });

  it('list --json prints servers and configErrors', async () => {
    const { code, stdout } = await run(['list', '--workspace', ws, '--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(Object.keys(parsed)).toEqual(['servers', 'configErrors']);
    const byName = Object.fromEntries(parsed.servers.map((s: { name: string }) => [s.name, s]));
    expect(byName.everything).toMatchObject({ transport: 'stdio', state: 'running', error: null });
    expect(byName.everything.toolCount).toBeGreaterThanOrEqual(10);
    expect(byName.broken.state).toBe('error');
    expect(parsed.configErrors[0]).toMatchObject({ jsonPath: 'mcpServers.badArgs.args[1]', message: 'expected string, got number' });
  });

  it('--config adds a file that wins over the workspace files', async () => {
    const extra = writeJson(tmp.dir, 'extra.json', { servers: { fixture: fixtureEntry(['--name=from-extra'], { env: tag.env }) } });
    const { stdout } = await run(['list', '--workspace', ws, '--config', extra, '--json']);
    const fixture = JSON.parse(stdout).servers.find((s: { name: string }) => s.name === 'fixture');
    expect(fixture.serverInfo.name).toBe('from-extra');
    expect(fixture.origin.file).toBe(extra);
  });

  it('tools lists exposed names', async () => {
    const { code, stdout } = await run(['tools', '--workspace', ws]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^mcp__fixture__echo\s+fixture\s+Returns its text argument/m);
    const json = JSON.parse((await run(['tools', '--workspace', ws, '--json'])).stdout);
    expect(json.tools.find((t: { name: string }) => t.name === 'mcp__everything__echo')).toMatchObject({ server: 'everything', originalName: 'echo' });
  });

  it('call exits 0 with the text, 1 for a tool error, 2 for bad usage or arguments', async () => {
    expect(await run(['call', 'mcp__fixture__echo', '{"text":"hello cli"}', '--workspace', quick])).toMatchObject({ code: 0, stdout: 'hello cli\n' });
    const failed = await run(['call', 'mcp__fixture__fail', '--workspace', quick]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('the tool failed on purpose');
    const invalid = await run(['call', 'mcp__fixture__add', '{"a":"x","b":1}', '--workspace', quick]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('"a": must be number');
    const unknown = await run(['call', 'mcp__fixture__nope', '--workspace', quick]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "mcp__fixture__nope"');
    const badJson = await run(['call', 'mcp__fixture__echo', '{text:', '--workspace', quick]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('arguments are not valid JSON');
    expect((await run(['frobnicate'])).code).toBe(2);
    expect((await run(['list', '--no-such-flag'])).code).toBe(2);
  });

  it('call --json prints the whole result, and --timeout bounds a hanging tool', async () => {
    const json = await run(['call', 'mcp__fixture__image', '--json', '--workspace', quick]);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout);
    expect(result.isError).toBe(false);
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(result.text).toContain('[image image/png, 70 B]'); // the fixture's 1x1 PNG
    const hung = await run(['call', 'mcp__fixture__hang', '--timeout', '300', '--workspace', quick]);
    expect(hung.code).toBe(1);
    expect(hung.stderr).toContain('no answer within 0.3 s');
    expect((await run(['call', 'mcp__fixture__hang', '--timeout', 'soon', '--workspace', quick])).code).toBe(2);
  });

  it('doctor names each problem with a fix and exits 1', async () => {
    const { code, stdout } = await run(['doctor', '--workspace', ws], { PATH: process.env.PATH ?? '' });
    expect(code).toBe(1);
    expect(stdout).toContain('command "no-such-command-for-cli-test" not found on PATH');
    expect(stdout).toContain('env var CLI_TEST_UNSET_TOKEN is not set');
    expect(stdout).toMatch(/fix: set CLI_TEST_UNSET_TOKEN/);
    expect(stdout).toContain('connected over stdio: 14 tools');
    const healthy = writeJson(tmp.dir, 'healthy/.mcp.json', { mcpServers: { fixture: fixtureEntry([], { env: tag.env }) } });
    const ok = await run(['doctor', '--workspace', path.dirname(healthy)]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('No problems found.');
  });

  it('doctor reports an unreachable URL', async () => {
    const port = await freePort(); // free, so nothing listens there
    const remote = writeJson(tmp.dir, 'remote/.mcp.json', { mcpServers: { remote: { url: `http://127.0.0.1:${port}/mcp`, startupTimeoutMs: 3000 } } });
    const { code, stdout } = await run(['doctor', '--workspace', path.dirname(remote)]);
    expect(code).toBe(1);
    expect(stdout).toContain(`cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(stdout).toContain('fix: start the HTTP server, or check the host and port in "url"');
  });

  it('call exits 3, not 2, when the tool\'s server is not running, naming the server, its state and why', async () => {
    const down = writeJson(tmp.dir, 'down/.mcp.json', { mcpServers: { gone: { command: 'no-such-command-for-cli-down', env: tag.env } } });
    const folder = path.dirname(down);
    for (let i = 0; i < 2; i++) {
      const result = await run(['call', 'mcp__gone__echo', '{"text":"x"}', '--workspace', folder]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('server "gone" is not running (error): command not found: "no-such-command-for-cli-down"');
    }
    const json = JSON.parse((await run(['call', 'mcp__gone__echo', '--json', '--workspace', folder])).stdout);
    expect(json).toMatchObject({ isError: true, errorKind: 'unavailable' });
    // A name no configured server could have is still a typo.
    expect((await run(['call', 'mcp__nobody__echo', '--workspace', folder])).code).toBe(2);
  });

  it.each(['list', 'call'])('%s --trace prints the handshake from its first message', async (command) => {
    const args = command === 'list' ? ['list'] : ['call', 'mcp__fixture__echo', '{"text":"traced"}'];
    const { code, stderr } = await run([...args, '--trace', '--workspace', quick]);
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((l) => l.startsWith('[fixture] '));
    // The version probe first; this 2025-era fixture refuses it, so initialize follows.
    expect(lines[0]).toMatch(/^\[fixture\] → \{.*"method":"server\/discover"/);
    expect(lines[1]).toMatch(/^\[fixture\] ← \{.*"error":\{/);
    expect(lines[2]).toMatch(/^\[fixture\] → \{.*"method":"initialize"/);
    expect(lines[3]).toMatch(/^\[fixture\] ← \{.*"result":\{"protocolVersion":/);
    expect(lines[4]).toMatch(/^\[fixture\] → \{.*"method":"notifications\/initialized"/);
    if (command === 'call') expect(lines.some((l) => l.includes('"method":"tools/call"'))).toBe(true);
  });

  it('doctor tells a rejected Authorization header from a missing one', async () => {
    const server = http.createServer((_req, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('bad token'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`;
      const withHeader = writeJson(tmp.dir, 'auth-sent/.mcp.json', { mcpServers: { locked: { url, headers: { Authorization: 'Bearer expired' } } } });
      const sent = await run(['doctor', '--workspace', path.dirname(withHeader)]);
      expect(sent.code).toBe(1);
      expect(sent.stdout).toContain('the Authorization header was sent and rejected (HTTP 401)');
      expect(sent.stdout).not.toContain('add an Authorization header');
      expect(sent.stdout).not.toContain('Add an "Authorization" header');
      const without = writeJson(tmp.dir, 'auth-missing/.mcp.json', { mcpServers: { locked: { url } } });
      const missing = await run(['doctor', '--workspace', path.dirname(without)]);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toContain('the server asks for authorization (HTTP 401)');
      expect(missing.stdout).toContain('add an Authorization header');
    } finally {
      server.close();
    }
  });

  it('resolves ${input:id} from MCP_HARNESS_INPUT_<ID>', async () => {
    const file = writeJson(tmp.dir, 'inputs/.vscode/mcp.json', {
      inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
      servers: { secret: fixtureEntry([], { env: { ...tag.env, API_KEY: '${input:api-key}' } }) },
    });
    const folder = path.dirname(path.dirname(file));
    const ok = await run(['call', 'mcp__secret__env', '{"key":"API_KEY"}', '--workspace', folder], { MCP_HARNESS_INPUT_API_KEY: 'k-123' });
    expect(ok).toMatchObject({ code: 0, stdout: 'k-123\n' });
    const missing = await run(['list', '--workspace', folder]);
    expect(missing.stdout).toContain('input "api-key" was not provided');
  });
});
