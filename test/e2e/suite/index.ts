// Entry point VS Code loads in the extension host (`extensionTestsPath`) and calls `run()` on.
// esbuild bundles this file and the test modules below into out/test/e2e/index.js; mocha stays external.
import Mocha from 'mocha';

/**
 * The test modules, in run order. They are loaded only after Mocha has published its interface
 * (`suite`, `test`, ...), so the suites they declare land in this run: add new files here.
 */
const testModules: ReadonlyArray<() => Promise<unknown>> = [
  () => import('./smoke.test.js'),
  () => import('./extension.test.js'),
  () => import('./untrusted.test.js'),
  () => import('./serve.test.js'),
];

/**
 * Runs every test module. Rejects when a test fails or when no test is selected (a grep that matches
 * nothing must not pass), which makes VS Code exit with a non-zero code.
 * Environment (from the runner's `extensionEnvironment`): MOCHA_GREP to select tests by title,
 * MOCHA_TIMEOUT for the per-test timeout in ms.
 */
export async function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'tdd',
    reporter: 'spec',
    color: false,
    timeout: Number(process.env.MOCHA_TIMEOUT ?? 20_000),
    grep: process.env.MOCHA_GREP || undefined,
  });
  mocha.suite.emit(Mocha.Suite.constants.EVENT_FILE_PRE_REQUIRE, globalThis, 'mcp-harness-e2e', mocha);
  for (const load of testModules) {
    await load();
  }
  let selected = 0;
  const failures = await new Promise<number>((resolve) => {
    // The runner counts the tests the grep selects before it starts them.
    selected = mocha.run(resolve).total;
  });
  if (selected === 0) {
    throw new Error(`no extension-host test matches ${process.env.MOCHA_GREP ? `MOCHA_GREP ${JSON.stringify(process.env.MOCHA_GREP)}` : 'at all'}`);
  }
  if (failures > 0) {
    throw new Error(`${failures} extension-host test(s) failed`);
  }
}
