import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { tempDir, writeJson } from '../support/servers';
import { cli, harnessFor, requireBuiltCli } from './serveSupport';

const READ_ONLY = ['read_file', 'list_directory', 'glob_search', 'grep_search'];
const tag = processTag();
const tmp = tempDir('serve-sources-');
const ws = path.join(tmp.dir, 'ws');
const xdg = path.join(tmp.dir, 'xdg');
const workspaceFile = path.join(ws, '.harness', 'mcp.json');
const userFile = path.join(xdg, 'mcp-harness', 'config.json');

beforeAll(() => {
  requireBuiltCli();
  fs.mkdirSync(ws, { recursive: true });
});

afterEach(() => {
  fs.rmSync(path.join(ws, '.harness'), { recursive: true, force: true });
  fs.rmSync(xdg, { recursive: true, force: true });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

/** `serve` over stdio with `args`; resolves the tools it offers and its stderr. */
async function serve(args: string[] = []): Promise<{ tools: string[]; stderr: string }> {
  const harness = await harnessFor({
    command: process.execPath,
    args: [cli, 'serve', '--workspace', ws, '--audit-log', path.join(tmp.dir, 'audit.jsonl'), ...args],
    env: { ...tag.env, XDG_CONFIG_HOME: xdg },
  });
  try {
    return { tools: harness.tools().map((t) => t.originalName), stderr: harness.servers()[0].stderrTail.join('\n') };
  } finally {
    await harness.dispose();
  }
}

describe('what widens serve', () => {
  it('ignores the expose of a workspace file, saying which file and entries', async () => {
    writeJson(ws, '.harness/mcp.json', { servers: {}, serve: { expose: ['*', 'run_command'] } });
    const { tools, stderr } = await serve();
    expect(tools).toEqual(READ_ONLY);
    expect(stderr).toContain(`${workspaceFile}: serve.expose ignored (*, run_command): a workspace file may only narrow what serve offers`);
    expect(stderr).toContain(`exposed: ${READ_ONLY.join(', ')} (default: the read-only built-ins)`);
  });

  it("takes expose from the user's config, a --config file and the flags, naming each source", async () => {
    writeJson(xdg, 'mcp-harness/config.json', { serve: { expose: ['write_file'] } });
    const explicit = writeJson(tmp.dir, 'mine.json', { servers: {}, serve: { expose: ['edit_file'] } });
    const { tools, stderr } = await serve(['--config', explicit, '--expose', 'run_command']);
    expect(tools).toEqual([...READ_ONLY, 'write_file', 'edit_file', 'run_command']);
    expect(stderr).toContain(`write_file (user config ${userFile}: write_file)`);
    expect(stderr).toContain(`edit_file (--config ${explicit}: edit_file)`);
    expect(stderr).toContain('run_command (--expose: run_command)');
  });

  it('lets a workspace file narrow: its deny applies to the defaults and to what the user exposed', async () => {
    writeJson(xdg, 'mcp-harness/config.json', { serve: { expose: ['write_file', 'edit_file'] } });
    writeJson(ws, '.harness/mcp.json', { servers: {}, serve: { deny: ['grep_search', 'edit_*'] } });
    const { tools, stderr } = await serve();
    expect(tools).toEqual(['read_file', 'list_directory', 'glob_search', 'write_file']);
    expect(stderr).toContain(`denied: grep_search (workspace ${workspaceFile}); edit_* (workspace ${workspaceFile})`);
  });
});
