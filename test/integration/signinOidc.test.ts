import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const cli = repoPath('dist/cli.js');

// A person's sign-in (authorization code with PKCE, dynamic registration, resource indicators)
// against oidc-provider rather than a fixture of ours: `mcp-harness login` as a user runs it, with
// $BROWSER as the user agent (it keeps the provider's interaction cookies), then the saved tokens.
describe('mcp-harness login against oidc-provider', () => {
  const tag = processTag();
  const tmp = tempDir();
  const configHome = path.join(tmp.dir, 'xdg');
  let stop: () => Promise<void>;
  let issuer = '';
  let workspace: string;

  const run = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const env = { ...process.env, ...tag.env, XDG_CONFIG_HOME: configHome, BROWSER: `${process.execPath} ${repoPath('test/fixtures/browser.mjs')}`, MCP_HARNESS_TOKEN_STORE: '' };
      const child = spawn(process.execPath, [cli, ...args, '--workspace', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const stats = async () => (await (await fetch(`${issuer}/test/stats`)).json()) as { authorizations: number; codeExchanges: number; registrations: number };

  beforeAll(async () => {
    if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
    const server = await startProcess(process.execPath, [repoPath('test/fixtures/servers/oidcAuthServer.mjs')], { env: tag.env, ready: /listening \d+/ });
    stop = server.stop;
    issuer = `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}`;
    const mcpUrl = /mcp (\S+)/.exec(server.output())![1];
    workspace = path.dirname(writeJson(tmp.dir, 'ws/.mcp.json', { mcpServers: { company: { url: mcpUrl } } }));
  }, 30_000);

  afterAll(async () => {
    await stop?.();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('signs in through the provider (registration, PKCE, code) and later runs use the saved tokens', async () => {
    const login = await run(['login', 'company']);
    expect(login, login.stderr).toMatchObject({ code: 0, stdout: 'Signed in to company: 2 tools.\n' });
    expect(await stats()).toEqual({ authorizations: 1, codeExchanges: 1, registrations: 1 });
    const whoami = await run(['call', 'mcp__company__whoami', '{}']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ sub: 'ann', scope: expect.stringContaining('mcp:tools') });
    expect((await stats()).authorizations).toBe(1);
  });

  it('signs out: the tokens are forgotten and the server asks for a sign-in again', async () => {
    expect(await run(['logout', 'company'])).toMatchObject({ code: 0, stdout: 'Signed out of company.\n' });
    const listed = JSON.parse((await run(['list', '--json'])).stdout) as { servers: Array<{ state: string }> };
    expect(listed.servers[0]).toMatchObject({ state: 'auth_required' });
  });
});
