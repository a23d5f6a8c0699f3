import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir, writeJson } from '../support/servers';
import { auditLines, cli, harnessFor, rawClientFor, requireBuiltCli, startHttpServe } from './serveSupport';

const ALL = ['read_file', 'list_directory', 'glob_search', 'grep_search', 'write_file', 'edit_file', 'run_command'];
const READ_ONLY = ALL.slice(0, 4);
const TOKEN = 'serve-test-token-0123456789';

const tag = processTag();
const tmp = tempDir('serve-test-');
const ws = path.join(tmp.dir, 'ws');
const audit = path.join(tmp.dir, 'audit.jsonl');
const userConfig = path.join(tmp.dir, 'user.json');

beforeAll(() => {
  requireBuiltCli();
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'notes.md'), 'alpha\nbeta\ngamma\n');
  fs.writeFileSync(path.join(ws, 'src', 'main.ts'), 'export const answer = 42;\n');
  fs.writeFileSync(path.join(tmp.dir, 'outside.txt'), 'outside secret\n');
  // The serve section of a file the user names adds run_command; the flags add the file writers.
  writeJson(tmp.dir, 'user.json', { servers: {}, serve: { expose: ['run_command'] } });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

/** Calls every built-in through a client, checking each answer. */
async function callEveryTool(harness: McpHarness, prefix: string, file: string): Promise<void> {
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await harness.callTool(`${prefix}${tool}`, args);
    expect(result.isError, `${tool}: ${result.text}`).toBe(false);
    return result.text;
  };
  expect(await call('read_file', { path: 'notes.md', start_line: 2, end_line: 2 })).toBe('beta');
  expect(await call('list_directory', {})).toContain('notes.md');
  expect(await call('glob_search', { pattern: '**/*.ts' })).toBe('src/main.ts');
  expect(await call('grep_search', { pattern: 'answer' })).toBe('src/main.ts:1: export const answer = 42;');
  expect(await call('write_file', { path: `out/${file}`, content: 'one\n' })).toBe(`Created out/${file} (4 B).`);
  expect(await call('edit_file', { path: `out/${file}`, old_string: 'one', new_string: 'two' })).toContain('-one\n+two');
  expect(await call('run_command', { command: `cat out/${file}` })).toBe('exit code 0\ntwo');
}

describe('serve over stdio', () => {
  it('offers only the read-only built-ins by default, and refuses the others by name', async () => {
    const harness = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--workspace', tmp.dir, '--audit-log', audit], env: tag.env });
    try {
      expect(harness.tools().map((t) => t.originalName)).toEqual(READ_ONLY);
      // Straight to the server, past our own client's registry: the server must refuse it itself.
      const raw = await rawClientFor({ command: process.execPath, args: [cli, 'serve', '--workspace', tmp.dir, '--audit-log', audit], env: tag.env });
      try {
        await expect(raw.callTool({ name: 'write_file', arguments: { path: 'planted.txt', content: 'x' } })).rejects.toMatchObject({
          message: expect.stringContaining('unknown tool "write_file"'),
        });
      } finally {
        await raw.close();
      }
      expect(fs.existsSync(path.join(tmp.dir, 'planted.txt'))).toBe(false);
      const escape = await harness.callTool('mcp__h__read_file', { path: '../../etc/passwd' });
      expect(escape.isError).toBe(true);
      expect(escape.text).toContain('"../../etc/passwd" climbs out of the workspace');
    } finally {
      await harness.dispose();
    }
    const denied = auditLines(audit).find((l) => l.event === 'denied');
    expect(denied).toMatchObject({ tool: 'write_file', client: { transport: 'stdio', name: 'raw-test-client' } });
  });

  it('connects our own client and calls every exposed tool', async () => {
    const harness = await harnessFor({
      command: process.execPath,
      args: [cli, 'serve', '--workspace', ws, '--config', userConfig, '--expose', 'write_file,edit_file', '--audit-log', audit],
      env: tag.env,
    });
    try {
      expect(harness.tools().map((t) => t.originalName)).toEqual(ALL);
      const annotations = Object.fromEntries(harness.tools().map((t) => [t.originalName, t.annotations?.readOnlyHint]));
      expect(annotations).toMatchObject({ read_file: true, write_file: false, run_command: false });
      await callEveryTool(harness, 'mcp__h__', 'stdio.txt');
    } finally {
      await harness.dispose();
    }
    const ends = auditLines(audit).filter((l) => l.event === 'end' && l.outcome === 'ok');
    expect(ends.map((l) => l.tool)).toEqual(expect.arrayContaining(ALL));
  });

  it('lets deny win over expose, from the flags and the serve section', async () => {
    const wide = writeJson(tmp.dir, 'wide.json', { servers: {}, serve: { expose: ['*'], deny: ['run_*'] } });
    const harness = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--workspace', ws, '--config', wide, '--deny', 'grep_search', '--audit-log', audit], env: tag.env });
    try {
      expect(harness.tools().map((t) => t.originalName)).toEqual(['read_file', 'list_directory', 'glob_search', 'write_file', 'edit_file']);
    } finally {
      await harness.dispose();
    }
  });

  it('keeps stdout for protocol messages: a bad config is reported on stderr', async () => {
    const bad = path.join(tmp.dir, 'bad');
    writeJson(bad, '.harness/mcp.json', { servers: {}, serve: { expose: 'read_file', deny: [3] } });
    const harness = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--workspace', bad, '--audit-log', audit], env: tag.env });
    try {
      const stderr = harness.servers()[0].stderrTail.join('\n');
      expect(stderr).toContain('serve.expose');
      expect(stderr).toContain('expected array of names or patterns, got string');
      expect(stderr).toContain('serve.deny[0]');
      expect(harness.tools().map((t) => t.originalName)).toEqual(READ_ONLY);
    } finally {
      await harness.dispose();
    }
  });
});

