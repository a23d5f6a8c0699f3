#!/usr/bin/env node
// Installs what running a real VS Code needs, outside the project, once:
//   - Debian packages: chromium and fonts (the browser that drives the workbench), bubblewrap, socat
//     and ripgrep (the sandbox of sandboxed servers), and the compilers
//     and headers code-server's native modules build with;
//   - Node 24 from the npm registry (code-server's postinstall accepts only the Node major it targets);
//   - code-server, compiled against that Node, in ${MCP_HARNESS_CACHE:-~/.cache/mcp-harness}.
// code-server stays out of package.json: its postinstall breaks `npm ci` on the project's Node 20.
// Every install runs with `cleanInstallEnv()`: nothing an outer `npm run` set reaches it. A failed
// install removes its staging folder and says which log to read and what to run to retry.
//
// CLI: `node scripts/toolchain.mjs [--node24 | --all]` prints KEY=VALUE lines on stdout (progress goes
// to stderr), so a shell can `eval "$(node scripts/toolchain.mjs --node24)"`.
// Module: `await ensureToolchain({ codeServer: true })`.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE24_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1'; // bundles VS Code 1.139.1
/** The MCP Inspector, a second client of `serve` in the tests; it needs Node 22.19 or later, so it runs on Node 24. */
export const INSPECTOR_VERSION = '2.12.0';

/** Debian packages by what proves they are present; `browser` ones are all the tests outside VS Code need. */
const APT_PACKAGES = [
  { name: 'chromium', present: () => hasCommand('chromium'), browser: true },
  { name: 'fonts-liberation', present: () => hasDebian('fonts-liberation'), browser: true },
  // What @anthropic-ai/sandbox-runtime needs on Linux: the tests run sandboxed servers.
  { name: 'bubblewrap', present: () => hasCommand('bwrap'), browser: true },
  { name: 'socat', present: () => hasCommand('socat'), browser: true },
  { name: 'ripgrep', present: () => hasCommand('rg'), browser: true },
  { name: 'libkrb5-dev', present: () => hasDebian('libkrb5-dev') },
  { name: 'build-essential', present: () => hasCommand('g++') && hasCommand('make') },
  { name: 'pkg-config', present: () => hasCommand('pkg-config') },
  { name: 'python3', present: () => hasCommand('python3') },
];

/** Longer than any install takes; a lock this old is left over. */
const LOCK_STALE_MS = 30 * 60_000;

/** Where the toolchain lives; shared by every checkout of the project on this machine. */
export function cacheDir() {
  return process.env.MCP_HARNESS_CACHE || join(homedir(), '.cache', 'mcp-harness');
}

/**
 * Makes sure Node 24 (with `inspector`, the MCP Inspector; with `browser`, Debian's chromium and its
 * fonts; unless `codeServer` is false, every Debian package and code-server) are installed. Safe to call from several processes at once: installs
 * are serialised by a lock in the cache and each lands by an atomic rename.
 * @param {{ codeServer?: boolean, inspector?: boolean, browser?: boolean, log?: (line: string) => void }} [options]
 * @returns {Promise<{ cache: string, node24: string, inspector?: string, codeServer?: string, chromium?: string }>}
 */
export async function ensureToolchain({ codeServer = true, inspector = false, browser = false, log = (l) => process.stderr.write(`[toolchain] ${l}\n`) } = {}) {
  const cache = cacheDir();
  mkdirSync(join(cache, 'logs'), { recursive: true });
  const release = await acquireLock(join(cache, '.lock'), log);
  try {
    if (codeServer || browser) await installAptPackages(cache, log, codeServer ? APT_PACKAGES : APT_PACKAGES.filter((p) => p.browser));
    const node24 = await ensureNode24(cache, log);
    const tools = inspector ? { inspector: await ensureInspector(cache, node24, log) } : {};
    if (!codeServer) return { cache, node24, ...tools };
    const entry = await ensureCodeServer(cache, node24, log);
    return { cache, node24, ...tools, codeServer: entry, chromium: process.env.CHROMIUM || '/usr/bin/chromium' };
  } finally {
    release();
  }
}

