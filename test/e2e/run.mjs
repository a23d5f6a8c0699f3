#!/usr/bin/env node
// `npm run test:e2e`: the extension in a real VS Code (code-server), driven by chromium.
//   1. toolchain (scripts/toolchain.mjs) and build (esbuild.mjs);
//   2. package the extension with vsce and install the .vsix into a scratch extensions folder;
//   3. the mocha suite (test/e2e/suite) inside the extension host, once per entry of SUITE_RUNS;
//   4. every Playwright scenario test/e2e/ui/*.e2e.mjs (`export async function run(ctx)`).
// Each item passes or fails on its own; the process exits non-zero if any failed. Screenshots and logs
// go to test-results/e2e/. See test/e2e/README.md for the knobs.
import { spawn } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { descendantPids, installVsix, listExtensions, startCodeServer } from '../../scripts/codeServer.mjs';
import { ensureToolchain } from '../../scripts/toolchain.mjs';
import { burnThreads, startCpuBurner } from './cpuBurner.mjs';
import { launchBrowser } from './ui/lib.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const EXT_DIR = resolve(process.env.EXT_DIR ?? ROOT);
const WORKSPACE = resolve(process.env.E2E_WORKSPACE ?? join(ROOT, 'test/e2e/fixtures/workspace'));
const UI_DIR = resolve(process.env.E2E_UI_DIR ?? join(ROOT, 'test/e2e/ui'));
const RESULTS = join(ROOT, 'test-results', 'e2e');
const SUITE_ENTRY = join(ROOT, 'out/test/e2e/index.js');
const ONLY = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : undefined;
const SUITE_TIMEOUT_MS = Number(process.env.E2E_SUITE_TIMEOUT_MS ?? 300_000);
// A guard against a scenario that hangs, not a measure: generous enough for a machine under full
// load (`--burn`), where the longest scenario (chat-restore: 100 exchanges) takes over 3 minutes.
const UI_TIMEOUT_MS = Number(process.env.E2E_UI_TIMEOUT_MS ?? 600_000);
const VERBOSE = Boolean(process.env.E2E_VERBOSE);
const SKIP_BUILD = Boolean(process.env.E2E_SKIP_BUILD);
/** Replaces every run's `grep`, to run a few tests by title. */
const GREP = process.env.E2E_GREP;
/** `--burn` / E2E_BURN=1: threads kept spinning for the whole run (see cpuBurner.mjs). */
const BURN_THREADS = burnThreads();

/**
 * Runs of the mocha suite, each in a fresh workbench on a scratch copy of `folder` (tests may edit it).
 * `grep` selects tests by full title; `env` reaches the extension host; `trust` enables workspace trust
 * (the folder then opens untrusted); `settings` are user settings. A run with `trust` or `settings`
 * gets a code-server of its own.
 * @type {{ name: string, folder: string, grep?: string, env?: Record<string, string>, trust?: boolean, settings?: Record<string, unknown> }[]}
 */
const SUITE_RUNS = [
  { name: 'trusted', folder: WORKSPACE, grep: '^(?!Untrusted workspace)' },
  {
    name: 'untrusted',
    folder: WORKSPACE,
    grep: '^Untrusted workspace',
    trust: true,
    settings: { 'mcpHarness.servers': { 'user-fixture': { command: 'node', args: [join(ROOT, 'test/fixtures/servers/fixture.mjs')] } } },
  },
];

/** Workbench console lines that are expected in an offline, sign-in-less VS Code. Full text is in the log file. */
const NOISE = /AgentHost|ChatModelSelection|ENOTFOUND|authentication provider|connection token|Creating a socket|Service Worker|AccountPolicyGate|builtin extensions cache|grace time/;

const started = Date.now();
/** Things to close if the run is interrupted. */
const openResources = new Set();
let sharedServerStart;
let scratch;
const results = [];
let toolchain;
let vsix;
/** Set by an interrupt: nothing new is started. */
let stopping = false;

main().then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(error); process.exitCode = 1; },
);

