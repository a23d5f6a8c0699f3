import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * The unit tests of src/core, for the parts of it Stryker mutates (see stryker.config.mjs). The seeded
 * config fuzz test is left out: it covers nearly every line of src/core/config, so it would run
 * for every mutant there while killing none that the focused tests do not.
 */
export default defineConfig({
  define: { __HARNESS_VERSION__: JSON.stringify(version) },
  test: {
    include: [
      'test/unit/{agent,apps,auth,base,builtin,calls,chat,config,harness,hooks,mcp,permissions,process,requests,serve,skills,tasks,tools}/**/*.test.ts',
    ],
    exclude: ['test/unit/config/configFuzz.test.ts'],
    // The built-in tools' and hooks' tests run real commands, slower under Stryker's instrumentation.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
