import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import type { McpLogEntry } from '../../src/core/mcp/McpServerSnapshot';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { referenceServers, repoPath, tempDir, writeJson } from '../support/servers';

// Sandboxed stdio servers, for real: bubblewrap through @anthropic-ai/sandbox-runtime, run by the
// bundled launcher (`npm run build` makes dist/sandbox-launcher.mjs). A probe server tries what the
// sandbox governs; the reference servers run with `"sandbox": true` and still answer.
const LAUNCHER = repoPath('dist/sandbox-launcher.mjs');
const PROBE = repoPath('test/fixtures/servers/sandboxProbe.mjs');

describe.runIf(process.platform === 'linux')('sandboxed stdio servers', () => {
  const tag = processTag();
  const tmp = tempDir('sandbox-');
  const ws = path.join(tmp.dir, 'ws');
  const secrets = path.join(tmp.dir, 'secrets');
  const logs: McpLogEntry[] = [];
  const listeners: http.Server[] = [];
  let harness: McpHarness;
  let allowedPort: number;
  let deniedPort: number;

  const logOf = (server: string) => logs.filter((e) => e.server === server).map((e) => e.message).join('\n');
  const call = (server: string, tool: string, args: Record<string, unknown>) => harness.callTool(`mcp__${server}__${tool}`, args);
  const waitForLog = async (server: string, pattern: RegExp) => {
    for (let i = 0; i < 100 && !pattern.test(logOf(server)); i++) await new Promise((r) => setTimeout(r, 50));
    return logOf(server);
  };

  beforeAll(async () => {
    expect(fs.existsSync(LAUNCHER), 'run `npm run build` first').toBe(true);
    fs.mkdirSync(path.join(ws, 'out'), { recursive: true });
    fs.mkdirSync(secrets);
    fs.writeFileSync(path.join(secrets, 'key.txt'), 'top secret\n');
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'workspace notes\n');
    for (const body of ['allowed', 'denied']) {
      const server = http.createServer((_req, res) => res.end(`hello from the ${body} port`));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      listeners.push(server);
    }
    allowedPort = (listeners[0].address() as { port: number }).port;
    deniedPort = (listeners[1].address() as { port: number }).port;
    const node = process.execPath;
    writeJson(ws, '.mcp.json', {
      mcpServers: {
        probe: {
          command: node,
          args: [PROBE],
          env: tag.env,
          sandbox: { filesystem: { allowWrite: ['out'], denyRead: [secrets] }, network: { allowedDomains: [`127.0.0.1:${allowedPort}`] } },
        },
        everything: { command: node, args: [referenceServers.everything], env: tag.env, sandbox: true },
        filesystem: { command: node, args: [referenceServers.filesystem, ws], env: tag.env, sandbox: true },
        memory: { command: node, args: [referenceServers.memory], env: { ...tag.env, MEMORY_FILE_PATH: path.join(ws, 'memory.jsonl') }, sandbox: true },
      },
    });
    harness = await createHarness({ workspaceFolder: ws, sandboxLauncher: LAUNCHER, autoStart: false });
    harness.onDidLog((e) => logs.push(e));
    await Promise.all(harness.servers().map((s) => harness.startServer(s.name)));
  }, 60_000);

  afterAll(async () => {
    await harness?.dispose();
    for (const server of listeners) server.close();
    expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
    tmp.cleanup();
  });

  it('starts every sandboxed server and logs what each may reach', () => {
    expect(harness.servers().map((s) => [s.name, s.state, s.error])).toEqual([
      ['probe', 'running', undefined],
      ['everything', 'running', undefined],
      ['filesystem', 'running', undefined],
      ['memory', 'running', undefined],
    ]);
    expect(logOf('probe')).toContain(`may write ${path.join(ws, 'out')}; may connect to 127.0.0.1:${allowedPort}`);
    expect(logOf('everything')).toContain('may write nowhere; may connect to nothing');
  });

  it('lets the probe read the workspace but not a folder outside its allowance', async () => {
    expect((await call('probe', 'read_file', { path: path.join(ws, 'notes.txt') })).text).toBe('workspace notes\n');
    const secret = await call('probe', 'read_file', { path: path.join(secrets, 'key.txt') });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain('top secret');
    // bubblewrap hides a read-denied folder (the file is not there), which the kernel does not
    // report; the server's own complaint is what the log shows.
    expect(await waitForLog('probe', /probe failed: ENOENT.*key\.txt/)).toMatch(/probe failed: ENOENT.*key\.txt/);
  });

  it('refuses a write in the workspace, logs it, and allows one in allowWrite', async () => {
    const refused = await call('probe', 'write_file', { path: path.join(ws, 'planted.txt'), text: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('EROFS');
    expect(fs.existsSync(path.join(ws, 'planted.txt'))).toBe(false);
    expect(await waitForLog('probe', /sandbox: refused to write .*planted\.txt/)).toContain(`sandbox: refused to write ${path.join(ws, 'planted.txt')}`);
    const allowed = await call('probe', 'write_file', { path: path.join(ws, 'out', 'ok.txt'), text: 'kept' });
    expect(allowed.isError).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'out', 'ok.txt'), 'utf8')).toBe('kept');
  });

  it('reaches the allowed loopback port, is refused another, and logs the refusal', async () => {
    expect((await call('probe', 'fetch_port', { port: allowedPort })).text).toBe('hello from the allowed port');
    const refused = await call('probe', 'fetch_port', { port: deniedPort });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('HTTP 403');
    expect(await waitForLog('probe', /refused a connection/)).toContain(`sandbox: refused a connection to 127.0.0.1:${deniedPort} (host is not on the allow list)`);
    // Around the proxy there is no network at all: the sandbox has a network namespace of its own.
    const direct = await call('probe', 'connect_direct', { port: allowedPort });
    expect(direct.isError).toBe(true);
    expect(direct.text).toMatch(/ECONNREFUSED|ENETUNREACH/);
  });

  it('runs the reference servers with "sandbox": true and they still answer', async () => {
    expect((await call('everything', 'echo', { message: 'boxed' })).text).toBe('Echo: boxed');
    const listing = await call('filesystem', 'list_directory', { path: ws });
    expect(listing.isError).toBe(false);
    expect(listing.text).toContain('notes.txt');
    const write = await call('filesystem', 'write_file', { path: path.join(ws, 'fs.txt'), content: 'x' });
    expect(write.isError).toBe(true);
    expect(fs.existsSync(path.join(ws, 'fs.txt'))).toBe(false);
    const graph = await call('memory', 'read_graph', {});
    expect(graph.isError).toBe(false);
    expect(graph.text).toContain('entities');
  });

  it('stops a sandboxed server with its whole tree, and starts it again', async () => {
    await harness.stopServer('probe');
    expect(harness.servers().find((s) => s.name === 'probe')!.state).toBe('stopped');
    await harness.startServer('probe');
    expect((await call('probe', 'read_file', { path: path.join(ws, 'notes.txt') })).text).toBe('workspace notes\n');
  });
});

describe('a sandboxed server where sandboxing is unavailable', () => {
  const tmp = tempDir('sandbox-missing-');
  afterAll(() => tmp.cleanup());

  it('is not started, and says why', async () => {
    const ws = path.join(tmp.dir, 'ws');
    const marker = path.join(tmp.dir, 'ran');
    writeJson(ws, '.mcp.json', { mcpServers: { boxed: { command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`], sandbox: true } } });
    const harness = await createHarness({ workspaceFolder: ws, sandboxLauncher: path.join(tmp.dir, 'no-launcher.mjs') });
    try {
      const [server] = harness.servers();
      expect(server.state).toBe('error');
      expect(server.error).toMatch(/"sandbox" is set and .*the server is not started \(it never runs unsandboxed\)/);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      await harness.dispose();
    }
  });
});
