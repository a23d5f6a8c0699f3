import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, referenceServers, tempDir, writeJson } from '../support/servers';

describe('smoke', () => {
  const tag = processTag();
  const tmp = tempDir();
  let harness: McpHarness;

  beforeAll(async () => {
    writeJson(tmp.dir, '.mcp.json', {
      mcpServers: {
        fixture: fixtureEntry([], { env: tag.env }),
        everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
      },
    });
    harness = await createHarness({ workspaceFolder: tmp.dir });
  });

  afterAll(async () => {
    await harness?.dispose();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('connects and calls', async () => {
    const servers = harness.servers();
    console.log(JSON.stringify(servers.map((s) => ({ n: s.name, st: s.state, e: s.error, t: s.tools.length, p: s.protocolVersion }))));
    expect(servers.every((s) => s.state === 'running')).toBe(true);
    const r = await harness.callTool('mcp__fixture__echo', { text: 'hi' });
    expect(r).toMatchObject({ isError: false, text: 'hi' });
    console.log(harness.tools().map((t) => t.name).join(' '));
  });
});
