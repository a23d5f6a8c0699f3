import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir } from '../support/servers';
// @ts-expect-error plain ES module without types, shared with the e2e runner
import { ensureToolchain } from '../../scripts/toolchain.mjs';
import { cli, requireBuiltCli, startHttpServe } from './serveSupport';

// A second, independent client: the MCP Inspector's CLI. It wants Node 22.19+, so it lives in the
// toolchain with Node 24 (`npm test` installs both first) and runs on it.
let inspector = '';
let node = '';
const TOKEN = 'inspector-test-token-xyz';

const tag = processTag();
const tmp = tempDir('serve-inspector-');
const ws = path.join(tmp.dir, 'ws');
const home = path.join(tmp.dir, 'home');

beforeAll(async () => {
  requireBuiltCli();
  const toolchain = (await ensureToolchain({ codeServer: false, inspector: true, log: () => {} })) as { node24: string; inspector: string };
  node = toolchain.node24;
  inspector = toolchain.inspector;
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello from the workspace\n');
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

function runInspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(node, [inspector, '--cli', ...args], {
      env: { ...process.env, ...tag.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'catalog.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const serveArgs = ['serve', '--workspace', ws, '--audit-log', path.join(tmp.dir, 'audit.jsonl')];

describe('MCP Inspector CLI as a client of serve', () => {
  it('lists and calls our tools over stdio', async () => {
    const listed = await runInspector([process.execPath, cli, ...serveArgs, '--method', 'tools/list']);
    expect(listed.code, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] }).tools;
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'list_directory', 'glob_search', 'grep_search']);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const called = await runInspector([process.execPath, cli, ...serveArgs, '--method', 'tools/call', '--tool-name', 'read_file', '--tool-arg', 'path=hello.txt']);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello from the workspace' }] });
  });

  it('lists and calls our tools over HTTP with the token header', async () => {
    const serve = await startHttpServe(['--http', String(await freePort()), ...serveArgs.slice(1)], { ...tag.env, MCP_HARNESS_TOKEN: TOKEN });
    try {
      const auth = ['--header', `Authorization: Bearer ${TOKEN}`];
      const listed = await runInspector([serve.url, '--transport', 'http', ...auth, '--method', 'tools/list']);
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain('grep_search');
      const called = await runInspector([serve.url, '--transport', 'http', ...auth, '--method', 'tools/call', '--tool-name', 'grep_search', '--tool-arg', 'pattern=hello']);
      expect(called.code, called.stderr).toBe(0);
      expect(JSON.parse(called.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello.txt:1: hello from the workspace' }] });
      const refused = await runInspector([serve.url, '--transport', 'http', '--method', 'tools/list']);
      expect(refused.code).not.toBe(0);
    } finally {
      await serve.stop();
    }
  });
});
