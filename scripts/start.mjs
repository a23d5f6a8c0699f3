#!/usr/bin/env node
// `npm start`: the extension, built from this checkout, in a real VS Code served on 127.0.0.1 with the
// demo/ folder open. Open the printed URL in a browser; Ctrl-C stops everything.
// By default the extension is packaged and installed, as a user would have it (notifications pop up
// as usual). `--dev` loads it from source instead (VS Code's development mode, where notifications
// go to the Notification Center only); `--dev --watch` keeps esbuild rebuilding: run
// "Developer: Reload Window" to load the new build.
// `--smoke` does all of that, then opens the URL in chromium as a user would, answers the demo's
// start question, waits until the status bar shows every demo server running, prints what it saw and
// stops everything: exit 0, or 1 with the reason (what was last seen when it timed out).
// Env: PORT (default: a free port), EXT_DIR (extension to load, default this repository),
// MCP_HARNESS_DEMO (folder to open, default demo/), MCP_HARNESS_CACHE (toolchain cache),
// MCP_HARNESS_SMOKE_TIMEOUT_MS (`--smoke`: how long the servers may take to run, default 180000).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseJsonc } from 'jsonc-parser';
import { startDemoModelForWorkspace } from '../demo/model/demoModel.mjs';
import { descendantPids, startCodeServer } from './codeServer.mjs';
import { ensureToolchain } from './toolchain.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const EXT_DIR = resolve(process.env.EXT_DIR ?? ROOT);
const DEMO = resolve(process.env.MCP_HARNESS_DEMO ?? join(ROOT, 'demo'));

const FLAGS = ['--dev', '--watch', '--smoke'];
const SMOKE_TIMEOUT_MS = Number(process.env.MCP_HARNESS_SMOKE_TIMEOUT_MS ?? 180_000);

async function main() {
  const unknown = process.argv.slice(2).filter((a) => !FLAGS.includes(a));
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown.join(' ')}; use ${FLAGS.join(', ')}`);
  const smoke = process.argv.includes('--smoke');
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
  if (smoke) {
    const processes = trackDescendants();
    let code;
    try {
      code = await smokeCheck(url, toolchain.chromium, dev);
    } finally {
      watcher?.kill('SIGTERM');
      await server.stop();
      await stopDemoModel();
    }
    const left = await processes.leftAfterStop();
    console.log(`smoke: processes started under npm start: ${processes.count}; still running after stop: ${left.length}`);
    for (const line of left) console.error(`smoke: left behind: ${line}`);
    return left.length > 0 ? 1 : code;
  }
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

/**
 * Opens the workbench as a user would, answers the demo's start question, and waits until the status
 * bar item shows every demo server running. Prints what it saw; resolves the exit code.
 */
async function smokeCheck(url, chromium, dev) {
  const expected = demoServerNames();
  const ui = await import('../test/e2e/ui/lib.mjs');
  const browser = await ui.launchBrowser({ executablePath: chromium });
  const { page } = browser;
  const status = ui.mcpStatusItem(page);
  const seen = { status: undefined, question: undefined };
  let stopped = false;
  const say = (line) => console.log(`smoke: ${line}`);
  const timer = new Promise((r) => { setTimeout(r, SMOKE_TIMEOUT_MS, 'timeout').unref(); });
  const check = async () => {
    await page.goto(url);
    await ui.waitForWorkbench(page);
    say(`workbench loaded: ${await page.title()}`);
    const all = new RegExp(`^\\s*MCP ${expected.length}/${expected.length} · \\d+ tools?$`);
    // A fresh VS Code has not approved the demo's servers yet: it asks (as a toast, or in the
    // Notification Center in development mode). Answer it unless the servers run already. The
    // Notification Center can close again while the workbench settles, so it is looked at anew.
    const question = new RegExp(`^Start ${expected.length} MCP servers? from \\.mcp\\.json\\?`);
    const running = status.filter({ hasText: all }).filter({ has: page.locator('.codicon-plug') });
    while (!stopped && (await running.count()) === 0) {
      if (seen.question) {
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      const item = await ui.findNotification(page, question, { timeout: 2_000 }).catch(() => undefined);
      if (!item) continue;
      seen.question = (await item.locator('.notification-list-item-message').innerText()).trim();
      await item.locator('.monaco-button', { hasText: /^Start$/ }).click();
      say(`answered "Start" to: ${seen.question}`);
    }
    seen.status = (await status.innerText()).trim();
    say(`status bar: ${seen.status}`);
    const hover = await ui.hoverText(page, status);
    const states = Object.fromEntries(hover.split('\n').map((l) => /^-?\s*([\w.-]+): (\w+)/.exec(l.trim())).filter(Boolean).map((m) => [m[1], m[2]]));
    for (const name of expected) say(`server ${name}: ${states[name] ?? 'not listed'}`);
    const notRunning = expected.filter((n) => states[n] !== 'running');
    if (notRunning.length > 0) throw new Error(`the status bar's hover does not show ${notRunning.join(', ')} running:\n${hover}`);
    return 'ok';
  };
  // Remembered as it changes, for the timeout's message.
  const watchStatus = setInterval(() => {
    status.innerText({ timeout: 500 }).then((t) => { seen.status = t.trim(); }, () => {});
  }, 1000);
  try {
    const checking = check();
    checking.catch(() => {}); // after a timeout it fails as the browser closes; awaited in the race
    const outcome = await Promise.race([checking, timer]);
    if (outcome === 'timeout') {
      throw new Error(`the demo's ${expected.length} servers were not all running within ${SMOKE_TIMEOUT_MS / 1000} s; `
        + `last seen: status bar ${seen.status === undefined ? 'without the MCP item' : `"${seen.status}"`}, `
        + `start question ${seen.question ? 'answered' : 'not seen'}`);
    }
    say(`OK: ${url}${dev ? ' (development mode)' : ''}`);
    return 0;
  } catch (error) {
    await page.screenshot({ path: join(ROOT, 'test-results', 'smoke-failure.png') }).catch(() => {});
    console.error(`smoke: FAILED: ${error.message}`);
    return 1;
  } finally {
    stopped = true;
    clearInterval(watchStatus);
    await browser.close();
  }
}

/**
 * Every process seen under this one (code-server, its extension host, the MCP servers it starts,
 * chromium), sampled while it runs; after the stop, which of them still run.
 */
function trackDescendants() {
  const seen = new Map();
  const sample = () => {
    for (const pid of descendantPids(process.pid)) if (!seen.has(pid)) seen.set(pid, commandLine(pid));
  };
  const timer = setInterval(sample, 250);
  sample();
  return {
    get count() { return seen.size; },
    async leftAfterStop() {
      clearInterval(timer);
      // Exiting processes are reaped within moments; give them a little while.
      const running = () => [...seen.keys()].filter((pid) => isRunning(pid) && commandLine(pid) === seen.get(pid));
      for (let i = 0; i < 50 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
      return running().map((pid) => `${pid} ${seen.get(pid)}`);
    },
  };
}

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Alive and not a zombie. */
function isRunning(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** The names of the servers in the demo folder's .mcp.json. */
function demoServerNames() {
  const file = join(DEMO, '.mcp.json');
  const config = parseJsonc(readFileSync(file, 'utf8'));
  const names = Object.keys(config?.mcpServers ?? config?.servers ?? {});
  if (names.length === 0) throw new Error(`${file} lists no servers to check`);
  return names;
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
