import type { McpHarness } from '../../src/core';

/**
 * Resolves once `check()` holds, checking now and after each change the harness reports. Rejects
 * after `timeoutMs` (a generous bound against hanging, not a timing assertion), naming what it saw.
 */
export function waitForHarness<T>(harness: McpHarness, check: () => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first) return resolve(first);
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`not ${what} within ${timeoutMs} ms; servers: ${JSON.stringify(harness.servers().map((s) => [s.name, s.state, s.error]))}`));
    }, timeoutMs);
    const sub = harness.onDidChange(() => {
      const value = check();
      if (!value) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}
