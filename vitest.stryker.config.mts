import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * The unit tests of the folders Stryker mutates (see stryker.config.mjs), and nothing that starts
 * processes, so each mutant runs in well under a second. The seeded config fuzz test is left out:
 * it covers nearly every line of src/core/config, so it would run for every mutant there while
 * killing none that the focused tests do not.
 */
export default defineConfig({
  define: { __HARNESS_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/unit/{config,tools,permissions,agent,calls,hooks,mcp,process}/**/*.test.ts'],
    exclude: [
      'test/unit/config/configFuzz.test.ts',
      // These spawn real processes, for the files stryker.config.mjs leaves out.
      'test/unit/mcp/McpStdioTransport.test.ts',
      'test/unit/process/processGroup.test.ts',
      'test/unit/process/findDescendants.test.ts',
    ],
  },
});
