import * as assert from 'node:assert/strict';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';
import type { McpHarnessApi } from '../../../src/extension/McpHarnessExtension';
import { NOT_TRUSTED } from '../../../src/extension/ServerApprovals';

// Runs with workspace trust enabled and the fixture workspace not trusted: servers from workspace
// files are listed but never started; the user's own servers (settings) still run.
suite('Untrusted workspace: MCP Harness', function () {
  this.timeout(60_000);

  test('lists workspace servers without starting them, and starts user-level servers', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner should open this folder untrusted');
    const api = await vscode.extensions.getExtension<McpHarnessApi>('mcp-harness.mcp-harness')!.activate();
    const deadline = Date.now() + 30_000;
    const settled = () => {
      const servers = api.harness.servers();
      return servers.length > 0 && servers.every((s) => s.state === 'blocked' || s.state === 'running' || s.state === 'error');
    };
    while (!settled() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const fromFiles = api.harness.snapshots().filter((s) => s.definition.origin.source !== 'user' && !s.definition.problem);
    assert.ok(fromFiles.length >= 3, 'workspace servers are listed');
    for (const s of fromFiles) {
      assert.deepEqual(s.state, { kind: 'blocked', reason: NOT_TRUSTED }, s.name);
      assert.equal(s.pid, undefined);
    }
    const user = api.harness.servers().find((s) => s.origin.source === 'user');
    assert.ok(user, 'a user-level server is configured for this run');
    assert.equal(user.state, 'running');
    // Asking to start a workspace server does not start it while the workspace is untrusted.
    void vscode.commands.executeCommand('mcpHarness.startServer', fromFiles[0].name);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(api.harness.servers().find((s) => s.name === fromFiles[0].name)?.state, 'blocked');
  });
});
