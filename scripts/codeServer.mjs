// Starts and stops code-server (a real VS Code server with a Node extension host, used from a browser)
// isolated from the user's own VS Code: HOME, TMPDIR and XDG_* point into a fresh temporary folder,
// with its own user data, extensions and settings.
//
// The server runs with the smoke-test driver enabled: only then does the workbench honour the URL's
// `payload` (extensionDevelopmentPath, extensionTestsPath, extensionEnvironment), and it reports a test
// run's end through `window.codeAutomationExit`. It also suppresses notification toasts: notifications
// are in the Notification Center instead.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const HEALTH_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** Settings that keep the workbench quiet and offline; `security.workspace.trust.enabled` is set per server. */
const BASE_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'extensions.autoCheckUpdates': false,
  // An enum now; a boolean would be migrated by rewriting settings.json during start-up.
  'extensions.autoUpdate': 'off',
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'git.enabled': false,
};

/** Servers not yet stopped, killed outright if this process exits without stopping them. */
const live = new Set();
let exitHookInstalled = false;

/**
 * @typedef {object} CodeServerOptions
 * @property {string} node Node 24 binary (see scripts/toolchain.mjs).
 * @property {string} entry code-server's `out/node/entry.js`.
 * @property {boolean} [trust] Enable workspace trust (default false: every folder is trusted).
 * @property {string} [host] Address to bind (default 127.0.0.1).
 * @property {number} [port] Port to bind (default: a free one).
 * @property {Record<string, unknown>} [settings] User settings added to the defaults (the browser's own settings.json).
 * @property {Record<string, unknown>} [machineSettings] Settings of the server's machine (`Machine/settings.json`): the
 *   workbench is a remote window, as with Remote SSH or a container, and reads `machine`-scoped settings only from there.
 * @property {Record<string, string>} [env] Extra environment for the server and its extension hosts.
 * @property {string[]} [vsix] `.vsix` files to install before the server starts.
 * @property {boolean} [devPayload] Honour `payload` in workbench URLs (extensionDevelopmentPath, tests); default true.
 *   It needs VS Code's smoke-test driver, which also hides notification toasts: turn it off to use
 *   installed extensions the way a user sees them.
 * @property {string} [logsDir] Where to write code-server's output and, on stop, copy VS Code's logs.
 */

/**
 * @typedef {object} WorkbenchUrlOptions
 * @property {string} [folder] Absolute path of the folder to open.
 * @property {string} [extensionDevelopmentPath] Absolute path of an extension to load from source.
 * @property {string} [extensionTestsPath] Absolute path of a module exporting `run()`, run in the extension host.
 * @property {Record<string, string>} [extensionEnvironment] Environment variables for the extension host.
 */

/**
 * A running code-server.
 * @typedef {object} CodeServer
 * @property {string} url Origin, e.g. `http://127.0.0.1:39123`.
 * @property {number} port
 * @property {number} pid
 * @property {string} root Temporary folder holding HOME, user data and extensions; removed on stop.
 * @property {string} userDataDir
 * @property {string} extensionsDir
 * @property {string} logFile code-server's own output.
 * @property {Promise<{ code: number | null, signal: string | null, error?: Error }>} exited Settles when the server process exits.
 * @property {(options?: WorkbenchUrlOptions) => string} workbenchUrl
 * @property {() => Promise<void>} stop Stops the server and every process under it; safe to call twice.
 */

/**
 * Starts code-server and resolves once `/healthz` answers.
 * @param {CodeServerOptions} options
 * @returns {Promise<CodeServer>}
 */
