import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, tempDir, writeJson } from '../support/servers';

// The CLI without a terminal: a server's form is declined at once, and the CLI says why.
const cli = repoPath('dist/cli.js');
const tag = processTag();
const tmp = tempDir('cli-asks-');
const ws = path.join(tmp.dir, 'ws');

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('mcp-harness call, not interactive', () => {
  it('declines elicitation, saying so, and does not offer sampling', async () => {
    writeJson(ws, '.mcp.json', { mcpServers: { asker: { command: process.execPath, args: [repoPath('test/fixtures/servers/asker.mjs')], env: tag.env } } });
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'call', 'mcp__asker__profile', '{}', '--workspace', ws], { env: { ...process.env, ...tag.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(code).toBe(0);
    expect(stdout).toContain('"action":"decline"');
    expect(stderr).toContain('asker: declined an elicitation request: not an interactive terminal');
  });

  it('ends a call that needs a page visited first, saying why', async () => {
    writeJson(ws, '.mcp.json', { mcpServers: { library: { command: process.execPath, args: [repoPath('test/fixtures/servers/library.mjs')], env: tag.env } } });
    const { stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'call', 'mcp__library__needs_page', '{}', '--workspace', ws], { env: { ...process.env, ...tag.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(stdout + stderr).toContain('library: the server needs the user to open a page on pay.example.com first ("Confirm the purchase"); nobody could be asked (not an interactive terminal), so the tool did not run');
  });
});
