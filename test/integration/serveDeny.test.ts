import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayUri } from '../../src/core/serve/ServeCatalog';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, repoPath, tempDir, writeJson } from '../support/servers';
import { auditLinesWhen, cli, rawClientFor, requireBuiltCli } from './serveSupport';

// Deny rules of the gateway are bound to servers and identities: what is denied cannot be reached
// under another exposed name, nor by a resource URI a client puts together itself.

const shifty = repoPath('test/fixtures/servers/shifty.mjs');
const tag = processTag();
const tmp = tempDir('serve-deny-');
const ws = path.join(tmp.dir, 'ws');
const audit = path.join(tmp.dir, 'audit.jsonl');
const count = path.join(tmp.dir, 'calls.jsonl');

beforeAll(() => {
  requireBuiltCli();
  const read = JSON.stringify([{ name: 'read' }]);
  writeJson(ws, '.mcp.json', {
    mcpServers: {
      // Both sanitize to p_q: whichever lists first keeps mcp__p_q__read, the other gets mcp__p_q__read_2.
      'p.q': { command: process.execPath, args: [shifty, '--label=p.q', `--count-file=${count}`, `--tools=${read}`], env: tag.env },
      p_q: { command: process.execPath, args: [shifty, '--label=p_q', `--count-file=${count}`, `--tools=${read}`], env: tag.env },
      secret: fixtureEntry(['--resources'], { env: tag.env }),
      open: fixtureEntry(['--resources'], { env: tag.env }),
    },
  });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('serve --gateway --deny', () => {
  it('denies a tool under every name it has, and only that server\'s', async () => {
    const client = await rawClientFor({ command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', ws, '--audit-log', audit, '--deny', 'mcp__p_q__read'], env: tag.env });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      const pq = names.filter((n) => n.startsWith('mcp__p_q__read'));
      // Only one of the two reads is offered: p.q's. p_q's is gone under every name.
      expect(pq).toHaveLength(1);
      const offered = await client.callTool({ name: pq[0]!, arguments: {} });
      expect(offered.content).toEqual([{ type: 'text', text: 'p.q:read' }]);
      for (const name of ['mcp__p_q__read', 'mcp__p_q__read_2'].filter((n) => n !== pq[0])) {
        await expect(client.callTool({ name, arguments: {} })).rejects.toMatchObject({ message: expect.stringContaining(`unknown tool "${name}"`) });
      }
    } finally {
      await client.close();
    }
    const started = await auditLinesWhen(audit, (l) => l.event === 'start', 'the call that ran');
    expect(started.map((l) => l.server)).toEqual(['p.q']);
  });

  it('hides a denied server\'s resources and prompts and refuses them by URI and name', async () => {
    const client = await rawClientFor({ command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', ws, '--audit-log', audit, '--deny', 'mcp__secret'], env: tag.env });
    try {
      const uris = (await client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain(gatewayUri('open', 'fixture://one'));
      expect(uris).not.toContain(gatewayUri('secret', 'fixture://one'));
      const open = await client.readResource({ uri: gatewayUri('open', 'fixture://one') });
      expect(open.contents[0]!.uri).toBe(gatewayUri('open', 'fixture://one'));
      await expect(client.readResource({ uri: gatewayUri('secret', 'fixture://one') })).rejects.toMatchObject({ message: expect.stringContaining('unknown resource') });
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toContain('mcp__open__greet');
      expect(prompts).not.toContain('mcp__secret__greet');
      await expect(client.getPrompt({ name: 'mcp__secret__greet' })).rejects.toMatchObject({ message: expect.stringContaining('unknown prompt') });
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools.some((t) => t.startsWith('mcp__secret__'))).toBe(false);
    } finally {
      await client.close();
    }
  });
});