export async function startCodeServer(options) {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const dirs = makeSandbox(options);
  try {
    for (const vsix of options.vsix ?? []) {
      installVsix({ ...options, vsix, extensionsDir: dirs.extensionsDir, userDataDir: dirs.userDataDir, env: dirs.env });
    }
  } catch (error) {
    rmSync(dirs.root, { recursive: true, force: true });
    throw error;
  }

  const args = [
    options.entry,
    '--config', join(dirs.root, 'config.yaml'),
    '--bind-addr', `${host}:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    // Each page load starts an extension host; a short grace time stops closed ones lingering.
    '--reconnection-grace-time', '5',
    '--user-data-dir', dirs.userDataDir,
    '--extensions-dir', dirs.extensionsDir,
  ];
  if (options.devPayload ?? true) args.push('--vscode-option', 'enable-smoke-test-driver');
  if (!options.trust) args.push('--disable-workspace-trust');

  const logFile = join(options.logsDir ?? dirs.root, options.logsDir ? `code-server-${port}.log` : 'code-server.log');
  mkdirSync(dirname(logFile), { recursive: true });
  const out = createWriteStream(logFile);
  // Own process group, so that stopping can reach every process under it.
  const child = spawn(options.node, args, { env: dirs.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  // /healthz alone could be answered by another server already on the port.
  const listening = new Promise((r) => {
    const watch = (chunk) => { if (chunk.includes('HTTP server listening on')) r(); };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
  });
  const exited = new Promise((r) => {
    child.once('exit', (code, signal) => r({ code, signal }));
    child.once('error', (error) => r({ code: null, signal: null, error }));
  });
  const server = {
    url: `http://${host}:${port}`,
    port,
    pid: child.pid,
    root: dirs.root,
    userDataDir: dirs.userDataDir,
    extensionsDir: dirs.extensionsDir,
    logFile,
    exited,
    workbenchUrl: (urlOptions) => workbenchUrl(`http://${host}:${port}`, urlOptions),
    stop: once(() => stopServer(server, { child, exited, out, dirs, logsDir: options.logsDir })),
  };
  live.add(server);
  installExitHook();
  try {
    await waitHealthy(server.url, listening, exited);
  } catch (error) {
    const output = tail(logFile, 30);
    await server.stop();
    throw new Error(`${error.message}\n${output}`);
  }
  return server;
}

/**
 * The workbench URL that opens `folder` and loads the given extension from source. Payload entries are
 * `vscode-remote://` URIs whose authority is the host:port the browser uses.
 * @param {string} baseUrl code-server origin.
 * @param {WorkbenchUrlOptions} [options]
 */
export function workbenchUrl(baseUrl, { folder, extensionDevelopmentPath, extensionTestsPath, extensionEnvironment } = {}) {
  const base = new URL(baseUrl);
  const remote = (path) => `vscode-remote://${base.host}${resolve(path)}`;
  const payload = [];
  if (extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(extensionDevelopmentPath)]);
  if (extensionTestsPath) payload.push(['extensionTestsPath', remote(extensionTestsPath)]);
  if (extensionEnvironment) payload.push(['extensionEnvironment', JSON.stringify(extensionEnvironment)]);
  const query = [];
  if (folder) query.push(`folder=${encodeURIComponent(resolve(folder))}`);
  if (payload.length > 0) query.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
  return `${base.origin}/${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/**
 * Installs a `.vsix` into an extensions folder with code-server's own CLI (no server is started).
 * @param {{ node: string, entry: string, vsix: string, extensionsDir: string, userDataDir?: string, env?: NodeJS.ProcessEnv }} options
 * @returns {string} The CLI's output.
 */
export function installVsix({ node, entry, vsix, extensionsDir, userDataDir, env }) {
  const sandbox = env ? undefined : makeSandbox({ node });
  try {
    const args = [entry, '--install-extension', resolve(vsix), '--extensions-dir', extensionsDir,
      '--user-data-dir', userDataDir ?? sandbox.userDataDir, '--force'];
    const r = spawnSync(node, args, { env: env ?? sandbox.env, encoding: 'utf8', timeout: 120_000 });
    const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    if (r.status !== 0) throw new Error(`installing ${vsix} failed (exit ${r.status ?? r.signal}):\n${output}`);
    return output;
  } finally {
    if (sandbox) rmSync(sandbox.root, { recursive: true, force: true });
  }
}

/**
 * Extensions in a folder as code-server lists them: `publisher.name@version` lines.
 * @param {{ node: string, entry: string, extensionsDir: string }} options
 * @returns {string[]}
 */
export function listExtensions({ node, entry, extensionsDir }) {
  const sandbox = makeSandbox({ node });
  try {
    const r = spawnSync(node, [entry, '--list-extensions', '--show-versions', '--extensions-dir', extensionsDir,
      '--user-data-dir', sandbox.userDataDir], { env: sandbox.env, encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`listing extensions failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
    return r.stdout.split('\n').map((l) => l.trim()).filter((l) => /^[\w-]+\.[\w-]+@/.test(l));
  } finally {
    rmSync(sandbox.root, { recursive: true, force: true });
  }
}

