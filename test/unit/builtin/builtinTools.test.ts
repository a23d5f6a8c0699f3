import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alwaysAsks } from '../../../src/core/permissions';
import { createBuiltinTools } from '../../../src/core/tools/builtin';
import type { BuiltinTool, ToolCallResult } from '../../../src/core/tools/types';
import { processTag, waitForNoProcesses } from '../../support/leaks';
import { tempDir } from '../../support/servers';

let work: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
let tools: Map<string, BuiltinTool>;
const tag = processTag();

beforeEach(() => {
  work = tempDir('builtin-ws-');
  outside = tempDir('builtin-outside-');
  fs.writeFileSync(path.join(outside.dir, 'secret.txt'), 'top secret\n');
  fs.mkdirSync(path.join(work.dir, 'src', 'deep'), { recursive: true });
  fs.writeFileSync(path.join(work.dir, 'README.md'), '# Title\nline two\nline three\n');
  fs.writeFileSync(path.join(work.dir, 'src', 'a.ts'), 'export const a = 1; // TODO one\n');
  fs.writeFileSync(path.join(work.dir, 'src', 'deep', 'b.ts'), 'const b = 2;\n// TODO two\n// todo three\n');
  tools = new Map(
    createBuiltinTools({ roots: [work.dir], runCommand: { env: { ...process.env, ...tag.env } } }).map((t) => [t.name, t]),
  );
});

afterEach(() => {
  work.cleanup();
  outside.cleanup();
});

async function call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult> {
  return tools.get(name)!.invoke(args, { signal });
}

