import { describe, expect, it } from 'vitest';
import { createGlobSearchTool } from '../../../src/core/tools/builtin/globSearch';
import { createGrepSearchTool } from '../../../src/core/tools/builtin/grepSearch';
import { createListDirectoryTool } from '../../../src/core/tools/builtin/listDirectory';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace';

const MiB = 1024 * 1024;

function grep(ws: TempWorkspace, args: Record<string, unknown>, signal?: AbortSignal) {
  return createGrepSearchTool(ws.roots).invoke(args, { signal });
}

const sources = {
  'README.md': 'TODO: docs\n',
  'src/a.ts': 'const a = 1; // TODO one\n',
  'src/deep/b.ts': 'const b = 2;\n// TODO two\n// TODO three\n',
  'src/deep/c.ts': 'nothing here\n',
  'src/deep/d.ts': 'TODO four\n',
};

describe('grep_search: where it looks and how it names what it finds', () => {
  it('names matches in a subfolder by their workspace path and counts the files with hits', async () => {
    const result = await grep(tempWorkspace(sources), { pattern: 'TODO', path: 'src/deep' });
    expect(result.text).toBe('src/deep/b.ts:2: // TODO two\nsrc/deep/b.ts:3: // TODO three\nsrc/deep/d.ts:1: TODO four');
    expect(result.structuredContent).toEqual({ matches: 3, files: 2, truncated: false });
  });

  it('says where it found nothing', async () => {
    const ws = tempWorkspace(sources);
    expect(await grep(ws, { pattern: 'FIXME' })).toMatchObject({ isError: false, text: 'No matches for /FIXME/ in the workspace.', structuredContent: { matches: 0 } });
    expect((await grep(ws, { pattern: 'FIXME', path: 'src/deep' })).text).toBe('No matches for /FIXME/ in src/deep.');
    expect((await grep(ws, { pattern: 'FIXME', path: 'src/a.ts' })).text).toBe('No matches for /FIXME/ in src/a.ts.');
  });

  it('keeps files that match any of several include globs, by name or by path below the search folder', async () => {
    const ws = tempWorkspace(sources);
    expect((await grep(ws, { pattern: 'TODO', include: ['*.md', 'deep/d.ts'], path: 'src' })).text).toBe('src/deep/d.ts:1: TODO four');
    expect((await grep(ws, { pattern: 'TODO', include: ['*.md', 'src/a.ts'] })).text).toBe('README.md:1: TODO: docs\nsrc/a.ts:1: const a = 1; // TODO one');
    expect((await grep(ws, { pattern: 'TODO', include: '!*.ts' })).text).toBe('README.md:1: TODO: docs');
  });

  it('searches a file it is pointed at even when the include globs would leave it out', async () => {
    const result = await grep(tempWorkspace(sources), { pattern: 'TODO', path: 'src/deep/b.ts', include: '*.md' });
    expect(result.text).toBe('src/deep/b.ts:2: // TODO two\nsrc/deep/b.ts:3: // TODO three');
    expect(result.structuredContent).toEqual({ matches: 2, files: 1, truncated: false });
  });

  it('matches case exactly unless told otherwise', async () => {
    const ws = tempWorkspace({ 'n.txt': 'Todo\nTODO\n' });
    expect((await grep(ws, { pattern: 'TODO' })).text).toBe('n.txt:2: TODO');
    expect((await grep(ws, { pattern: 'TODO', case_sensitive: true })).text).toBe('n.txt:2: TODO');
    expect((await grep(ws, { pattern: 'TODO', case_sensitive: false })).text).toBe('n.txt:1: Todo\nn.txt:2: TODO');
  });

  it('finds nothing once the call is cancelled', async () => {
    const ws = tempWorkspace(sources);
    const controller = new AbortController();
    controller.abort();
    expect((await grep(ws, { pattern: 'TODO' }, controller.signal)).text).toBe('No matches for /TODO/ in the workspace.');
    expect((await grep(ws, { pattern: 'TODO', path: 'src/a.ts' }, controller.signal)).text).toBe('No matches for /TODO/ in src/a.ts.');
  });
});

describe('grep_search: caps', () => {
  it('stops at the cap across files and says so', async () => {
    const result = await grep(tempWorkspace(sources), { pattern: 'TODO', path: 'src', max_results: 3 });
    expect(result.text).toBe(
      'src/a.ts:1: const a = 1; // TODO one\nsrc/deep/b.ts:2: // TODO two\nsrc/deep/b.ts:3: // TODO three\n…[stopped at 3 matching lines; narrow the pattern or the path]',
    );
    expect(result.structuredContent).toEqual({ matches: 3, files: 2, truncated: true });
  });

  it('adds no note when the matches fill the cap exactly', async () => {
    const result = await grep(tempWorkspace(sources), { pattern: 'TODO', path: 'src', max_results: 4 });
    expect(result.text.split('\n')).toHaveLength(4);
    expect(result.text).not.toContain('stopped');
    expect(result.structuredContent).toEqual({ matches: 4, files: 3, truncated: false });
  });

  it('returns 200 lines by default and never more than 5000', async () => {
    const ws = tempWorkspace({ 'many.txt': 'hit\n'.repeat(5001) });
    const byDefault = await grep(ws, { pattern: 'hit' });
    expect(byDefault.structuredContent).toEqual({ matches: 200, files: 1, truncated: true });
    expect(byDefault.text.split('\n').at(-2)).toBe('many.txt:200: hit');
    const most = await grep(ws, { pattern: 'hit', max_results: 9999 });
    expect(most.structuredContent).toEqual({ matches: 5000, files: 1, truncated: true });
    expect(most.text.split('\n').at(-1)).toBe('…[stopped at 5000 matching lines; narrow the pattern or the path]');
  });
});

