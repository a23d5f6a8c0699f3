#!/usr/bin/env node
// `npm run test:vscode`: the extension-host mocha suite (test/e2e/suite) in desktop VS Code through
// @vscode/test-electron. It downloads VS Code on first use, so it needs internet access (and a display
// on Linux: run it under xvfb-run). Offline, `npm run test:e2e` runs the same suite in code-server.
// Env: VSCODE_EXECUTABLE (a local VS Code to use instead of downloading), E2E_WORKSPACE.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const WORKSPACE = resolve(process.env.E2E_WORKSPACE ?? join(ROOT, 'test/e2e/fixtures/workspace'));

async function main() {
  const built = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) return fail('build failed');

  let vscodeExecutablePath = process.env.VSCODE_EXECUTABLE;
  if (!vscodeExecutablePath) {
    try {
      // Request timeout (ms without data): an unreachable update service fails in seconds, not minutes.
      vscodeExecutablePath = await downloadAndUnzipVSCode({ extensionDevelopmentPath: ROOT, timeout: 15_000 });
    } catch (error) {
      return fail(`cannot download VS Code (${error.message}); use npm run test:e2e, which runs the same suite offline in code-server`);
    }
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    console.warn('test:vscode: no DISPLAY; if VS Code fails to start, run under xvfb-run');
  }
  try {
    await runTests({
      vscodeExecutablePath,
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: join(ROOT, 'out/test/e2e/index.js'),
      extensionTestsEnv: { MCP_HARNESS_E2E_RUN: 'electron', MCP_HARNESS_E2E_FOLDER: WORKSPACE },
      launchArgs: [WORKSPACE, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
  } catch (error) {
    return fail(error.message);
  }
  return 0;
}

function fail(message) {
  console.error(`test:vscode: ${message}`);
  return 1;
}

main().then((code) => { process.exitCode = code; });
