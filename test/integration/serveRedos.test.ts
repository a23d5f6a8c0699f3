import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir } from '../support/servers';
import { harnessFor, requireBuiltCli, startHttpServe } from './serveSupport';

const TOKEN = 'serve-redos-token-0123456789';
const tag = processTag();
const tmp = tempDir('serve-redos-');

let serve: Awaited<ReturnType<typeof startHttpServe>>;

beforeAll(async () => {
  requireBuiltCli();
  // 34 letters and a character `$` cannot match: a backtracking engine tries 2^34 ways per start.
  fs.writeFileSync(path.join(tmp.dir, 'victim.txt'), `${'a'.repeat(34)}!\n`);
  fs.writeFileSync(path.join(tmp.dir, 'a'.repeat(40)), 'x\n');
  serve = await startHttpServe(['--http', String(await freePort()), '--workspace', tmp.dir, '--audit-log', path.join(tmp.dir, 'audit.jsonl')], {
    ...tag.env,
    MCP_HARNESS_TOKEN: TOKEN,
  });
});

afterAll(async () => {
  await serve?.stop();
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

describe('search patterns under serve', () => {
  it('answers a catastrophic regular expression and glob, and another client meanwhile', async () => {
    const entry = { url: serve.url, headers: { Authorization: `Bearer ${TOKEN}` } };
    const first = await harnessFor(entry);
    try {
      const grep = first.callTool('mcp__h__grep_search', { pattern: '(a+)+$' });
      const glob = first.callTool('mcp__h__glob_search', { pattern: '*a*a*a*a*a*a*a*a*a*a*a*b' });
      // A second client connects (initialize, tools/list) while both searches are in flight.
      const second = await harnessFor(entry);
      try {
        expect(second.tools().map((t) => t.originalName)).toContain('grep_search');
      } finally {
        await second.dispose();
      }
      const [grepResult, globResult] = await Promise.all([grep, glob]);
      expect(grepResult).toMatchObject({ isError: false, text: 'No matches for /(a+)+$/ in the workspace.' });
      expect(globResult).toMatchObject({ isError: false, text: 'No files in the workspace match "*a*a*a*a*a*a*a*a*a*a*a*b".' });
    } finally {
      await first.dispose();
    }
  });

  it('refuses backreferences and lookaround by name', async () => {
    const harness = await harnessFor({ url: serve.url, headers: { Authorization: `Bearer ${TOKEN}` } });
    try {
      const back = await harness.callTool('mcp__h__grep_search', { pattern: '(a)\\1' });
      expect(back.isError).toBe(true);
      expect(back.text).toContain('backreference');
      expect(back.text).toContain('/(a)\\1/');
      const look = await harness.callTool('mcp__h__grep_search', { pattern: 'a(?!b)' });
      expect(look.text).toContain('negative lookahead (?!...)');
      const extglob = await harness.callTool('mcp__h__glob_search', { pattern: '!(x)' });
      expect(extglob.text).toContain('negated extglob');
      // Still a working search.
      expect((await harness.callTool('mcp__h__grep_search', { pattern: 'a{34}!' })).text).toBe(`victim.txt:1: ${'a'.repeat(34)}!`);
    } finally {
      await harness.dispose();
    }
  });
});
