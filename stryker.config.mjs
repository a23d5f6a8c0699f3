// Mutation testing of the core: `npm run test:mutation`. Reports go to reports/mutation/.
//
// Runs are incremental: test/mutation/stryker-incremental.json holds the result of every mutant as
// of its last run, and Stryker runs again only the mutants whose code changed and those whose
// covering tests changed (a test file edited, a test added over a surviving mutant). A full run of
// this scope takes about three and a half hours on 2 cores (measured in parts: 108 minutes for all
// but the facade and the process files, 20 for the process files, under an hour for the facade, 23
// for serve, 49 for the chat folder, 21 for the built-in tools); with the file it takes minutes.
// A full run also leaves a few idle test processes behind (mutants that break shutting a server
// down keep its stubborn children alive): end them after it. Commit the file a run rewrites. After a change Stryker
// cannot see (a test helper that is not a test file, a dependency), run every mutant with
// `npm run test:mutation -- --force`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.mts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/core/**/*.ts',
    // A program of its own (the sandboxed server's launcher): it runs only in the process it
    // starts, where no mutant is switched on; test/integration/sandbox.test.ts runs it for real.
    '!src/core/process/sandbox/sandboxLauncher.ts',
    // Declarations only: nothing to mutate.
    '!src/core/HarnessTypes.ts',
    '!src/core/**/types.ts',
    '!src/core/**/index.ts',
    '!src/core/config/launchTypes.ts',
    '!src/core/tools/ILogger.ts',
  ],
  // A static mutant (a module-level value) can only be seen by reloading every test file, which
  // costs as much as hundreds of ordinary mutants; Stryker leaves them out of the score.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'test/mutation/stryker-incremental.json',
  thresholds: { high: 95, low: 85, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  concurrency: 2,
  timeoutMS: 10_000,
};