async function installAptPackages(cache, log, packages) {
  const missing = packages.filter((p) => !p.present()).map((p) => p.name);
  if (missing.length === 0) return;
  const command = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages; run: sudo ${command}`);
  }
  log(`apt-get install ${missing.join(' ')}`);
  const logFile = join(cache, 'logs', 'apt.log');
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  // apt leaves nothing a later run would take for complete: each package's presence is checked anew.
  try {
    await runLogged('apt-get', ['update'], { env, logFile });
    await runLogged('apt-get', ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=300', ...missing], { env, logFile, append: true });
  } catch (error) {
    throw installError(`installing the Debian packages ${missing.join(' ')}`, error, logFile, `${retryCommand()} (or: sudo ${command})`);
  }
}

async function ensureNode24(cache, log) {
  const pkg = `node-linux-${process.arch}`;
  const dir = join(cache, `node-${NODE24_VERSION}`);
  const bin = join(dir, 'node_modules', pkg, 'bin', 'node');
  if (existsSync(join(dir, '.ok')) && existsSync(bin)) return bin;
  log(`installing ${pkg}@${NODE24_VERSION}`);
  await installPackage(dir, `${pkg}@${NODE24_VERSION}`, { logFile: join(cache, 'logs', `node-${NODE24_VERSION}.log`) });
  return bin;
}

/** The environment that makes `npm` (and what it runs) use Node 24, so its packages' engines are met. */
function node24Env(node24) {
  const nodeHome = join(node24, '..', '..');
  return { PATH: `${join(nodeHome, 'bin')}:${cleanInstallEnv().PATH ?? ''}`, npm_config_nodedir: nodeHome };
}

async function ensureInspector(cache, node24, log) {
  const dir = join(cache, `inspector-${INSPECTOR_VERSION}`);
  const entry = join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  if (existsSync(join(dir, '.ok')) && existsSync(entry)) return entry;
  log(`installing @modelcontextprotocol/inspector@${INSPECTOR_VERSION}`);
  await installPackage(dir, `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, {
    env: node24Env(node24),
    logFile: join(cache, 'logs', `inspector-${INSPECTOR_VERSION}.log`),
  });
  return entry;
}

async function ensureCodeServer(cache, node24, log) {
  const dir = join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const entry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (existsSync(join(dir, '.ok')) && existsSync(entry)) return entry;
  log(`installing code-server@${CODE_SERVER_VERSION} (compiles native modules: about 3 minutes on 2 cores)`);
  // node-gyp must build against Node 24's own headers; without nodedir it tries to download them.
  const env = { ...node24Env(node24), JOBS: 'max' };
  await installPackage(dir, `code-server@${CODE_SERVER_VERSION}`, {
    env,
    allowScripts: { 'code-server': true, argon2: true },
    logFile: join(cache, 'logs', `code-server-${CODE_SERVER_VERSION}.log`),
  });
  return entry;
}

/**
 * The environment for an install this script launches: the caller's, without what npm sets for a
 * script it runs. An outer `npm start` / `npm run ...` on the project's Node 20 exports `npm_config_*`
 * (among them `npm_config_user_agent`, from which code-server's postinstall reads the Node version),
 * `npm_package_*`, `npm_lifecycle_*`, `npm_execpath`, `INIT_CWD`, `NODE` and puts the project's
 * `node_modules/.bin` folders and its own node-gyp shim first on PATH; an inner npm would take all of
 * that as its own configuration. Without an outer npm there is nothing to remove.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {NodeJS.ProcessEnv}
 */
export function cleanInstallEnv(env = process.env) {
  const fromNpm = Object.keys(env).some((k) => /^npm_/i.test(k));
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || /^npm_/i.test(key)) continue;
    // Set by npm for its scripts; outside npm they are the user's own.
    if (fromNpm && NPM_SCRIPT_VARIABLES.has(key)) continue;
    clean[key] = value;
  }
  if (fromNpm && clean.PATH !== undefined) {
    clean.PATH = clean.PATH.split(delimiter)
      .filter((entry) => !(basename(entry) === '.bin' && basename(dirname(entry)) === 'node_modules') && !entry.endsWith(join('run-script', 'lib', 'node-gyp-bin')))
      .join(delimiter);
  }
  return clean;
}

/** Variables npm sets (besides `npm_*`) in the environment of a script it runs. */
const NPM_SCRIPT_VARIABLES = new Set(['INIT_CWD', 'NODE', 'COLOR', 'EDITOR']);

/**
 * `npm install spec` into a fresh sibling folder `dir.partial-PID`, then renames it to `dir` with an
 * `.ok` marker inside. On failure the staging folder is removed and the error names the package, the
 * log file and the command that retries, so nothing half-installed is left for a later run to take
 * for complete.
 * @param {string} dir Final folder.
 * @param {string} spec npm package spec.
 * @param {{ env?: Record<string, string>, allowScripts?: Record<string, boolean>, logFile: string, retry?: string }} options
 *   `env`: variables added to the clean environment; `retry`: the command that retries (default `npm run toolchain`).
 */