/** A port that was free on `host` a moment ago. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** PIDs of every living process under `pid`, from /proc. */
export function descendantPids(pid) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command name: state, ppid, ...
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(name));
  }
  const found = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const c of children.get(queue.shift()) ?? []) {
      found.push(c);
      queue.push(c);
    }
  }
  return found;
}

function makeSandbox({ node, trust = false, settings = {}, machineSettings = {}, env = {} }) {
  const root = mkdtempSync(join(tmpdir(), 'mcp-harness-code-server-'));
  const home = join(root, 'home');
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  for (const d of [home, join(root, 'tmp'), join(userDataDir, 'User'), join(userDataDir, 'Machine'), extensionsDir]) {
    mkdirSync(d, { recursive: true });
  }
  const all = JSON.stringify({ ...BASE_SETTINGS, 'security.workspace.trust.enabled': trust, ...settings }, null, 2);
  writeFileSync(join(userDataDir, 'User', 'settings.json'), all);
  writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machineSettings, null, 2));
  // An empty config keeps code-server from writing one with a generated password into HOME.
  writeFileSync(join(root, 'config.yaml'), '');
  // Variables a VS Code terminal sets would make the server talk to that VS Code instead.
  const inherited = Object.fromEntries(Object.entries(process.env)
    .filter(([k]) => !k.startsWith('VSCODE_') && k !== 'ELECTRON_RUN_AS_NODE' && k !== 'XDG_RUNTIME_DIR'));
  return {
    root, userDataDir, extensionsDir,
    env: {
      ...inherited,
      HOME: home,
      TMPDIR: join(root, 'tmp'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      // Extension hosts and the processes they start find the same Node first.
      PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
      ...env,
    },
  };
}

async function waitHealthy(url, listening, exited) {
  let exit;
  let bound = false;
  exited.then((e) => { exit = e; });
  listening.then(() => { bound = true; });
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exit) throw new Error(`code-server exited during start-up (${exit.error?.message ?? `code ${exit.code}, signal ${exit.signal}`})`);
    if (bound) {
      try {
        const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) return;
      } catch {
        // not answering yet
      }
    }
    await sleep(100);
  }
  throw new Error(`code-server did not answer ${url}/healthz within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

/**
 * SIGTERM to the server, then to whatever it left behind, then SIGKILL. Descendants are tracked while
 * the server lives because once it exits they are re-parented and can no longer be found from it.
 */
async function stopServer(server, { child, exited, out, dirs, logsDir }) {
  const seen = new Set(descendantPids(server.pid));
  let done = false;
  exited.then(() => { done = true; });
  signal(server.pid, 'SIGTERM');
  for (const deadline = Date.now() + STOP_GRACE_MS; !done && Date.now() < deadline; await sleep(100)) {
    for (const p of descendantPids(server.pid)) seen.add(p);
  }
  if (!done) child.kill('SIGKILL');
  await exited;
  // Left alone, an orphaned extension host would wait out the reconnection grace time.
  for (const p of seen) signal(p, 'SIGTERM');
  for (const deadline = Date.now() + STOP_GRACE_MS; [...seen].some(isAlive) && Date.now() < deadline;) await sleep(100);
  for (const p of seen) signal(p, 'SIGKILL');
  signal(-server.pid, 'SIGKILL');
  live.delete(server);
  await new Promise((r) => out.end(r));
  if (logsDir && existsSync(join(dirs.userDataDir, 'logs'))) {
    cpSync(join(dirs.userDataDir, 'logs'), join(logsDir, `vscode-logs-${server.port}`), { recursive: true });
  }
  if (!process.env.MCP_HARNESS_KEEP_SERVER_DIR) rmSync(dirs.root, { recursive: true, force: true });
}

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const server of live) {
      for (const p of descendantPids(server.pid)) signal(p, 'SIGKILL');
      signal(-server.pid, 'SIGKILL');
    }
  });
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    // A zombie still answers kill(0); it is no longer running.
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function once(fn) {
  let result;
  return () => (result ??= fn());
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
