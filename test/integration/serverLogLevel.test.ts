import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type McpHarness, type McpLogEntry } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, tempDir, writeJson } from '../support/servers';

// A 2025-era server that offers logging is told the level its log channel is at, at start and
// whenever it changes; its notifications arrive at their own levels.
describe('server log level', () => {
  const tag = processTag();
  const tmp = tempDir();
  const entries: McpLogEntry[] = [];
  let level: 'debug' | 'warning' = 'warning';
  let harness: McpHarness;

  beforeAll(async () => {
    writeJson(tmp.dir, 'ws/.vscode/mcp.json', { servers: { asker: { command: process.execPath, args: [repoPath('test/fixtures/servers/asker.mjs')], env: tag.env } } });
    harness = await createHarness({ workspaceFolder: `${tmp.dir}/ws`, logLevel: () => level });
    harness.onDidLog((e) => entries.push(e));
  });

  afterAll(async () => {
    await harness?.dispose();
    tmp.cleanup();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  const serverLines = () => entries.filter((e) => e.source === 'server').map((e) => `${e.level} ${e.message}`);

  it('sends logging/setLevel at start, so only warnings and errors come', async () => {
    expect(harness.snapshot('asker')?.protocolVersion).toBe('2025-11-25');
    await vi.waitFor(async () => {
      entries.length = 0;
      await harness.callTool('mcp__asker__log_all', {});
      expect(serverLines()).toEqual(['warn [asker] a warning message', 'error [asker] a error message']);
    });
  });

  it('sends the new level when the channel changes', async () => {
    level = 'debug';
    harness.applyLogLevel('asker');
    await vi.waitFor(async () => {
      entries.length = 0;
      await harness.callTool('mcp__asker__log_all', {});
      expect(serverLines()).toEqual(['debug [asker] a debug message', 'info [asker] a info message', 'warn [asker] a warning message', 'error [asker] a error message']);
    });
  });
});