describe('serve --gateway listed in its own config', () => {
  it('does not start itself, and says why', async () => {
    const loop = path.join(tmp.dir, 'loop');
    writeJson(loop, '.vscode/mcp.json', { servers: { self: { command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', loop], env: tag.env } } });
    const harness = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', loop, '--audit-log', audit], env: tag.env });
    try {
      expect(harness.tools().map((t) => t.originalName)).toEqual(READ_ONLY);
      expect(harness.servers()[0].stderrTail.join('\n')).not.toContain('[self]');
      // One serve process (ours), not a chain of them.
      expect(tag.alive()).toHaveLength(1);
    } finally {
      await harness.dispose();
    }
  });
});

describe('serve --http', () => {
  let serve: Awaited<ReturnType<typeof startHttpServe>>;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    serve = await startHttpServe(['--http', String(port), '--workspace', ws, '--config', userConfig, '--expose', 'write_file,edit_file', '--audit-log', audit], {
      ...tag.env,
      MCP_HARNESS_TOKEN: TOKEN,
    });
  });

  afterAll(async () => {
    await serve?.stop();
  });

  it('binds to 127.0.0.1 and prints no token when MCP_HARNESS_TOKEN is set', () => {
    expect(serve.url).toBe(`http://127.0.0.1:${port}/mcp`);
    expect(serve.output()).not.toContain(TOKEN);
  });

  it('connects our own client with the token header and calls every exposed tool', async () => {
    const harness = await harnessFor({ url: serve.url, headers: { Authorization: `Bearer ${TOKEN}` } });
    try {
      expect(harness.tools().map((t) => t.originalName)).toEqual(ALL);
      await callEveryTool(harness, 'mcp__h__', 'http.txt');
      const env = await harness.callTool('mcp__h__run_command', { command: 'echo "token=[$MCP_HARNESS_TOKEN]"' });
      expect(env.text).toBe('exit code 0\ntoken=[]');
    } finally {
      await harness.dispose();
    }
  });

  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const post = (headers: Record<string, string>) =>
    fetch(serve.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: initialize });

  it('answers 401 to a missing or wrong token', async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post({ Authorization: 'Bearer wrong-token' })).status).toBe(401);
    expect((await post({ Authorization: TOKEN })).status).toBe(401);
    expect((await post({ Authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('answers 403 to a foreign Origin or Host, even with the token (DNS rebinding)', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await post({ ...auth, Origin: 'http://evil.example.com' })).status).toBe(403);
    expect((await post({ ...auth, Origin: `http://localhost:${port + 1}` })).status).toBe(403);
    expect((await post({ ...auth, Origin: `http://localhost:${port}` })).status).toBe(200);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(serve.url, { method: 'POST', headers: { ...auth, Host: 'evil.example.com', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(initialize);
    });
    expect(status).toBe(403);
  });

  it('gives each client its own session', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const [a, b] = await Promise.all([post(auth), post(auth)]);
    const ids = [a.headers.get('mcp-session-id'), b.headers.get('mcp-session-id')];
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const unknown = await fetch(serve.url, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': 'nope' }, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' });
    expect(unknown.status).toBe(404);
  });
});

describe('serve --http without MCP_HARNESS_TOKEN', () => {
  it('generates a token and prints it once on stderr', async () => {
    const env: Record<string, string> = { ...tag.env, MCP_HARNESS_TOKEN: '' };
    const serve = await startHttpServe(['--http', `127.0.0.1:${await freePort()}`, '--workspace', ws, '--audit-log', audit], env);
    try {
      const token = /token \(shown once; set MCP_HARNESS_TOKEN to choose it\): (\S+)/.exec(serve.output())?.[1];
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(serve.output().split(token!).length).toBe(2);
      const harness = await harnessFor({ url: serve.url, headers: { Authorization: `Bearer ${token}` } });
      try {
        expect((await harness.callTool('mcp__h__read_file', { path: 'notes.md', end_line: 1 })).text).toBe('alpha');
      } finally {
        await harness.dispose();
      }
    } finally {
      await serve.stop();
    }
  });
});
