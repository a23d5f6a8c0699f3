import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarnessMcpServer, McpHarness, ServeHttpListener } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir } from '../support/servers';
import { harnessFor, requireBuiltCli, startHttpServe } from './serveSupport';

const TOKEN = 'serve-attacks-token-0123456789';
const tag = processTag();
const tmp = tempDir('serve-attacks-');
const ws = path.join(tmp.dir, 'ws');
const outside = path.join(tmp.dir, 'outside.txt');
let serve: Awaited<ReturnType<typeof startHttpServe>>;

beforeAll(async () => {
  requireBuiltCli();
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'inside.txt'), 'inside\n');
  fs.writeFileSync(outside, 'outside secret\n');
  fs.symlinkSync(outside, path.join(ws, 'link.txt'));
  fs.symlinkSync(tmp.dir, path.join(ws, 'up'));
  serve = await startHttpServe(['--http', String(await freePort()), '--workspace', ws, '--expose', '*', '--audit-log', path.join(tmp.dir, 'audit.jsonl')], {
    ...tag.env,
    MCP_HARNESS_TOKEN: TOKEN,
  });
});

afterAll(async () => {
  await serve?.stop();
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

const auth = { Authorization: `Bearer ${TOKEN}` };
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('serve --http under attack', () => {
  it('refuses path escapes in every built-in tool that takes a path', async () => {
    const harness = await harnessFor({ url: serve.url, headers: auth });
    try {
      const attempts: [string, Record<string, unknown>][] = [
        ['read_file', { path: '../outside.txt' }],
        ['read_file', { path: outside }],
        ['read_file', { path: 'link.txt' }],
        ['read_file', { path: 'up/outside.txt' }],
        ['list_directory', { path: '..' }],
        ['list_directory', { path: 'up' }],
        ['glob_search', { pattern: '*', path: '..' }],
        ['grep_search', { pattern: 'secret', path: '/' }],
        ['grep_search', { pattern: 'secret', path: 'up' }],
        ['write_file', { path: '../planted.txt', content: 'x' }],
        ['write_file', { path: 'link.txt', content: 'overwritten' }],
        ['write_file', { path: 'up/planted.txt', content: 'x' }],
        ['edit_file', { path: '../outside.txt', old_string: 'outside', new_string: 'edited' }],
        ['edit_file', { path: 'link.txt', old_string: 'outside', new_string: 'edited' }],
        ['run_command', { command: 'pwd', cwd: '..' }],
        ['run_command', { command: 'pwd', cwd: 'up' }],
      ];
      for (const [tool, args] of attempts) {
        const result = await harness.callTool(`mcp__h__${tool}`, args);
        expect(result.isError, `${tool} ${JSON.stringify(args)}: ${result.text}`).toBe(true);
        expect(result.text, tool).toMatch(/climbs out of the workspace|outside the workspace/);
      }
      expect(fs.readFileSync(outside, 'utf8')).toBe('outside secret\n');
      expect(fs.existsSync(path.join(tmp.dir, 'planted.txt'))).toBe(false);
    } finally {
      await harness.dispose();
    }
  });

  it('answers a 100 MB body with 413 without reading it all, and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(serve.url, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
        req.destroy();
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 100 && !req.destroyed) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    });
    expect(status).toBe(413);
    const after = await fetch(serve.url, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: initialize });
    expect(after.status).toBe(200);
  });

  it('gives 200 clients initializing at once a session each', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => fetch(serve.url, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: initialize })),
    );
    for (const r of responses) await r.text();
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    expect(new Set(responses.map((r) => r.headers.get('mcp-session-id'))).size).toBe(200);
  });
});

describe('a slow client (slowloris)', () => {
  it('is disconnected when its headers do not arrive in time, while others are served', async () => {
    const harness = new McpHarness({ workspaceFolder: ws, autoStart: false });
    await harness.start();
    const mcp = new HarnessMcpServer(harness, { gateway: false, expose: [], deny: [] });
    const listener = new ServeHttpListener(mcp, { port: 0, token: TOKEN, headersTimeoutMs: 500 });
    const url = new URL(await listener.listen());
    try {
      const socket = net.connect(Number(url.port), '127.0.0.1');
      const closed = new Promise<string>((resolve) => {
        let answer = '';
        socket.on('data', (d) => (answer += d.toString()));
        socket.on('close', () => resolve(answer));
      });
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\n`);
      // One header byte at a time, never finishing the headers.
      const trickle = setInterval(() => socket.writable && socket.write('X'), 100);
      const served = await fetch(url, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: initialize });
      expect(served.status).toBe(200);
      await served.text();
      const answer = await closed;
      clearInterval(trickle);
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    } finally {
      await listener.close();
      mcp.dispose();
      await harness.dispose();
    }
  });
});