describe('annotations', () => {
  it('marks exactly the reading and searching tools read-only', () => {
    const readOnly = [...tools.values()].filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly).toEqual(['read_file', 'list_directory', 'glob_search', 'grep_search']);
    for (const name of ['write_file', 'edit_file', 'run_command']) {
      expect(tools.get(name)!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(tools.get('run_command')!.annotations?.openWorldHint).toBe(true);
  });

  it('makes the chat permission gate always ask for the tools that change things', () => {
    const asks = [...tools.values()]
      .filter((t) => alwaysAsks({ name: t.name, originalName: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, pin: '' }))
      .map((t) => t.name);
    expect(asks).toEqual(['write_file', 'edit_file', 'run_command']);
  });
});

describe('read_file', () => {
  it('reads a whole file and a range of lines', async () => {
    expect((await call('read_file', { path: 'README.md' })).text).toBe('# Title\nline two\nline three');
    const range = await call('read_file', { path: 'README.md', start_line: 2, end_line: 3 });
    expect(range.text).toBe('line two\nline three');
    expect(range.structuredContent).toMatchObject({ startLine: 2, endLine: 3, truncated: false });
  });

  it('caps a 10 MB file and says where it stopped', async () => {
    const line = 'x'.repeat(99) + '\n';
    fs.writeFileSync(path.join(work.dir, 'big.txt'), line.repeat(100_000));
    const result = await call('read_file', { path: 'big.txt' });
    expect(result.isError).toBe(false);
    expect(result.text.length).toBeLessThan(300 * 1024);
    expect(result.text).toMatch(/output capped: showed lines 1-\d+ of big\.txt \(9\.5 MB\); pass start_line=\d+/);
    const later = await call('read_file', { path: 'big.txt', start_line: 99_999, end_line: 100_000 });
    expect(later.text).toBe(line.trim() + '\n' + line.trim());
  });

  it('summarizes a binary file instead of dumping it', async () => {
    fs.writeFileSync(path.join(work.dir, 'img.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]));
    const result = await call('read_file', { path: 'img.png' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe('img.png is a binary file (PNG image, 15 B); its content is not shown.');
  });

  it('refuses ".." out of the workspace, naming the path', async () => {
    const rel = path.relative(work.dir, path.join(outside.dir, 'secret.txt'));
    const result = await call('read_file', { path: rel });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`"${rel}" climbs out of the workspace`);
    expect(result.text).not.toContain('top secret');
  });

  it('refuses an absolute path outside the workspace', async () => {
    const abs = path.join(outside.dir, 'secret.txt');
    const result = await call('read_file', { path: abs });
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`"${abs}" is outside the workspace`);
  });

  it('refuses a symlink that resolves outside, file or folder', async () => {
    fs.symlinkSync(path.join(outside.dir, 'secret.txt'), path.join(work.dir, 'link.txt'));
    fs.symlinkSync(outside.dir, path.join(work.dir, 'linkdir'));
    for (const p of ['link.txt', 'linkdir/secret.txt']) {
      const result = await call('read_file', { path: p });
      expect(result.isError).toBe(true);
      expect(result.text).toContain(`"${p}" resolves through a symlink to`);
      expect(result.text).not.toContain('top secret');
    }
  });

  it('reads through a symlink that stays inside, and reports a missing file', async () => {
    fs.symlinkSync(path.join(work.dir, 'README.md'), path.join(work.dir, 'alias.md'));
    expect((await call('read_file', { path: 'alias.md', end_line: 1 })).text).toBe('# Title');
    const missing = await call('read_file', { path: 'nope.txt' });
    expect(missing).toMatchObject({ isError: true, text: 'read_file: "nope.txt" does not exist' });
  });
});

describe('list_directory, glob_search, grep_search', () => {
  it('lists folders first, then files with sizes', async () => {
    const result = await call('list_directory', {});
    expect(result.text.split('\n')).toEqual(['(workspace root): 2 entries', 'src/', 'README.md (28 B)']);
    expect((await call('list_directory', { path: '..' })).isError).toBe(true);
  });

  it('finds files by glob', async () => {
    expect((await call('glob_search', { pattern: '**/*.ts' })).text).toBe('src/a.ts\nsrc/deep/b.ts');
    expect((await call('glob_search', { pattern: '*.ts', path: 'src' })).text).toBe('a.ts');
    expect((await call('glob_search', { pattern: '*.nothing' })).text).toBe('No files in the workspace match "*.nothing".');
  });

  it('greps with a regex, include globs, case folding and a result cap', async () => {
    expect((await call('grep_search', { pattern: 'TODO' })).text).toBe('src/a.ts:1: export const a = 1; // TODO one\nsrc/deep/b.ts:2: // TODO two');
    const folded = await call('grep_search', { pattern: 'todo\\s+t', case_sensitive: false, include: '*.ts' });
    expect(folded.text).toBe('src/deep/b.ts:2: // TODO two\nsrc/deep/b.ts:3: // todo three');
    expect((await call('grep_search', { pattern: 'TODO', include: ['*.md'] })).text).toMatch(/^No matches/);
    const capped = await call('grep_search', { pattern: 'o', max_results: 2 });
    expect(capped.text.split('\n').slice(0, 2)).toHaveLength(2);
    expect(capped.text).toContain('stopped at 2 matching lines');
    const bad = await call('grep_search', { pattern: '(' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('argument "pattern" is not a valid regular expression');
  });
});

describe('write_file and edit_file', () => {
  it('creates a file with its folders, and refuses to write outside or through a symlink', async () => {
    const created = await call('write_file', { path: 'new/dir/file.txt', content: 'hello\n' });
    expect(created.text).toBe('Created new/dir/file.txt (6 B).');
    expect(fs.readFileSync(path.join(work.dir, 'new/dir/file.txt'), 'utf8')).toBe('hello\n');
    fs.symlinkSync(outside.dir, path.join(work.dir, 'out'));
    fs.symlinkSync(path.join(outside.dir, 'planted.txt'), path.join(work.dir, 'dangling.txt'));
    for (const p of ['../escape.txt', path.join(outside.dir, 'x.txt'), 'out/x.txt', 'dangling.txt']) {
      const result = await call('write_file', { path: p, content: 'pwned' });
      expect(result.isError, p).toBe(true);
      expect(result.text).toContain(`"${p}"`);
    }
    expect(fs.readdirSync(outside.dir)).toEqual(['secret.txt']);
  });

  it('replaces a unique string and returns a unified diff', async () => {
    const result = await call('edit_file', { path: 'README.md', old_string: 'line two', new_string: 'line 2' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      'Edited README.md: 1 replacement.\n--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n # Title\n-line two\n+line 2\n line three\n',
    );
    expect(fs.readFileSync(path.join(work.dir, 'README.md'), 'utf8')).toBe('# Title\nline 2\nline three\n');
  });

  it('says clearly when the string is missing or not unique, and changes nothing', async () => {
    const missing = await call('edit_file', { path: 'README.md', old_string: 'absent', new_string: 'x' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain('old_string was not found in README.md');
    const twice = await call('edit_file', { path: 'README.md', old_string: 'line', new_string: 'row' });
    expect(twice.isError).toBe(true);
    expect(twice.text).toContain('old_string occurs 2 times in README.md');
    expect(fs.readFileSync(path.join(work.dir, 'README.md'), 'utf8')).toBe('# Title\nline two\nline three\n');
    const all = await call('edit_file', { path: 'README.md', old_string: 'line', new_string: 'row', replace_all: true });
    expect(all.text).toContain('2 replacements');
  });
});

describe('run_command', () => {
  it('runs in a workspace folder and reports the exit code', async () => {
    const ok = await call('run_command', { command: 'pwd && echo out && echo err >&2', cwd: 'src' });
    expect(ok.isError).toBe(false);
    expect(ok.text).toBe(`exit code 0 (in src)\n${path.join(work.dir, 'src')}\nout\nerr`);
    const failed = await call('run_command', { command: 'exit 3' });
    expect(failed).toMatchObject({ isError: true, text: 'exit code 3\n(no output)' });
    const outsideCwd = await call('run_command', { command: 'ls', cwd: outside.dir });
    expect(outsideCwd.isError).toBe(true);
    expect(outsideCwd.text).toContain('is outside the workspace');
  });

  it('caps long output, keeping the start and the end', async () => {
    const result = await call('run_command', { command: 'echo FIRST; seq 1 200000; echo LAST' });
    expect(result.text.length).toBeLessThan(70 * 1024);
    expect(result.text).toMatch(/^exit code 0\nFIRST\n/);
    expect(result.text).toMatch(/bytes of output omitted/);
    expect(result.text).toMatch(/LAST$/);
  });

  it('kills the whole process tree on timeout', async () => {
    const result = await call('run_command', { command: 'sleep 30 & sh -c "sleep 31 & sleep 32" & sleep 33', timeout_ms: 300 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('timed out after 300 ms');
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('kills the whole process tree when the call is cancelled', async () => {
    const controller = new AbortController();
    const running = call('run_command', { command: 'sleep 30 & sleep 31', timeout_ms: 60_000 }, controller.signal);
    // Cancel once the tree exists.
    while (tag.alive().length < 3) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const result = await running;
    expect(result.text).toContain('Command cancelled');
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it.each([
    // The daemon writes its pid once it has its own session; the command waits for that.
    ['returns', `setsid sh -c 'echo $$ > daemon.pid; exec sleep 40' & while [ ! -s daemon.pid ]; do sleep 0.05; done; rm daemon.pid; echo started`, 60_000],
    ['times out', `setsid sh -c 'echo $$ > daemon2.pid; exec sleep 41' & while [ ! -s daemon2.pid ]; do sleep 0.05; done; rm daemon2.pid; sleep 30`, 5000],
  ])('ends a daemon that left its process group when the command %s, and says so', async (_when, command, timeout_ms) => {
    const result = await call('run_command', { command, timeout_ms });
    expect(result.text).toContain('[run_command: ended 1 background process that had left its process group]');
    expect(result.text).not.toContain('could not end');
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('ends a daemon that left its process group when the call is cancelled', async () => {
    const controller = new AbortController();
    const running = call('run_command', { command: 'setsid sleep 42 & sleep 31', timeout_ms: 60_000 }, controller.signal);
    while (!tag.alive().some((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('sleep\u000042'))) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const result = await running;
    expect(result.text).toContain('Command cancelled');
    expect(result.text).toContain('ended 1 background process that had left its process group');
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });

  it('leaves nothing behind when a command backgrounds a process and exits', async () => {
    const result = await call('run_command', { command: 'sleep 30 & echo started' });
    expect(result.text).toBe('exit code 0\nstarted');
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
});