export async function installPackage(dir, spec, { env = {}, allowScripts = {}, logFile, retry = retryCommand() }) {
  mkdirSync(dirname(dir), { recursive: true });
  // Under the lock, any earlier staging folder belongs to an interrupted install.
  for (const name of readdirSync(dirname(dir))) {
    if (name.startsWith(`${basename(dir)}.partial-`)) rmSync(join(dirname(dir), name), { recursive: true, force: true });
  }
  const staging = `${dir}.partial-${process.pid}`;
  const started = Date.now();
  try {
    mkdirSync(join(staging, '.tmp'), { recursive: true });
    writeFileSync(join(staging, 'package.json'), JSON.stringify({ name: 'mcp-harness-toolchain', private: true, allowScripts }));
    await runLogged('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', spec], {
      cwd: staging, env: { ...env, TMPDIR: join(staging, '.tmp') }, logFile,
    });
    rmSync(join(staging, '.tmp'), { recursive: true, force: true });
    writeFileSync(join(staging, '.ok'), `${spec} installed in ${Math.round((Date.now() - started) / 1000)} s\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw installError(`installing ${spec}`, error, logFile, retry);
  }
}

/**
 * Runs an install command with the clean environment plus `env`, its output in `logFile`.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, logFile: string, append?: boolean }} options
 * @returns {Promise<void>} Rejects when the command cannot start or exits non-zero.
 */
export function runLogged(command, args, { cwd, env = {}, logFile, append = false }) {
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, `$ ${command} ${args.join(' ')}\n`, { flag: append ? 'a' : 'w' });
  const out = createWriteStream(logFile, { flags: 'a' });
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...cleanInstallEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    let failed;
    child.on('error', (error) => { failed = error; });
    child.on('close', (code, signal) => out.end(() => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} ${failed ? `could not start (${failed.message})` : `exited with ${code ?? signal}`}`, { cause: failed }));
    }));
  });
}

/** The command that retries the installs, with the cache folder when it is not the default. */
function retryCommand() {
  return process.env.MCP_HARNESS_CACHE ? `MCP_HARNESS_CACHE=${shellQuote(process.env.MCP_HARNESS_CACHE)} npm run toolchain` : 'npm run toolchain';
}

/** The error an install failure ends in: what failed, the end of its log, where the log is, how to retry. */
function installError(what, error, logFile, retry) {
  let tail = '';
  try {
    tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-20).map((l) => `    ${l}`).join('\n');
  } catch {
    // no log written
  }
  return new Error([
    `${what} failed: ${error.message}`,
    ...(tail ? ['  end of the log:', tail] : []),
    `  full log: ${logFile}`,
    '  nothing was kept: the next run starts this install afresh',
    `  retry: ${retry}`,
  ].join('\n'), { cause: error });
}

/** A lock folder holding the owner's PID; a lock whose owner is gone or that is too old is taken over. */
async function acquireLock(lockDir, log) {
  let waitingSaid = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (isStale(lockDir)) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!waitingSaid) log(`waiting for another install to finish (${lockDir})`);
    waitingSaid = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The owner is gone, or has held the lock far longer than an install takes (its PID may have been reused). */
function isStale(lockDir) {
  let pid;
  let age;
  try {
    pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    age = Date.now() - statSync(lockDir).mtimeMs;
  } catch {
    return false; // just created; the owner has not written its PID yet
  }
  if (age > LOCK_STALE_MS) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function hasDebian(name) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function shellQuote(value) {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

async function main(argv) {
  const unknown = argv.filter((a) => a !== '--node24' && a !== '--all' && a !== '--test-tools');
  if (unknown.length > 0) {
    process.stderr.write('usage: node scripts/toolchain.mjs [--node24 | --test-tools | --all]\n');
    return 2;
  }
  const testTools = argv.includes('--test-tools');
  // The unit and integration tests drive the Inspector (on Node 24) and a headless chromium.
  const result = await ensureToolchain({ codeServer: !argv.includes('--node24') && !testTools, inspector: testTools || argv.includes('--all'), browser: testTools });
  const lines = [['MCP_HARNESS_CACHE', result.cache], ['N24', result.node24]];
  if (result.inspector) lines.push(['INSPECTOR', result.inspector]);
  if (result.codeServer) lines.push(['CODE_SERVER', result.codeServer], ['CHROMIUM', result.chromium]);
  for (const [key, value] of lines) process.stdout.write(`${key}=${shellQuote(value)}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (error) => { process.stderr.write(`[toolchain] ${error.message}\n`); process.exitCode = 1; },
  );
}
