import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, repoPath, tempDir, writeJson } from '../support/servers';

// The published library entry: `require('mcp-harness/core')` resolves through package.json
// "exports" to the CommonJS bundle, with type declarations beside it.
describe("require('mcp-harness/core')", () => {
  const tag = processTag();
  const tmp = tempDir();
  afterAll(async () => {
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('creates a harness, lists and calls tools, and disposes', () => {
    writeJson(tmp.dir, '.mcp.json', { mcpServers: { fx: fixtureEntry([], { env: tag.env }) } });
    const script = `
      const { createHarness } = require('mcp-harness/core');
      (async () => {
        const h = await createHarness({ workspaceFolder: ${JSON.stringify(tmp.dir)} });
        const servers = h.servers().map(({ name, state, transport, tools, error }) => ({ name, state, transport, tools: tools.length, error }));
        const tool = h.tools().find((t) => t.name === 'mcp__fx__add');
        const result = await h.callTool('mcp__fx__add', { a: 1, b: 2 });
        await h.dispose();
        console.log(JSON.stringify({ servers, tool: { server: tool.server, originalName: tool.originalName }, result: { isError: result.isError, text: result.text } }));
      })();`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoPath(), encoding: 'utf8' }));
    expect(out).toEqual({
      servers: [{ name: 'fx', state: 'running', transport: 'stdio', tools: 14 }],
      tool: { server: 'fx', originalName: 'add' },
      result: { isError: false, text: '3' },
    });
  });

  it('ships type declarations where package.json points', () => {
    const pkg = JSON.parse(fs.readFileSync(repoPath('package.json'), 'utf8'));
    const types = repoPath(pkg.exports['./core'].types);
    expect(fs.readFileSync(types, 'utf8')).toContain('createHarness');
  });
});