async function main() {
  installSignalHandlers();
  rmSync(RESULTS, { recursive: true, force: true });
  mkdirSync(RESULTS, { recursive: true });
  const memory = sampleMemory();
  const burner = BURN_THREADS > 0 ? startCpuBurner({ threads: BURN_THREADS }) : undefined;
  if (burner) log(`burning ${burner.threads} CPU threads for the whole run`);
  scratch = mkdtempSync(join(tmpdir(), 'mcp-harness-e2e-'));
  // Also on an interrupted run, which ends through process.exit().
  process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
  try {
    const ready = await item('toolchain', async () => { toolchain = await ensureToolchain(); })
      && await item('build', () => build());
    if (ready) {
      await item('package', async () => { vsix = await packageExtension(); });
      if (vsix) await item('install-vsix', () => checkVsixInstalls(vsix));
      for (const run of SUITE_RUNS) await item(`suite:${run.name}`, () => runSuite(run));
      for (const file of scenarioFiles()) await item(`ui:${basename(file, '.e2e.mjs')}`, () => runScenario(file));
    }
  } finally {
    await closeAll();
    memory.stop();
  }
  const burn = await burner?.stop();
  return summarize(memory.peakMb, burn);
}

/** Runs one recorded item unless E2E_ONLY excludes it; returns whether it passed. */
async function item(name, fn) {
  if (stopping) return false;
  if (ONLY && !['toolchain', 'build'].includes(name) && !ONLY.test(name)) return true;
  log(`${name} ...`);
  const t0 = Date.now();
  try {
    await fn();
    results.push({ name, ok: true, seconds: (Date.now() - t0) / 1000 });
    log(`PASS ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    return true;
  } catch (error) {
    results.push({ name, ok: false, seconds: (Date.now() - t0) / 1000, error: error.message });
    log(`FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${error.message}`);
    return false;
  }
}

async function build() {
  if (SKIP_BUILD) log('E2E_SKIP_BUILD: using the existing build');
  else await exec(process.execPath, ['esbuild.mjs'], { cwd: ROOT, logFile: join(RESULTS, 'build.log') });
  if (!existsSync(SUITE_ENTRY)) throw new Error(`${SUITE_ENTRY} was not built`);
}

async function packageExtension() {
  const out = join(scratch, 'extension.vsix');
  const vsce = join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const logFile = join(RESULTS, 'package.log');
  const ownRepo = EXT_DIR === ROOT && !SKIP_BUILD;
  // The package users get is the minified production build (as `npm run package` makes it)...
  if (ownRepo) await exec(process.execPath, ['esbuild.mjs', '--production'], { cwd: ROOT, logFile });
  await exec(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], { cwd: EXT_DIR, logFile });
  // ...while the runs that load the extension from source keep the build with source maps.
  if (ownRepo) await exec(process.execPath, ['esbuild.mjs'], { cwd: ROOT, logFile });
  return out;
}

/** The packaged extension installs with VS Code's own CLI and is listed under its id and version. */
async function checkVsixInstalls(file) {
  const extensionsDir = join(scratch, 'installed-extensions');
  mkdirSync(extensionsDir);
  const output = installVsix({ node: toolchain.node24, entry: toolchain.codeServer, vsix: file, extensionsDir });
  writeFileSync(join(RESULTS, 'install-vsix.log'), output);
  const { publisher, name, version } = JSON.parse(readFileSync(join(EXT_DIR, 'package.json'), 'utf8'));
  const expected = `${publisher}.${name}@${version}`.toLowerCase();
  const listed = listExtensions({ node: toolchain.node24, entry: toolchain.codeServer, extensionsDir });
  if (!listed.some((l) => l.toLowerCase() === expected)) throw new Error(`expected ${expected}, listed: ${listed.join(', ') || 'nothing'}`);
}

async function runSuite(run) {
  const folder = copyFolder(run.folder, `suite-${run.name}`);
  const dedicated = Boolean(run.trust || run.settings);
  const server = dedicated ? await startServer({ trust: run.trust, settings: run.settings }) : await sharedServer();
  const logFile = createWriteStream(join(RESULTS, `suite-${run.name}.log`));
  let browser;
  try {
    browser = await openBrowser();
    const { page } = browser;
    let exit;
    const exited = new Promise((r) => { exit = r; });
    await page.exposeFunction('codeAutomationExit', (code) => exit(code));
    await page.exposeFunction('codeAutomationLog', (_type, args) => {
      const line = format(...args);
      logFile.write(`${line}\n`);
      if (VERBOSE || !NOISE.test(line)) console.log(line);
    });
    page.on('pageerror', (error) => logFile.write(`page error: ${error.stack ?? error}\n`));
    const result = withTimeout(exited, SUITE_TIMEOUT_MS);
    await page.goto(server.workbenchUrl({
      folder,
      extensionDevelopmentPath: EXT_DIR,
      extensionTestsPath: SUITE_ENTRY,
      extensionEnvironment: {
        MCP_HARNESS_E2E_RUN: run.name,
        MCP_HARNESS_E2E_FOLDER: folder,
        MCP_HARNESS_E2E_USER_DATA: server.userDataDir,
        ...((GREP ?? run.grep) ? { MOCHA_GREP: GREP ?? run.grep } : {}),
        ...run.env,
      },
    }));
    const code = await result;
    if (code !== 0) {
      await page.screenshot({ path: join(RESULTS, `suite-${run.name}-failure.png`) }).catch(() => {});
      throw new Error(code === undefined ? `no result within ${SUITE_TIMEOUT_MS / 1000} s` : `extension host exited with code ${code}`);
    }
  } finally {
    await browser?.close();
    await new Promise((r) => logFile.end(r));
    if (dedicated) await server.stop();
  }
}

async function runScenario(file) {
  const name = basename(file, '.e2e.mjs');
  const scenario = await import(pathToFileURL(file).href);
  if (typeof scenario.run !== 'function') throw new Error(`${file} does not export run(ctx)`);
  const server = await sharedServer();
  const workspace = copyFolder(WORKSPACE, `ui-${name}`);
  const browser = await openBrowser();
  const own = [];
  const { page } = browser;
  const consoleLog = createWriteStream(join(RESULTS, `ui-${name}.log`));
  page.on('console', (m) => consoleLog.write(`${m.type()}: ${m.text()}\n`));
  page.on('pageerror', (error) => consoleLog.write(`page error: ${error.stack ?? error}\n`));
  const ctx = {
    page,
    server,
    resultsDir: RESULTS,
    extensionPath: EXT_DIR,
    workspace,
    vsix,
    /** The packaged extension: the one the `package` item made, or a new one when E2E_ONLY left that item out. */
    packageVsix: async () => { vsix ??= await packageExtension(); return vsix; },
    workbenchUrl: (options = {}) => server.workbenchUrl({ folder: workspace, extensionDevelopmentPath: EXT_DIR, ...options }),
    /** Another code-server for this scenario only (e.g. `{ trust: true }` or `{ vsix: [ctx.vsix] }`); stopped afterwards. */
    startCodeServer: async (options = {}) => {
      const s = await startServer(options);
      own.push(s);
      return s;
    },
    log: (...args) => console.log(`  [${name}]`, ...args),
  };
  try {
    const outcome = await withTimeout(Promise.resolve(scenario.run(ctx)).then(() => 'done'), UI_TIMEOUT_MS);
    if (outcome !== 'done') throw new Error(`did not finish within ${UI_TIMEOUT_MS / 1000} s`);
  } catch (error) {
    await page.screenshot({ path: join(RESULTS, `ui-${name}-failure.png`) }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
    for (const s of own) await s.stop();
    await new Promise((r) => consoleLog.end(r));
  }
}

function scenarioFiles() {
  if (!existsSync(UI_DIR)) return [];
  const files = readdirSync(UI_DIR).filter((f) => f.endsWith('.e2e.mjs')).sort().map((f) => join(UI_DIR, f));
  if (files.length === 0) log(`no UI scenarios in ${UI_DIR}`);
  return files;
}

/** The code-server with default settings that runs without options and every scenario share. */
function sharedServer() {
  sharedServerStart ??= startServer({});
  return sharedServerStart;
}

/** A scratch copy of `source`, under the same folder name (it shows in the window title). */
function copyFolder(source, owner) {
  if (!existsSync(source)) throw new Error(`folder ${source} does not exist`);
  const copy = join(scratch, 'folders', owner, basename(source));
  cpSync(source, copy, { recursive: true });
  return copy;
}

async function startServer(options) {
  if (stopping) throw new Error('interrupted');
  const starting = startCodeServer({
    node: toolchain.node24,
    entry: toolchain.codeServer,
    logsDir: RESULTS,
    // The fixture workspace's .mcp.json finds the repository's servers through it.
    env: { MCP_HARNESS_REPO: ROOT },
    ...options,
  });
  const { resource: server, release } = await tracked('server', starting, (s) => s.stop());
  const stop = server.stop;
  server.stop = () => { release(); return stop(); };
  log(`code-server ${server.url} (pid ${server.pid}${options.trust ? ', workspace trust on' : ''})`);
  return server;
}

async function openBrowser() {
  if (stopping) throw new Error('interrupted');
  const { resource: browser, release } = await tracked('browser', launchBrowser({ executablePath: toolchain.chromium }), (b) => b.close());
  return { page: browser.page, close: () => { release(); return browser.close(); } };
}

/** Tracks a resource from the moment it starts opening, so that an interrupt meanwhile still closes it. */
async function tracked(kind, opening, close) {
  const entry = { kind, close: () => opening.then(close, () => {}) };
  openResources.add(entry);
  try {
    return { resource: await opening, release: () => openResources.delete(entry) };
  } catch (error) {
    openResources.delete(entry);
    throw error;
  }
}

async function closeAll() {
  // Browsers first, so that no workbench reconnects while its server goes down.
  const all = [...openResources];
  await Promise.all(all.filter((r) => r.kind === 'browser').map((r) => r.close()));
  await Promise.all(all.filter((r) => r.kind === 'server').map((r) => r.close()));
  openResources.clear();
  sharedServerStart = undefined;
}

function installSignalHandlers() {
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(name, () => {
      // A second signal exits at once; the exit hooks still kill code-server and chromium.
      if (stopping) process.exit(130);
      stopping = true;
      log(`${name}: stopping`);
      closeAll().finally(() => process.exit(130));
    });
  }
}

/** Resolves with the promise's value, or undefined once `ms` have passed. */
function withTimeout(promise, ms) {
  let timer;
  promise.catch(() => {}); // settled later, after the run has moved on
  return Promise.race([promise, new Promise((r) => { timer = setTimeout(r, ms); })]).finally(() => clearTimeout(timer));
}

/** Runs a command with its output in `logFile`; on failure the error carries the log's end. */
function exec(command, args, { cwd, logFile }) {
  const out = createWriteStream(logFile, { flags: 'a' });
  return new Promise((resolveExec, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', reject);
    child.on('close', (code) => out.end(() => {
      if (code === 0) return resolveExec();
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
      reject(new Error(`${basename(args[0] ?? command)} exited with ${code} (log: ${logFile})\n${tail}`));
    }));
  });
}

/**
 * Peak memory of every process under this one (code-server, extension hosts, chromium), as the sum of
 * their proportional set sizes so that pages the processes share are counted once.
 */
function sampleMemory() {
  let peak = 0;
  const timer = setInterval(() => {
    let kb = 0;
    for (const pid of descendantPids(process.pid)) {
      try {
        kb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      } catch {
        // exited
      }
    }
    peak = Math.max(peak, kb / 1024);
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer), get peakMb() { return Math.round(peak); } };
}

function summarize(peakMb, burn) {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const seconds = (Date.now() - started) / 1000;
  console.log('\ne2e results:');
  for (const r of results) console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(32)} ${r.seconds.toFixed(1).padStart(6)} s`);
  console.log(`total ${seconds.toFixed(1)} s; peak memory of code-server, extension hosts and chromium: ${peakMb} MB`);
  if (burn) console.log(`CPU burner: ${burn.threads} threads spinning throughout (${burn.cpuSeconds} s of CPU in this process)`);
  console.log(`extension: ${EXT_DIR}; artifacts: ${RESULTS}`);
  // The reasons again, here at the end: a long log is often read from its tail only.
  for (const r of results) if (!r.ok) console.log(`FAIL ${r.name}: ${r.error}`);
  writeFileSync(join(RESULTS, 'summary.json'), JSON.stringify({ extension: EXT_DIR, seconds, peakMb, burn, results }, null, 2));
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed === 0 && results.length > 0 ? 0 : 1;
}

function log(message) {
  console.log(`[e2e +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}
