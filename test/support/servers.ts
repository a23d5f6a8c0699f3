import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

const root = path.resolve(__dirname, '../..');

/** Absolute path of a file inside the repository. */
export function repoPath(...parts: string[]): string {
  return path.join(root, ...parts);
}

/** Entry script of an installed reference server. */
export const referenceServers = {
  everything: repoPath('node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
  filesystem: repoPath('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'),
  memory: repoPath('node_modules/@modelcontextprotocol/server-memory/dist/index.js'),
};

export const fixtureServer = repoPath('test/fixtures/servers/fixture.mjs');
/** A dependency-free server (see its header), for lies the SDK would not let a server tell. */
export const minimalServer = repoPath('test/fixtures/servers/minimal.mjs');

/** A stdio config entry running our fixture server with the given flags. */
export function fixtureEntry(flags: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [fixtureServer, ...flags], ...extra };
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = 'mcp-harness-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `content` as JSON to `dir/rel`, creating folders. Returns the absolute path. */
export function writeJson(dir: string, rel: string, content: unknown): string {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(content, null, 2));
  return file;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free TCP port on 127.0.0.1 below the kernel's ephemeral range (32768 and up on Linux), for a
 * server that must come back on the same port: while it is down, no `listen(0)` or outgoing
 * connection elsewhere on the machine can take the port meanwhile.
 */
export async function freeFixedPort(): Promise<number> {
  const net = await import('node:net');
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/**
 * Starts a long-running process and waits until its output matches `ready`.
 * The process runs in its own group so `stop()` ends everything it started.
 */
export async function startProcess(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; ready: RegExp; timeoutMs?: number },
): Promise<{ child: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const child = spawn(command, args, { env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within ${options.timeoutMs ?? 15000} ms:\n${output}`)), options.timeoutMs ?? 15000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (options.ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await exited;
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return { child, output: () => output, stop };
}
