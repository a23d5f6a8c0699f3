import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import type { McpHarnessApi } from '../../../src/extension/McpHarnessExtension';
import { AWAITING_APPROVAL } from '../../../src/extension/ServerApprovals';

const EXTENSION_ID = 'mcp-harness.mcp-harness';

// Runs inside a real extension host with the fixture workspace (test/e2e/fixtures/workspace, copied
// to a scratch folder by the runner) open. Its .mcp.json starts real reference and fixture servers.
suite('Trusted workspace: MCP Harness', function () {
  this.timeout(60_000);
  let api: McpHarnessApi;
  let folder: string;
  let configFile: string;
  let original: string;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<McpHarnessApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
    api = await extension.activate();
    folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    configFile = path.join(folder, '.mcp.json');
    original = fs.readFileSync(configFile, 'utf8');
    // The API reports the duration activate() logged, to the tenth of a millisecond.
    const logged = await loggedActivation();
    assert.equal(api.activationMs, logged, `activationMs ${api.activationMs}, the log says ${logged}`);
    assert.ok(api.activationMs > 0);
    console.log(`activate() took ${api.activationMs} ms`);
  });

  test('registers every command', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of [
      'mcpHarness.reload', 'mcpHarness.addServer', 'mcpHarness.removeServer', 'mcpHarness.startServer', 'mcpHarness.stopServer',
      'mcpHarness.restartServer', 'mcpHarness.showServerLog', 'mcpHarness.openConfiguration', 'mcpHarness.showTools', 'mcpHarness.clearInputs',
      'mcpHarness.importServers', 'mcpHarness.cancelTask',
    ]) {
      assert.ok(commands.includes(id), `${id} is not registered`);
    }
  });

  test('workspace servers wait for approval and start nothing until given it', async () => {
    await until(() => api.harness.servers().length > 0 && api.harness.servers().every((s) => s.state !== 'stopped' && s.state !== 'starting'), 'servers listed');
    const workspaceServers = api.harness.servers().filter((s) => s.origin.source !== 'user' && s.state !== 'error');
    assert.ok(workspaceServers.length >= 3);
    for (const s of workspaceServers) {
      assert.equal(s.state, 'blocked', `${s.name} is ${s.state}`);
      assert.equal(s.error, AWAITING_APPROVAL);
    }
    assert.deepEqual(api.harness.snapshots().filter((s) => s.pid !== undefined).map((s) => s.name), []);
    await vscode.commands.executeCommand('mcpHarness.approveServers');
    await until(() => state('fixture') === 'running' && state('everything') === 'running', 'approved servers running');
  });

  test('sees every server of the workspace with its tools, and the broken one with its error', async () => {
    await until(() => api.harness.servers().every((s) => s.state === 'running' || s.state === 'error'), 'all settled');
    const byName = Object.fromEntries(api.harness.servers().map((s) => [s.name, s]));
    assert.equal(byName.everything.transport, 'stdio');
    assert.ok(byName.everything.tools.length >= 10);
    assert.equal(byName.fixture.tools.length, 14);
    assert.equal(byName.broken.state, 'error');
    assert.match(byName.broken.error ?? '', /command not found/);
    const result = await api.harness.callTool('mcp__fixture__echo', { text: 'from the extension host' });
    assert.equal(result.text, 'from the extension host');
    // Three of the four run (broken does not); every tool of the running ones is enabled.
    const running = api.harness.servers().filter((s) => s.state === 'running');
    assert.deepEqual(running.map((s) => s.name).sort(), ['everything', 'fixture', 'memory']);
    const tools = running.reduce((sum, s) => sum + s.tools.length, 0) + api.harness.tools().filter((t) => t.server === undefined).length;
    assert.equal(api.statusText(), `$(plug) MCP 3/4 · ${tools} tools`);
  });

  test('editing the config on disk adds, restarts and removes exactly the right servers', async () => {
    const pidsBefore = pids();
    const config = JSON.parse(original.replace(/^\s*\/\/.*$/gm, ''));
    config.mcpServers.fixture.args.push('--name=changed'); // changed: restarts
    delete config.mcpServers.memory; // removed
    config.mcpServers.added = { ...config.mcpServers.fixture, args: [config.mcpServers.fixture.args[0]] }; // added
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    await until(() => state('memory') === undefined && state('added') === 'blocked' && state('fixture') === 'blocked', 'config change applied');
    // The added server is new, and the changed one runs a different command: both wait for approval.
    assert.equal(state('everything'), 'running');
    await vscode.commands.executeCommand('mcpHarness.approveServers');
    await until(() => state('fixture') === 'running' && state('added') === 'running', 'changed and added running');
    const after = pids();
    assert.notEqual(after.fixture, pidsBefore.fixture, 'fixture restarted');
    assert.equal(after.everything, pidsBefore.everything, 'everything untouched');
    assert.equal(api.harness.servers().find((s) => s.name === 'fixture')?.serverInfo?.name, 'changed');
    assert.equal(api.harness.tools().some((t) => t.server === 'memory'), false);
  });

  test('a server that crashed and could not come back returns on reload', async () => {
    const marker = path.join(folder, 'fixture-down');
    fs.writeFileSync(marker, 'the fixture refuses to start while this file exists');
    await api.harness.callTool('mcp__fixture__crash', {});
    await until(() => state('fixture') === 'error', 'fixture in error after its reconnect attempts', 20_000);
    fs.rmSync(marker);
    await vscode.commands.executeCommand('mcpHarness.reload');
    await until(() => state('fixture') === 'running', 'fixture back after reload');
    assert.equal((await api.harness.callTool('mcp__fixture__echo', { text: 'back' })).text, 'back');
  });

  test('stop and start from commands', async () => {
    await vscode.commands.executeCommand('mcpHarness.stopServer', 'everything');
    assert.equal(state('everything'), 'stopped');
    assert.equal(api.enabledTools().some((t) => t.server === 'everything'), false);
    await vscode.commands.executeCommand('mcpHarness.startServer', 'everything');
    assert.equal(state('everything'), 'running');
  });

  test('settings edits apply without a reload: toolTimeoutMs, then a server in mcpHarness.servers', async () => {
    const settings = () => vscode.workspace.getConfiguration('mcpHarness');
    const slow = { steps: 1, stepMs: 2500 }; // no answer and no progress for 2.5 s
    const fixture = path.join(process.env.MCP_HARNESS_REPO!, 'test/fixtures/servers/fixture.mjs');
    try {
      let applied = configurationLines();
      await settings().update('toolTimeoutMs', 1000, vscode.ConfigurationTarget.Global);
      await until(() => configurationLines() > applied, 'the toolTimeoutMs edit applied');
      const timedOut = await api.harness.callTool('mcp__fixture__slow', slow);
      assert.equal(timedOut.errorKind, 'timeout', timedOut.text);
      assert.equal(timedOut.text, 'fixture: no answer within 1 s');

      applied = configurationLines();
      await settings().update('servers', { 'from-settings': { command: 'node', args: [fixture, '--name=from-settings'] } }, vscode.ConfigurationTarget.Global);
      await until(() => state('from-settings') === 'running', 'the server added in settings running');
      const added = api.harness.snapshots().find((s) => s.name === 'from-settings')!;
      assert.equal(added.definition.origin.source, 'user');
      assert.equal(added.serverInfo?.name, 'from-settings');
      assert.equal(state('fixture'), 'running', 'the other servers were left alone');
    } finally {
      await settings().update('toolTimeoutMs', undefined, vscode.ConfigurationTarget.Global);
      await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
    }
    await until(() => state('from-settings') === undefined, 'the server removed from settings gone');
    const answered = await api.harness.callTool('mcp__fixture__slow', slow);
    assert.equal(answered.errorKind, undefined, answered.text);
  });

  test('servers another extension registers come, change and go with its provider', async () => {
    const fixture = path.join(process.env.MCP_HARNESS_REPO!, 'test/fixtures/servers/fixture.mjs');
    const changed = new vscode.EventEmitter<void>();
    let labels = ['extra'];
    const provider = {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () => labels.map((label) => ({ label, command: 'node', args: [fixture, `--name=${label}`] })),
    };
    const registration = api.registerServerProvider('suite-provider', provider);
    try {
      assert.throws(() => api.registerServerProvider('suite-provider', provider), /registered already/);
      await until(() => state('suite-provider:extra') === 'blocked', 'the provided server listed, waiting for approval');
      const listed = api.harness.servers().find((s) => s.name === 'suite-provider:extra')!;
      assert.equal(listed.origin.source, 'extension');
      assert.equal(listed.origin.file, 'extension suite-provider');
      assert.equal(listed.error, AWAITING_APPROVAL, 'a provided server needs the same approval as a workspace server');
      labels = ['renamed'];
      changed.fire();
      await until(() => state('suite-provider:renamed') !== undefined && state('suite-provider:extra') === undefined, 'the change event applied');
    } finally {
      registration.dispose();
      changed.dispose();
    }
    await until(() => !api.harness.servers().some((s) => s.name.startsWith('suite-provider:')), 'the provider\'s servers gone with it');
  });

  function state(name: string): string | undefined {
    return api.harness.servers().find((s) => s.name === name)?.state;
  }

  function pids(): Record<string, number | undefined> {
    return Object.fromEntries(api.harness.snapshots().map((s) => [s.name, s.pid]));
  }
});

