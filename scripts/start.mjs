#!/usr/bin/env node
// `npm start`: the extension, built from this checkout, in a real VS Code served on 127.0.0.1 with the
// demo/ folder open. Open the printed URL in a browser; Ctrl-C stops everything.
// By default the extension is packaged and installed, as a user would have it (notifications pop up
// as usual). `--dev` loads it from source instead (VS Code's development mode, where notifications
// go to the Notification Center only); `--dev --watch` keeps esbuild rebuilding: run
// "Developer: Reload Window" to load the new build.
// Env: PORT (default: a free port), EXT_DIR (extension to load, default this repository),
// MCP_HARNESS_DEMO (folder to open, default demo/), MCP_HARNESS_CACHE (toolchain cache).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDemoModelForWorkspace } from '../demo/model/demoModel.mjs';
import { startCodeServer } from './codeServer.mjs';
import { ensureToolchain } from './toolchain.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const EXT_DIR = resolve(process.env.EXT_DIR ?? ROOT);
const DEMO = resolve(process.env.MCP_HARNESS_DEMO ?? join(ROOT, 'demo'));

async function main() {
  if (!existsSync(DEMO)) throw new Error(`no folder to open: ${DEMO} does not exist`);
  const port = process.env.PORT ? Number(process.env.PORT) : undefined;
  if (port !== undefined && !Number.isInteger(port)) throw new Error(`PORT must be a number, not ${process.env.PORT}`);
  const toolchain = await ensureToolchain();

  const dev = process.argv.includes('--dev');
  const built = spawnSync(process.execPath, dev ? ['esbuild.mjs'] : ['esbuild.mjs', '--production'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('build failed');
  const watcher = dev && process.argv.includes('--watch')
    ? spawn(process.execPath, ['esbuild.mjs', '--watch'], { cwd: ROOT, stdio: 'inherit' })
    : undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'mcp-harness-start-'));
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  const vsix = dev ? undefined : packageExtension(scratch);

  const server = await startCodeServer({
    node: toolchain.node24,
    entry: toolchain.codeServer,
    port,
    vsix: vsix ? [vsix] : [],
    devPayload: dev,
    // Servers started with `npx` from the demo's .mcp.json reuse the user's npm cache rather than
    // downloading into the server's temporary HOME on every start.
    env: { npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm') },
  });
  const stopDemoModel = await startDemoModelForWorkspace();
  const url = server.workbenchUrl(dev ? { folder: DEMO, extensionDevelopmentPath: EXT_DIR } : { folder: DEMO });
  console.log(`\nMCP Harness is running in VS Code (code-server, pid ${server.pid}). Open:\n\n  ${url}\n`);
  console.log('The demo servers ask once before they start: answer "Start" in the notification. Ctrl-C to stop.');
  if (dev) console.log('Development mode: notifications land in the Notification Center (bell icon), not as pop-ups.');

  const reason = await Promise.race([
    new Promise((r) => ['SIGINT', 'SIGTERM', 'SIGHUP'].forEach((s) => process.once(s, () => r(s)))),
    server.exited.then(({ code, signal }) => `code-server exited (code ${code}, signal ${signal}); log: ${server.logFile}`),
  ]);
  console.log(`\n${reason}: stopping`);
  watcher?.kill('SIGTERM');
  await server.stop();
  await stopDemoModel();
  return reason.startsWith('SIG') ? 0 : 1;
}

/** Packages the extension as a user would install it. */
function packageExtension(dir) {
  const out = join(dir, 'mcp-harness.vsix');
  const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], { cwd: EXT_DIR, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`packaging failed:\n${r.stdout}${r.stderr}`);
  return out;
}

main().then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(`npm start: ${error.message}`); process.exitCode = 1; },
);
