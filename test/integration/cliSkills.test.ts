import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, tempDir, writeJson } from '../support/servers';

// `skills` and `skill` against our SDK-built skills server (one good skill, one tampered).
const cli = repoPath('dist/cli.js');
const tag = processTag();
const tmp = tempDir('cli-skills-');
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
  writeJson(ws, '.mcp.json', { mcpServers: { docs: { command: process.execPath, args: [repoPath('test/fixtures/servers/skills.mjs')], env: tag.env } } });
});

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('mcp-harness skills, skill', () => {
  it('lists every skill with its server', async () => {
    const listed = await run(['skills']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^docs\s+pdf-forms\s+2\s+Fill PDF forms$/m);
    expect(listed.stdout).toMatch(/^docs\s+tampered\s+2\s+/m);
  });

  it('prints a skill whose files all match, with their digests', async () => {
    const shown = await run(['skill', 'docs', 'pdf-forms']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('2 file(s), each matching its size and SHA-256 digest');
    expect(shown.stdout).toMatch(/skill:\/\/pdf-forms\/references\/FORMS\.md {2}\d+ bytes {2}sha256:[0-9a-f]{64}/);
    expect(shown.stdout).toContain('Read references/FORMS.md, then fill each field in order.');
  });

  it('refuses a tampered skill, naming the file and why, with exit code 1', async () => {
    const shown = await run(['skill', 'docs', 'tampered']);
    expect(shown.code).toBe(1);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toContain('skill "tampered" of docs was refused: skill://tampered/references/NOTES.md: SHA-256 digest does not match the manifest');
  });

  it('exits 2 for a skill the server does not offer', async () => {
    const shown = await run(['skill', 'docs', 'nope']);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain('docs offers no skill named "nope"');
  });
});
