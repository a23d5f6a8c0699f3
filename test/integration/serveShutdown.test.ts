import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { referenceServers, tempDir, writeJson } from '../support/servers';
import { cli, requireBuiltCli } from './serveSupport';

const tag = processTag();
const tmp = tempDir('serve-shutdown-');
const ws = path.join(tmp.dir, 'ws');

beforeAll(() => {
  requireBuiltCli();
  // server-everything does not end on stdin EOF for its first second or so: it has to be stopped.
  writeJson(ws, '.harness/mcp.json', { servers: { everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env } } });
});

afterAll(() => tmp.cleanup());

it('stops the servers behind the gateway before a leaving client gives up on it (SDK 2.x stdio client, SIGKILL after 4 s)', async () => {
  const client = new Client({ name: 'leaver', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const args = [cli, 'serve', '--gateway', '--workspace', ws, '--audit-log', path.join(tmp.dir, 'audit.jsonl')];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, ...tag.env } as Record<string, string>, stderr: 'ignore' }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('mcp__everything__echo');
  // Right away, while server-everything would still ignore its stdin closing.
  await client.close();
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
});
