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
    // Asking to start a workspace server does not start it while the workspace is untrusted: the
    // command finishes having refused, and the server never left `blocked`.
    const name = fromFiles[0].name;
    const states: string[] = [];
    const listener = api.harness.onDidChange(() => states.push(api.harness.snapshots().find((s) => s.name === name)!.state.kind));
    try {
      await vscode.commands.executeCommand('mcpHarness.startServer', name);
    } finally {
      listener.dispose();
    }
    const after = api.harness.snapshots().find((s) => s.name === name)!;
    assert.deepEqual(after.state, { kind: 'blocked', reason: NOT_TRUSTED });
    assert.equal(after.pid, undefined);
    assert.deepEqual(states.filter((k) => k !== 'blocked'), [], `${name} went through ${states.join(', ')}`);
  });
});
