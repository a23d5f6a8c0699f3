import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const cli = repoPath('dist/cli.js');
const oauthServer = repoPath('test/fixtures/servers/oauth.mjs');
const tag = processTag();
const tmp = tempDir('oauth-limits-');

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

/** Starts the OAuth fixture with `flags`, then runs `mcp-harness login secure` against it as a user would. */
async function login(name: string, flags: string[], entry: Record<string, unknown> = {}) {
  const server = await startProcess(process.execPath, [oauthServer, ...flags], { env: tag.env, ready: /listening \d+/ });
  try {
    const port = /listening (\d+)/.exec(server.output())![1];
    const workspace = path.dirname(writeJson(tmp.dir, `${name}/.mcp.json`, { mcpServers: { secure: { url: `http://127.0.0.1:${port}/mcp`, ...entry } } }));
    const browserLog = path.join(tmp.dir, `${name}-browser.log`);
    const env = {
      ...process.env,
      ...tag.env,
      XDG_CONFIG_HOME: path.join(tmp.dir, `${name}-xdg`),
      BROWSER: `${process.execPath} ${repoPath('test/fixtures/browser.mjs')}`,
      BROWSER_LOG: browserLog,
      MCP_HARNESS_TOKEN_STORE: '',
    };
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'login', 'secure', '--workspace', workspace], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('close', (code) => resolve({ code, output }));
    });
    return { ...result, port, browsed: fs.existsSync(browserLog) ? fs.readFileSync(browserLog, 'utf8') : '' };
  } finally {
    await server.stop();
  }
}

describe('an authorization server that misbehaves', () => {
  it('names a file: authorization endpoint: it is neither opened nor printed', async () => {
    const { code, output, browsed } = await login('file', ['--authorization-endpoint=file:///etc/passwd']);
    expect(code).toBe(1);
    expect(output).toContain('refused the authorization endpoint file: URL: OAuth endpoints must be https: (or http: on a loopback address)');
    expect(output).not.toContain('/etc/passwd');
    expect(browsed).toBe('');
  });

  it('sends metadata far larger than any real one: reading stops at the limit', async () => {
    const { code, output, port } = await login('huge', ['--metadata-bytes=20000000']);
    expect(code).toBe(1);
    expect(output).toContain(`the authorization server's answer to GET http://127.0.0.1:${port}/.well-known/oauth-authorization-server is larger than 2 MB; not read`);
  });

  it('never answers the metadata request: login ends with the time it waited', async () => {
    const { code, output, port } = await login('hang', ['--hang=/.well-known/oauth-authorization-server'], { startupTimeoutMs: 4000 });
    expect(code).toBe(1);
    expect(output).toContain(`the authorization server did not answer GET http://127.0.0.1:${port}/.well-known/oauth-authorization-server within 2 s`);
  });

  it('still signs in when it behaves', async () => {
    const { code, output, browsed, port } = await login('fine', []);
    expect(output).toContain('Signed in to secure: 2 tools.');
    expect(code).toBe(0);
    expect(browsed).toContain(`http://127.0.0.1:${port}/authorize?`);
  });
});
