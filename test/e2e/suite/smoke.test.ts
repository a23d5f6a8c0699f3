import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { suite, test } from 'mocha';
import * as vscode from 'vscode';

const EXTENSION_ID = 'mcp-harness.mcp-harness';

suite('Extension host smoke', () => {
  test('runs in a real VS Code', () => {
    assert.equal(typeof vscode.version, 'string');
    assert.match(vscode.version, /^\d+\.\d+\.\d+/);
  });

  test('loads and activates the extension', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is not loaded`);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  test('opens the folder the runner asked for', () => {
    const expected = process.env.MCP_HARNESS_E2E_FOLDER;
    assert.ok(expected, 'MCP_HARNESS_E2E_FOLDER is not set by the runner');
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.deepEqual(folders.map((f) => path.resolve(f.uri.fsPath)), [path.resolve(expected)]);
  });
});
