// Mutation testing of the core: `npm run test:mutation`. Reports go to reports/mutation/.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.mts' },
  coverageAnalysis: 'perTest',
  // All of src/core but the files below. Each folder must score 85% or more and the whole 90%
  // (scripts/mutation.mjs checks the folders, Stryker's `break` the whole).
  mutate: [
    'src/core/**/*.ts',
    // These spawn processes; the integration tests run them with real servers and commands.
    '!src/core/mcp/McpStdioTransport.ts',
    '!src/core/process/processGroup.ts',
    '!src/core/process/sandbox/sandboxLauncher.ts',
    '!src/core/hooks/runHookCommand.ts',
    // Built-in tools touch the file system and processes; the integration tests cover them.
    '!src/core/tools/builtin/**',
    // Not yet held by unit tests at 85%, or too slow for CI yet (the integration, conformance and
    // e2e tests cover them); each joins once its unit tests keep it there within CI's time. The
    // chat: 4,054 mutants behind its slowest unit tests; serve: 1,159 behind real HTTP.
    '!src/core/chat/**',
    '!src/core/serve/**',
    '!src/core/McpHarness.ts',
    '!src/core/agent/contextEstimate.ts',
    '!src/core/agent/results/**',
    '!src/core/calls/outputCap.ts',
    '!src/core/config/describeOrigin.ts',
    '!src/core/config/discoverServers.ts',
    '!src/core/config/discoveryLocations.ts',
    '!src/core/config/mergeFoundServers.ts',
    '!src/core/config/prepareEnvFolders.ts',
    '!src/core/config/serverEnvironment.ts',
    '!src/core/config/serverPolicy.ts',
    // Declarations only: nothing to mutate.
    '!src/core/**/types.ts',
    '!src/core/HarnessTypes.ts',
    '!src/core/config/launchTypes.ts',
    '!src/core/tools/ILogger.ts',
    '!src/core/**/index.ts',
  ],
  // Static mutants (code that runs as a module loads: schemas, tables, constants) cannot be traced
  // to the tests that cover them, so each would run every unit test: 13% of the mutants took 87%
  // of the time. They are reported as ignored.
  ignoreStatic: true,
  thresholds: { high: 95, low: 85, break: 90 },
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  concurrency: 2,
  timeoutMS: 10_000,
};