describe('grep_search: what it reads of a file', () => {
  it('skips binary and empty files but looks past the sniffed start of a text file', async () => {
    const ws = tempWorkspace({
      'a.bin': Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]),
      'b.txt': '',
      'c.txt': `needle\n${'x'.repeat(9000)}\n\u0000\n`,
    });
    expect((await grep(ws, { pattern: 'needle|^$' })).text).toBe('c.txt:1: needle');
  });

  it('searches a file of exactly 8 MiB and skips a bigger one', async () => {
    const ws = tempWorkspace();
    // 'needle\n' and a final newline around the filler: 8 bytes.
    ws.write('at-limit.txt', `needle\n${'x'.repeat(8 * MiB - 8)}\n`);
    ws.write('over-limit.txt', `needle\n${'x'.repeat(8 * MiB - 7)}\n`);
    const result = await grep(ws, { pattern: 'needle' });
    expect(result.text).toBe('at-limit.txt:1: needle');
  });

  it('numbers lines of a CRLF file without carrying the carriage return', async () => {
    const result = await grep(tempWorkspace({ 'w.txt': 'one\r\ntwo\r\nthree' }), { pattern: 't' });
    expect(result.text).toBe('w.txt:2: two\nw.txt:3: three');
  });

  it('shows 400 characters of a long line and searches only its first 20,000', async () => {
    const ws = tempWorkspace({
      'long.txt': [`${'a'.repeat(400)}Z`, `Z${'b'.repeat(399)}`, `${'c'.repeat(19_999)}Y`, `${'d'.repeat(20_000)}Y`].join('\n'),
    });
    expect((await grep(ws, { pattern: 'Z' })).text).toBe(`long.txt:1: ${'a'.repeat(400)}…\nlong.txt:2: Z${'b'.repeat(399)}`);
    expect((await grep(ws, { pattern: 'Y' })).text).toBe(`long.txt:3: ${'c'.repeat(400)}…`);
  });
});

describe('grep_search: refusals', () => {
  it.each([
    [{ pattern: 'a', case_sensitive: 'yes' }, 'grep_search: argument "case_sensitive" must be true or false'],
    [{ pattern: 'a', include: '{a,b' }, 'grep_search: argument "include" is not a valid glob: "{a,b": "{" is never closed'],
    [{ pattern: 'a(?=b)' }, 'grep_search: argument "pattern" uses a lookahead (?=...) in /a(?=b)/'],
    [{ pattern: 'a', max_results: 0 }, 'grep_search: argument "max_results" must be an integer of at least 1'],
    [{ pattern: 'a', path: 'nope' }, 'grep_search: "nope" does not exist'],
    [{ pattern: 7 }, 'grep_search: argument "pattern" must be a string'],
  ])('refuses %j with a message naming the argument', async (args, message) => {
    expect(await grep(tempWorkspace(sources), args)).toMatchObject({ isError: true, text: expect.stringContaining(message) });
  });
});

describe('the search tools as a model sees them', () => {
  /** Any text at all: what the model reads about an argument must not be blank. */
  const words = expect.stringMatching(/\w/);
  const text = { type: 'string', description: words };
  const cap = (maximum: number) => ({ type: 'integer', minimum: 1, maximum, description: words });

  it.each([
    {
      create: createGrepSearchTool,
      name: 'grep_search',
      title: 'Search File Contents',
      required: ['pattern'],
      properties: {
        pattern: text,
        path: text,
        include: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: words },
        case_sensitive: { type: 'boolean', description: words },
        max_results: cap(5000),
      },
      says: ['RE2 syntax', 'lines longer than 20,000 characters are searched in their start', 'Binary files, .git and node_modules are skipped.'],
    },
    {
      create: createGlobSearchTool,
      name: 'glob_search',
      title: 'Find Files by Glob',
      required: ['pattern'],
      properties: { pattern: text, path: text, max_results: cap(10_000) },
      says: ['whose path matches a glob pattern', '"**" crosses folders'],
    },
    {
      create: createListDirectoryTool,
      name: 'list_directory',
      title: 'List Directory',
      required: undefined,
      properties: { path: text, max_entries: cap(5000) },
      says: ['folders first'],
    },
  ])('$name says what it takes and that it only reads', ({ create, name, title, required, properties, says }) => {
    const tool = create(tempWorkspace().roots);
    expect(tool.name).toBe(name);
    expect(tool.annotations).toEqual({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(tool.inputSchema).toEqual({ type: 'object', properties, required, additionalProperties: false });
    for (const fact of says) expect(tool.description).toContain(fact);
  });
});
