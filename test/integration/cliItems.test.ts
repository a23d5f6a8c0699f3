import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, referenceServers, repoPath, tempDir, writeJson } from '../support/servers';

// Resources, prompts and completions from the CLI and the library, against the reference server
// that has all three (server-everything) and our fixture.
const cli = repoPath('dist/cli.js');
const tag = processTag();
const tmp = tempDir('cli-items-');
const ws = path.join(tmp.dir, 'ws');

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args, '--workspace', ws], { env: { ...process.env, ...tag.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  writeJson(ws, '.mcp.json', {
    mcpServers: {
      everything: { command: process.execPath, args: [referenceServers.everything], env: tag.env },
      'fix.ture': fixtureEntry(['--resources'], { env: tag.env }),
    },
  });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('mcp-harness resources, read, prompts, prompt', () => {
  it('lists resources and templates, and reads one by its URI', async () => {
    const listed = await run(['resources', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const { resources } = JSON.parse(listed.stdout) as { resources: Array<{ server: string; uri?: string; uriTemplate?: string }> };
    expect(resources.some((r) => r.server === 'fix.ture' && r.uri === 'fixture://one')).toBe(true);
    expect(resources.some((r) => r.server === 'everything' && r.uriTemplate)).toBe(true);
    const read = await run(['read', 'fixture://one']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('the text of one\n');
  });

  it('says which flag to use when no server lists a URI, and exits 2', async () => {
    const read = await run(['read', 'nowhere://x']);
    expect(read.code).toBe(2);
    expect(read.stderr).toContain('--server NAME');
  });

  it('lists prompts as SERVER.PROMPT and gets one with its arguments, a server name with a dot included', async () => {
    const listed = await run(['prompts']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/fix\.ture\.greet/);
    const got = await run(['prompt', 'fix.ture.greet']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toBe('user: Say hello (greet)\n');
    const everything = JSON.parse((await run(['prompts', '--json'])).stdout) as { prompts: Array<{ server: string; name: string; arguments: Array<{ name: string; required?: boolean }> }> };
    const withArgs = everything.prompts.find((p) => p.server === 'everything' && p.arguments.some((a) => a.required))!;
    const missing = await run(['prompt', `everything.${withArgs.name}`, '{}']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing required argument/);
  });
});

describe('harness.complete', () => {
  it('suggests values for a prompt argument from the server', async () => {
    const harness = await createHarness({ workspaceFolder: ws });
    try {
      const ref = { type: 'ref/prompt', name: 'completable-prompt' } as const;
      expect((await harness.complete('everything', ref, { name: 'department', value: 'S' })).values).toEqual(['Sales', 'Support']);
      // The arguments already filled in narrow the next one.
      expect((await harness.complete('everything', ref, { name: 'name', value: '' }, { department: 'Engineering' })).values).toEqual(['Alice', 'Bob', 'Charlie']);
      // A server that does not offer completions answers none, without a request.
      expect(await harness.complete('fix.ture', { type: 'ref/prompt', name: 'greet' }, { name: 'x', value: '' })).toEqual({ values: [] });
    } finally {
      await harness.dispose();
    }
  });
});
