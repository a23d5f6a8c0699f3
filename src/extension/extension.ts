import * as vscode from 'vscode';
import { McpHarnessExtension, type McpHarnessApi } from './McpHarnessExtension';

let root: McpHarnessExtension | undefined;

/** Sets up the view, status bar and commands, and starts connecting in the background. */
export function activate(context: vscode.ExtensionContext): McpHarnessApi {
  const started = performance.now();
  root = new McpHarnessExtension(context);
  context.subscriptions.push(root);
  root.start();
  const activationMs = Math.round((performance.now() - started) * 10) / 10;
  root.log(`activated in ${activationMs} ms`);
  return root.api(activationMs);
}

/** Stops every server; VS Code waits for the returned promise before the host exits. */
export async function deactivate(): Promise<void> {
  await root?.shutdown();
  root = undefined;
}

export type { McpHarnessApi };
