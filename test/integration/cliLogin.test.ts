import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const cli = repoPath('dist/cli.js');

// `mcp-harness login` and `logout` as a user runs them: the built CLI, a real loopback redirect,
// $BROWSER as the user agent, and the token file under the config folder.
describe('mcp-harness login / logout', () => {
  const tag = processTag();
  const tmp = tempDir();
  const configHome = path.join(tmp.dir, 'xdg');
  const tokenFile = path.join(configHome, 'mcp-harness', 'oauth.json');
  let stop: () => Promise<void>;
  let workspace: string;

  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    ...tag.env,
    XDG_CONFIG_HOME: configHome,
    BROWSER: `${process.execPath} ${repoPath('test/fixtures/browser.mjs')}`,
    MCP_HARNESS_TOKEN_STORE: '',
    ...extra,
  });

  function run(args: string[], extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, ...args, '--workspace', workspace], { env: env(extra), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  const listed = async (extra: Record<string, string> = {}) =>
    (JSON.parse((await run(['list', '--json'], extra)).stdout) as { servers: Array<{ name: string; state: string; error: string | null }> }).servers[0];

  beforeAll(async () => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    const server = await startProcess(process.execPath, [repoPath('test/fixtures/servers/oauth.mjs')], { env: tag.env, ready: /listening \d+/ });
    stop = server.stop;
    const port = /listening (\d+)/.exec(server.output())![1];
    workspace = path.dirname(writeJson(tmp.dir, 'ws/.mcp.json', { mcpServers: { secure: { url: `http://127.0.0.1:${port}/mcp` } } }));
  });

  afterAll(async () => {
    await stop?.();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('lists the server as "sign-in required" before login', async () => {
    expect(await listed()).toMatchObject({ name: 'secure', state: 'auth_required', error: 'sign-in required' });
  });

  it('logs in through the browser and the loopback redirect; later runs use the saved tokens', async () => {
    const login = await run(['login', 'secure']);
    expect(login).toMatchObject({ code: 0, stdout: 'Signed in to secure: 2 tools.\n' });
    expect(login.stderr).toContain('Signing in to secure at 127.0.0.1:');
    if (process.platform !== 'win32') expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(await listed()).toMatchObject({ state: 'running', error: null });
    const call = await run(['call', 'mcp__secure__echo', '{"text":"signed"}']);
    expect(call).toMatchObject({ code: 0, stdout: 'signed\n' });
    // With storing off, nothing is saved: this run has no sign-in.
    expect(await listed({ MCP_HARNESS_TOKEN_STORE: 'off' })).toMatchObject({ state: 'auth_required' });
  });

  it('logs out: the tokens are forgotten', async () => {
    expect(await run(['logout', 'secure'])).toMatchObject({ code: 0, stdout: 'Signed out of secure.\n' });
    expect(await listed()).toMatchObject({ state: 'auth_required', error: 'sign-in required' });
    expect(fs.readFileSync(tokenFile, 'utf8')).not.toContain('access_token');
  });

  it('names the server it does not know', async () => {
    const result = await run(['login', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no server named "nope" (configured: secure)');
  });
});
