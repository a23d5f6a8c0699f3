import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir, writeJson } from '../support/servers';
import { requireBuiltCli, startHttpServe } from './serveSupport';

const TOKEN = 'serve-limits-token-0123456789';
const tag = processTag();
const tmp = tempDir('serve-limits-');
const ws = path.join(tmp.dir, 'ws');
/** XDG_CONFIG_HOME for the runs: the user config is `<it>/mcp-harness/config.json`. */
const xdg = path.join(tmp.dir, 'xdg');
const userConfig = path.join(xdg, 'mcp-harness', 'config.json');
const env = { ...tag.env, MCP_HARNESS_TOKEN: TOKEN, XDG_CONFIG_HOME: xdg };
const audit = ['--audit-log', path.join(tmp.dir, 'audit.jsonl')];

beforeAll(() => {
  requireBuiltCli();
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'notes.md'), 'alpha\n');
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const headers = (session?: string) => ({
  Authorization: `Bearer ${TOKEN}`,
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  ...(session ? { 'Mcp-Session-Id': session } : {}),
});

async function open(url: string): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers: headers(), body: initialize });
  await response.text();
  return response;
}

async function ping(url: string, session: string): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers: headers(session), body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' });
  await response.text();
  return response.status;
}

/** Resolves once `check` holds for the process output, polling it (no fixed sleep decides the outcome). */
async function whenOutput(output: () => string, check: (text: string) => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check(output())) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}:\n${output()}`);
}

describe('serve --http sessions', () => {
  it('refuses a session past --max-sessions with 503 and Retry-After, and takes one once a place is free', async () => {
    const serve = await startHttpServe(['--http', String(await freePort()), '--workspace', ws, '--max-sessions', '3', ...audit], env);
    try {
      const opened = await Promise.all([open(serve.url), open(serve.url), open(serve.url)]);
      expect(opened.map((r) => r.status)).toEqual([200, 200, 200]);
      const refused = await open(serve.url);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Existing sessions still work.
      const first = opened[0].headers.get('mcp-session-id')!;
      expect(await ping(serve.url, first)).toBe(200);
      const closed = await fetch(serve.url, { method: 'DELETE', headers: headers(first) });
      expect(closed.status).toBe(200);
      expect((await open(serve.url)).status).toBe(200);
    } finally {
      await serve.stop();
    }
  });

  it('ends a session idle past the limit of the user config: its id gets 404 and the client initializes again', async () => {
    writeJson(xdg, 'mcp-harness/config.json', { serve: { sessionIdleTimeoutMs: 300 } });
    // A workspace file cannot lift the limits.
    writeJson(ws, '.harness/mcp.json', { servers: {}, serve: { maxSessions: 100000 } });
    const serve = await startHttpServe(['--http', String(await freePort()), '--workspace', ws, ...audit], env);
    try {
      expect(serve.output()).toContain(`${path.join(ws, '.harness', 'mcp.json')}: serve.maxSessions ignored (100000)`);
      const session = (await open(serve.url)).headers.get('mcp-session-id')!;
      await whenOutput(serve.output, (t) => t.includes(`session ${session} ended: idle`), 'the idle session to end');
      expect(await ping(serve.url, session)).toBe(404);
      // A client that initializes again gets a new session.
      const again = await open(serve.url);
      expect(again.status).toBe(200);
      expect(again.headers.get('mcp-session-id')).not.toBe(session);
    } finally {
      await serve.stop();
      fs.rmSync(userConfig, { force: true });
      fs.rmSync(path.join(ws, '.harness'), { recursive: true, force: true });
    }
  });
});