/** How many "configuration: ..." lines (one per applied change) the extension's newest log has. */
function configurationLines(): number {
  const logs = findFiles(path.join(process.env.MCP_HARNESS_E2E_USER_DATA!, 'logs'), 'MCP Harness.log');
  const newest = logs.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
  return newest ? fs.readFileSync(newest, 'utf8').split('\n').filter((l) => /\] configuration: /.test(l)).length : 0;
}

/**
 * The duration in the extension's "activated in N ms" log line, from its log file in the code-server
 * user data folder the runner names (the newest window's log, which is this one).
 */
async function loggedActivation(): Promise<number> {
  const userData = process.env.MCP_HARNESS_E2E_USER_DATA;
  assert.ok(userData, 'MCP_HARNESS_E2E_USER_DATA is not set by the runner');
  let value: number | undefined;
  await until(() => {
    const logs = findFiles(path.join(userData, 'logs'), 'MCP Harness.log');
    const newest = logs.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
    const match = newest && /\] activated in ([\d.]+) ms$/m.exec(fs.readFileSync(newest, 'utf8'));
    value = match ? Number(match[1]) : undefined;
    return value !== undefined;
  }, 'the "activated in" log line');
  return value!;
}

function findFiles(dir: string, name: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? findFiles(full, name) : e.name === name ? [full] : [];
  });
}

/** Polls `check` until true; fails with `what` after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
