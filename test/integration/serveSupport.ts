import * as fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpHarness } from '../../src/core';
import { repoPath, startProcess } from '../support/servers';

/** The built CLI, what users run. */
export const cli = repoPath('dist/cli.js');

export function requireBuiltCli(): void {
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
}

const stderrLines = new WeakMap<McpHarness, string[]>();

/** Our own client, connected to `serve` through one config entry named `h`. */
export async function harnessFor(entry: Record<string, unknown>): Promise<McpHarness> {
  const harness = new McpHarness({ userServers: { label: 'test', jsonPath: 'servers', entries: { h: entry } }, reconnectDelaysMs: [] });
  const lines: string[] = [];
  stderrLines.set(harness, lines);
  harness.onDidLog((e) => e.source === 'stderr' && lines.push(e.message));
  await harness.start();
  const server = harness.servers()[0];
  if (server.state !== 'running') {
    await harness.dispose();
    throw new Error(`serve did not come up: ${server.error ?? server.state}\n${server.stderrTail.join('\n')}`);
  }
  return harness;
}

/** What the server behind `harnessFor`'s entry wrote to stderr so far. */
export function serverStderr(harness: McpHarness): string {
  return (stderrLines.get(harness) ?? []).join('\n');
}

/**
 * A bare SDK client straight to a `serve` (a command, or a URL with headers): past our own
 * client's registry and pipeline, so the server itself must refuse what it does not offer.
 */
export async function rawClientFor(entry: { command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> }): Promise<Client> {
  const client = new Client({ name: 'raw-test-client', version: '1.0.0' });
  const transport = entry.url
    ? new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers ?? {} } })
    : new StdioClientTransport({ command: entry.command!, args: entry.args ?? [], env: { ...process.env, ...entry.env } as Record<string, string>, stderr: 'ignore' });
  await client.connect(transport);
  return client;
}

/** `serve --http` as a child process; resolves once it listens. */
export async function startHttpServe(args: string[], env: Record<string, string>) {
  const proc = await startProcess(process.execPath, [cli, 'serve', ...args], { env, ready: /serving MCP on (http:\S+)/ });
  const url = /serving MCP on (http:\S+)/.exec(proc.output())![1];
  return { ...proc, url };
}

/** Resolves when `check()` holds, re-checking on every harness change. */
export function whenHarness(harness: McpHarness, check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      listener.dispose();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const listener = harness.onDidChange(() => {
      if (!check()) return;
      clearTimeout(timer);
      listener.dispose();
      resolve();
    });
  });
}

/** Reads the JSON lines of an audit file. */
/** The audit lines `match` accepts, once there is one: the serving process writes its log behind the answers it sends. */
export async function auditLinesWhen(file: string, match: (line: Record<string, unknown>) => boolean, what: string, timeoutMs = 10_000): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = auditLines(file).filter(match);
    if (lines.length > 0) return lines;
    if (Date.now() > deadline) throw new Error(`no audit line for ${what} in ${file} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function auditLines(file: string): Record<string, unknown>[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
