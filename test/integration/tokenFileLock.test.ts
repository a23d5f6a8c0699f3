import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const cli = repoPath('dist/cli.js');

// Two `mcp-harness` processes on one token file, against an authorization server that rotates
// refresh tokens and answers each refresh slowly, so both find the access token expired together.
describe('two processes sharing one token file', () => {
  const tag = processTag();
  const tmp = tempDir('token-lock-');
  const configHome = path.join(tmp.dir, 'xdg');
  const tokenFile = path.join(configHome, 'mcp-harness', 'oauth.json');
  let stop: () => Promise<void>;
  let base: string;
  let workspace: string;

  function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env = { ...process.env, ...tag.env, XDG_CONFIG_HOME: configHome, BROWSER: `${process.execPath} ${repoPath('test/fixtures/browser.mjs')}`, MCP_HARNESS_TOKEN_STORE: '' };
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, ...args, '--workspace', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  beforeAll(async () => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    const server = await startProcess(process.execPath, [repoPath('test/fixtures/servers/oauth.mjs'), '--token-delay-ms=1500'], { env: tag.env, ready: /listening \d+/ });
    stop = server.stop;
    base = `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}`;
    workspace = path.dirname(writeJson(tmp.dir, 'ws/.mcp.json', { mcpServers: { secure: { url: `${base}/mcp` } } }));
  });

  afterAll(async () => {
    await stop?.();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('refresh once between them: both calls succeed and the sign-in is kept', async () => {
    expect(await run(['login', 'secure'])).toMatchObject({ code: 0 });
    await fetch(`${base}/test/expire`, { method: 'POST' });
    const [a, b] = await Promise.all([run(['call', 'mcp__secure__echo', '{"text":"first"}']), run(['call', 'mcp__secure__echo', '{"text":"second"}'])]);
    expect(a, a.stderr).toMatchObject({ code: 0, stdout: 'first\n' });
    expect(b, b.stderr).toMatchObject({ code: 0, stdout: 'second\n' });
    const stats = (await (await fetch(`${base}/test/stats`)).json()) as { refreshes: number; refusedRefreshes: number };
    expect(stats).toMatchObject({ refreshes: 1, refusedRefreshes: 0 });
    // Still signed in for the next run, with the tokens the one refresh returned.
    expect(await run(['call', 'mcp__secure__echo', '{"text":"third"}'])).toMatchObject({ code: 0, stdout: 'third\n' });
    expect(fs.readFileSync(tokenFile, 'utf8')).toContain('access_token');
    expect(fs.existsSync(`${tokenFile}.lock`)).toBe(false);
  });
});
