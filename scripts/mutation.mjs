#!/usr/bin/env node
// `npm run test:mutation [-- stryker options]`: runs Stryker (stryker.config.mjs) on Node 22 or
// later, which StrykerJS requires. On the project's Node 20 it uses the toolchain's Node 24
// (installed once into the cache, see scripts/toolchain.mjs). Exits with Stryker's code, so a
// score below `thresholds.break` fails the run; then prints the score of each folder of src/core
// from the JSON report this run wrote, and fails when one is below FOLDER_BREAK. Runs reuse the
// committed results of unchanged mutants (stryker.config.mjs's `incrementalFile`); a run narrowed
// with `--mutate` starts from a copy of them, so it leaves the committed file whole.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeScores, foldersBelow, mutationScores, narrowsScope } from './mutationScores.mjs';
import { ensureToolchain } from './toolchain.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
// The package exports no bin path, so it is found where npm puts it.
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
/** Where stryker.config.mjs's JSON reporter writes. */
const report = join(root, 'reports', 'mutation', 'mutation.json');
/** The committed results Stryker reuses (stryker.config.mjs's `incrementalFile`), and a narrowed run's copy. */
const baseline = join(root, 'test', 'mutation', 'stryker-incremental.json');
const narrowedBaseline = join(root, 'reports', 'mutation', 'narrowed-incremental.json');
/** No folder of src/core may score below this (Stryker's own break applies to the whole). */
const FOLDER_BREAK = 85;

async function nodeForStryker() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return process.execPath;
  return (await ensureToolchain({ codeServer: false })).node24;
}

async function runStryker(args) {
  const node = await nodeForStryker();
  const child = spawn(node, [stryker, 'run', ...args], { cwd: root, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** The report's per-folder scores, when this run wrote one; 1 when a folder is below FOLDER_BREAK. */
function checkFolders(startedAt) {
  let written;
  try {
    written = statSync(report).mtimeMs;
  } catch {
    return 0;
  }
  // An older report (a run whose reporters left out json) says nothing of this run.
  if (written < startedAt) return 0;
  const scores = mutationScores(JSON.parse(readFileSync(report, 'utf8')));
  for (const line of describeScores(scores)) process.stdout.write(`[mutation] ${line}\n`);
  const below = foldersBelow(scores, FOLDER_BREAK);
  for (const { folder, score } of below) {
    process.stderr.write(`[mutation] folder ${folder} scores ${score.toFixed(2)}%, below the folder break of ${FOLDER_BREAK}%\n`);
  }
  return below.length > 0 ? 1 : 0;
}

/** A narrowed run reads and writes a copy of the committed results. */
function withBaselineKept(args) {
  if (!narrowsScope(args) || args.includes('--incrementalFile')) return args;
  mkdirSync(dirname(narrowedBaseline), { recursive: true });
  if (existsSync(baseline)) copyFileSync(baseline, narrowedBaseline);
  return [...args, '--incrementalFile', narrowedBaseline];
}

async function main(args) {
  const startedAt = Date.now();
  const code = await runStryker(withBaselineKept(args));
  if (code !== 0) return code;
  return checkFolders(startedAt);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`[mutation] ${error.message}\n`);
    process.exitCode = 1;
  },
);
