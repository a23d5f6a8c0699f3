import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { suite, suiteSetup, test } from 'mocha';
import * as vscode from 'vscode';
import { GatewayDefinitionProvider } from '../../../src/extension/ServeIntegration';

const EXTENSION_ID = 'mcp-harness.mcp-harness';

// In a real VS Code (1.139): the copied configuration is one another MCP client can run as is.
suite('Serve: MCP Harness as an MCP server', function () {
  this.timeout(60_000);
  let folder: string;
  let extensionPath: string;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
    await extension.activate();
    extensionPath = extension.extensionPath;
    folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
  });

  test('"MCP: Copy Server Configuration" copies a ready mcpServers entry that serves this workspace', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('mcpHarness.copyServerConfiguration'));
    const returned = await vscode.commands.executeCommand<string>('mcpHarness.copyServerConfiguration');
    assert.equal(await vscode.env.clipboard.readText(), returned);
    const entry = JSON.parse(returned).mcpServers['mcp-harness'];
    assert.deepEqual(entry.args, [`${extensionPath}/dist/cli.js`, 'serve', '--gateway', '--workspace', folder]);
    assert.equal(entry.cwd, folder);
    // Run it the way Claude Desktop would, and ask for its tools over stdio.
    const child = spawn(entry.command, entry.args, { cwd: entry.cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const deadline = Date.now() + 45_000;
    while (!out.includes('"id":2') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end();
    const listed = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 2);
    assert.ok(listed, `no tools/list answer; stdout: ${out.slice(0, 500)}`);
    const names: string[] = listed.result.tools.map((t: { name: string }) => t.name);
    assert.ok(names.includes('read_file'), names.join(', '));
  });

  test('the VS Code MCP API is there at runtime, so the gateway can be offered', () => {
    assert.equal(GatewayDefinitionProvider.isSupported(), true);
  });
});
