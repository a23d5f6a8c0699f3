// Per-folder scores of a Stryker JSON report (scripts/mutationScores.mjs), which `npm run
// test:mutation` prints and breaks on.
import { describe, expect, it } from 'vitest';
import { describeScores, folderOf, foldersBelow, mutationScores, narrowsScope, scoreOf } from '../../../scripts/mutationScores.mjs';

const mutants = (...statuses) => statuses.map((status, i) => ({ id: String(i), status }));

describe('folderOf', () => {
  it('names the folder of src/core a file is in, whatever the path before it', () => {
    expect(folderOf('src/core/mcp/McpSession.ts')).toBe('mcp');
    expect(folderOf('/work/x/src/core/process/sandbox/sandboxPolicy.ts')).toBe('process');
    expect(folderOf('src\\core\\chat\\ChatSession.ts')).toBe('chat');
  });

  it('groups files at the top of src/core, and files elsewhere, apart', () => {
    expect(folderOf('src/core/McpHarness.ts')).toBe('(top)');
    expect(folderOf('src/extension/core/x.ts')).toBe('(other)');
    expect(folderOf('lib/thing.ts')).toBe('(other)');
  });
});

describe('mutationScores', () => {
  const report = {
    files: {
      'src/core/mcp/a.ts': { mutants: mutants('Killed', 'Killed', 'Survived', 'Timeout') },
      'src/core/mcp/b.ts': { mutants: mutants('NoCoverage', 'Ignored', 'RuntimeError', 'CompileError') },
      'src/core/base/c.ts': { mutants: mutants('Killed', 'Ignored') },
    },
  };

  it("counts killed and timed-out mutants as detected, survivors and uncovered ones as not, as Stryker's score does", () => {
    const scores = mutationScores(report);
    expect(scores.total).toEqual({ detected: 4, undetected: 2, ignored: 2 });
    expect(scores.folders.get('mcp')).toEqual({ detected: 3, undetected: 2, ignored: 1 });
    expect(scores.folders.get('base')).toEqual({ detected: 1, undetected: 0, ignored: 1 });
    expect(scoreOf(scores.folders.get('mcp'))).toBe(60);
    expect(scoreOf(scores.total)).toBeCloseTo(66.667, 3);
  });

  it('lists folders in order of name', () => {
    expect([...mutationScores(report).folders.keys()]).toEqual(['base', 'mcp']);
  });

  it('has no score for a folder without a valid mutant', () => {
    const scores = mutationScores({ files: { 'src/core/x/a.ts': { mutants: mutants('Ignored') } } });
    expect(scoreOf(scores.folders.get('x'))).toBeUndefined();
    expect(foldersBelow(scores, 85)).toEqual([]);
    expect(describeScores(scores)[1]).toBe('  x: n/a of 0 mutants (1 ignored)');
  });

  it('names the folders below a minimum, and no other', () => {
    const below = foldersBelow(mutationScores(report), 85);
    expect(below).toEqual([{ folder: 'mcp', score: 60 }]);
    expect(foldersBelow(mutationScores(report), 60)).toEqual([]);
  });

  it('describes the whole and each folder', () => {
    expect(describeScores(mutationScores(report))).toEqual([
      'mutation score 66.67% of 6 mutants (2 ignored)',
      '  base: 100.00% of 1 mutants (1 ignored)',
      '  mcp: 60.00% of 5 mutants (1 ignored)',
    ]);
  });

  it('refuses what is not a Stryker report, saying what is missing', () => {
    expect(() => mutationScores({})).toThrow(/no "files" object/);
    expect(() => mutationScores(null)).toThrow(/no "files" object/);
    expect(() => mutationScores({ files: { 'src/core/a.ts': {} } })).toThrow(/file "src\/core\/a.ts" has no "mutants" array/);
  });
});

describe('narrowsScope', () => {
  it('sees --mutate in each of its spellings', () => {
    expect(narrowsScope(['--mutate', 'src/core/a.ts'])).toBe(true);
    expect(narrowsScope(['--mutate=src/core/a.ts'])).toBe(true);
    expect(narrowsScope(['--concurrency', '1', '-m', 'src/core/a.ts'])).toBe(true);
  });

  it('leaves whole runs and other options alone', () => {
    expect(narrowsScope([])).toBe(false);
    expect(narrowsScope(['--force', '--concurrency', '3'])).toBe(false);
    expect(narrowsScope(['--mutator-options'])).toBe(false);
  });
});
