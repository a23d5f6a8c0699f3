import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, repoPath, tempDir, writeJson } from '../support/servers';
import { cli, requireBuiltCli } from './serveSupport';

// However a host ends, no server it started keeps running. The fixture here ignores both the end
// of its stdin and SIGTERM (as some real servers do), so only a kill of its group ends it; and each
// server runs in a process group of its own, so no signal sent to the host reaches it.
const tag = processTag();
const tmp = tempDir('host-death-');
const STUBBORN = fixtureEntry(['--ignore-sigterm'], { env: tag.env });

afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

/** Starts `args` under node and resolves once its output matches `ready`. */
function startHost(args: string[], ready: RegExp, cwd = repoPath()): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...tag.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host not ready within 30 s:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`host exited (${code ?? signal}) before it was ready:\n${out}`)));
  });
}

const exited = (child: ChildProcess) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
const serverAlive = () => tag.alive().length > 0;

describe('a library host (createHarness)', () => {
  const ws = `${tmp.dir}/lib`;
  writeJson(ws, '.mcp.json', { mcpServers: { stubborn: STUBBORN } });
  const script = `
    const { createHarness } = require('mcp-harness/core');
    createHarness({ workspaceFolder: ${JSON.stringify(ws)} }).then((h) => {
      const s = h.servers()[0];
      console.log('state ' + s.state);
      setInterval(() => {}, 1000);
    });`;

  it.each(['SIGKILL', 'SIGTERM'] as const)('killed with %s leaves no server running', async (signal) => {
    const host = await startHost(['-e', script], /state running/);
    expect(serverAlive()).toBe(true);
    host.kill(signal);
    await exited(host);
    expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  });
});

// A sandboxed server runs under the sandbox launcher, bubblewrap and the runtime's proxy bridges:
// the same kill of the host's groups must reach everything inside the sandbox too.
describe.runIf(process.platform === 'linux')('a library host with a sandboxed server', () => {
  const ws = `${tmp.dir}/sandboxed`;
  writeJson(ws, '.mcp.json', { mcpServers: { stubborn: { ...STUBBORN, sandbox: true } } });
  const script = `
    const { createHarness } = require('mcp-harness/core');
    createHarness({ workspaceFolder: ${JSON.stringify(ws)} }).then((h) => {
      const s = h.servers()[0];
      console.log('state ' + s.state + ' ' + (s.error ?? ''));
      setInterval(() => {}, 1000);
    });`;

  it.each(['SIGKILL', 'SIGTERM'] as const)('killed with %s leaves nothing of the sandbox running', async (signal) => {
    const host = await startHost(['-e', script], /state running/);
    expect(serverAlive()).toBe(true);
    host.kill(signal);
    await exited(host);
    expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  });
});

describe('mcp-harness serve --gateway', () => {
  const ws = `${tmp.dir}/serve`;
  writeJson(ws, '.harness/mcp.json', { servers: { stubborn: STUBBORN } });

  it.each([
    ['SIGKILL', [['SIGKILL', 0]]],
    // How one real client ends a stdio server: SIGINT, SIGTERM 100 ms later, SIGKILL 300 ms later.
    ['SIGINT, SIGTERM, SIGKILL', [['SIGINT', 0], ['SIGTERM', 100], ['SIGKILL', 200]]],
  ] as const)('ended with %s leaves no server running', async (_name, steps) => {
    requireBuiltCli();
    const host = await startHost([cli, 'serve', '--gateway', '--workspace', ws], /offering \d+ tools?:.*mcp__stubborn__echo/);
    expect(serverAlive()).toBe(true);
    for (const [signal, delay] of steps) {
      await new Promise((r) => setTimeout(r, delay));
      if (host.exitCode === null && host.signalCode === null) host.kill(signal);
    }
    await exited(host);
    expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  });
});
