// Scores of a Stryker JSON report (mutation-testing-report-schema) per folder of src/core, with
// Stryker's own formula: (killed + timed out) / (killed + timed out + survived + not covered).
// Ignored mutants (static ones under `ignoreStatic`, `// Stryker disable` lines), compile and
// runtime errors count on neither side.

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** The folder a report's file name belongs to: `src/core/mcp/x.ts` -> `mcp`; files at the top -> `(top)`. */
export function folderOf(fileName) {
  const parts = fileName.replaceAll('\\', '/').split('/');
  const core = parts.lastIndexOf('core');
  if (core === -1 || parts[core - 1] !== 'src') return '(other)';
  const rest = parts.slice(core + 1);
  return rest.length > 1 ? rest[0] : '(top)';
}

function tally() {
  return { detected: 0, undetected: 0, ignored: 0 };
}

function add(into, status) {
  if (DETECTED.has(status)) into.detected++;
  else if (UNDETECTED.has(status)) into.undetected++;
  else if (status === 'Ignored') into.ignored++;
}

/** The score of a tally, in percent, or undefined when it has no valid mutant. */
export function scoreOf({ detected, undetected }) {
  const valid = detected + undetected;
  return valid === 0 ? undefined : (100 * detected) / valid;
}

/** Totals and per-folder tallies of a report. */
export function mutationScores(report) {
  if (!report || typeof report !== 'object' || !report.files || typeof report.files !== 'object') {
    throw new Error('mutation report: no "files" object (is it a Stryker JSON report?)');
  }
  const total = tally();
  const folders = new Map();
  for (const [fileName, file] of Object.entries(report.files)) {
    if (!Array.isArray(file?.mutants)) throw new Error(`mutation report: file "${fileName}" has no "mutants" array`);
    const folder = folderOf(fileName);
    if (!folders.has(folder)) folders.set(folder, tally());
    for (const mutant of file.mutants) {
      add(total, mutant.status);
      add(folders.get(folder), mutant.status);
    }
  }
  return { total, folders: new Map([...folders].sort(([a], [b]) => a.localeCompare(b))) };
}

/** Folders whose score is below `minimum`, with their scores. */
export function foldersBelow(scores, minimum) {
  const below = [];
  for (const [folder, counts] of scores.folders) {
    const score = scoreOf(counts);
    if (score !== undefined && score < minimum) below.push({ folder, score });
  }
  return below;
}

/** The lines `npm run test:mutation` prints after Stryker's own table. */
export function describeScores(scores) {
  const fmt = (counts) => {
    const score = scoreOf(counts);
    const mutants = counts.detected + counts.undetected;
    return `${score === undefined ? 'n/a' : `${score.toFixed(2)}%`} of ${mutants.toLocaleString('en-US')} mutants` + (counts.ignored ? ` (${counts.ignored} ignored)` : '');
  };
  return [`mutation score ${fmt(scores.total)}`, ...[...scores.folders].map(([folder, counts]) => `  ${folder}: ${fmt(counts)}`)];
}

/**
 * Whether Stryker arguments narrow the files it mutates (`--mutate`/`-m`). Such a run must not
 * write the committed baseline: Stryker's incremental file holds only the files of its last run.
 */
export function narrowsScope(args) {
  return args.some((arg) => arg === '--mutate' || arg === '-m' || arg.startsWith('--mutate='));
}
