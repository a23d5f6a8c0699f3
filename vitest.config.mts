import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  define: { __HARNESS_VERSION__: JSON.stringify(version) },
  test: {
    include: ['test/unit/**/*.test.ts', 'test/unit/scripts/**/*.test.mjs', 'test/integration/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real processes; keep them from starving each other on small machines.
    maxWorkers: 2,
  },
});
