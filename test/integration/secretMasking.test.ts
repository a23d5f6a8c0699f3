import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir, writeJson } from '../support/servers';
import { cli, harnessFor, requireBuiltCli, startHttpServe } from './serveSupport';

const tag = processTag();
const tmp = tempDir('secret-mask-');
const SECRETS = {
  MASK_TEST_USERINFO: 'userinfo-S3cr3t-9f2a',
  MASK_TEST_CMD: 'command-S3cr3t-71bc',
  MASK_TEST_DIR: 'cwd-S3cr3t-0d4e',
  MASK_TEST_ARG: 'arg-S3cr3t-5a6b',
  MASK_TEST_ENV: 'env-S3cr3t-c3d2',
  MASK_TEST_QUERY: 'query-S3cr3t-e8f1',
};
const LITERAL_PASSWORD = 'literal-S3cr3t-4321';
const env = { ...tag.env, ...SECRETS };

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function expectNoSecret(text: string): void {
  for (const secret of [...Object.values(SECRETS), LITERAL_PASSWORD]) expect(text).not.toContain(secret);
}

const node = process.execPath;
// Prints one of its arguments, or an environment variable, on stderr and exits: the value lands in the stderr tail.
const printArg = ['-e', 'console.error("got " + process.argv[1]); process.exit(3)'];
const printEnv = ['-e', 'console.error("got " + process.env.SECRET_VALUE); process.exit(3)'];

beforeAll(async () => {
  requireBuiltCli();
  const port = await freePort();
  writeJson(tmp.dir, '.mcp.json', {
    mcpServers: {
      userinfo: { url: `http://user:\${env:MASK_TEST_USERINFO}@127.0.0.1:${port}/mcp` },
      literal: { url: `http://admin:${LITERAL_PASSWORD}@127.0.0.1:${port}/mcp` },
      query: { url: `http://127.0.0.1:${port}/mcp?key=\${env:MASK_TEST_QUERY}` },
      command: { command: '/opt/${env:MASK_TEST_CMD}/server', env: tag.env },
      cwd: { command: node, args: ['-e', ''], cwd: '/nonexistent/${env:MASK_TEST_DIR}', env: tag.env },
      args: { command: node, args: [...printArg, '${env:MASK_TEST_ARG}'], env: tag.env },
      env: { command: node, args: printEnv, env: { ...tag.env, SECRET_VALUE: '${env:MASK_TEST_ENV}' } },
    },
  });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

describe('resolved secrets are masked wherever a definition or its error is shown', () => {
  it.each([['list'], ['list', '--json'], ['doctor'], ['doctor', '--json']])('%s %s', async (...args) => {
    const { output } = await run([...args.filter(Boolean), '--workspace', tmp.dir]);
    // Each server failed and said so: the secrets would have been in these lines.
    for (const name of ['userinfo', 'literal', 'command', 'cwd', 'args', 'env']) expect(output).toContain(name);
    expect(output).toContain('••••');
    expectNoSecret(output);
  });

  it('serve --gateway: stderr and the errors it relays', async () => {
    const serve = await startHttpServe(['--http', String(await freePort()), '--gateway', '--workspace', tmp.dir, '--audit-log', path.join(tmp.dir, 'audit.jsonl')], {
      ...env,
      MCP_HARNESS_TOKEN: 'mask-test-token-0123456789',
    });
    try {
      const harness = await harnessFor({ url: serve.url, headers: { Authorization: 'Bearer mask-test-token-0123456789' } });
      try {
        const relayed = await harness.callTool('mcp__h__mcp__userinfo__anything', {});
        expect(relayed.isError).toBe(true);
        expectNoSecret(relayed.text);
      } finally {
        await harness.dispose();
      }
      expect(serve.output()).toContain('[userinfo]');
      expectNoSecret(serve.output());
    } finally {
      await serve.stop();
    }
  });
});
