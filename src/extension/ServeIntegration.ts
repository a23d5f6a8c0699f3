import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, mcpServersEntry, serveLaunch } from '../core';

/** Setting that offers the gateway to VS Code's own MCP support (off by default). */
export const OFFER_TO_VSCODE_SETTING = 'serve.offerToVsCode';
/** Id of the definition provider, as declared under `contributes.mcpServerDefinitionProviders`. */
export const GATEWAY_PROVIDER_ID = 'mcpHarness.gateway';

/**
 * A Node.js that other programs can run: this process when it is Node itself (code-server), else
 * the first `node` on PATH (the editor's own binary is Electron, which is not Node for others).
 */
export function findNode(env: NodeJS.ProcessEnv = process.env): string {
  if (!process.versions.electron) return process.execPath;
  const names = process.platform === 'win32' ? ['node.exe'] : ['node'];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // Not here.
      }
    }
  }
  return 'node';
}

/** "MCP: Copy Server Configuration": puts the `mcpServers` entry for a workspace folder on the clipboard. */
export async function copyServerConfigurationCommand(extensionPath: string): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) {
    void vscode.window.showWarningMessage('MCP: open a folder first; the server configuration is per workspace.');
    return undefined;
  }
  const folder = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Serve which workspace folder?' });
  if (!folder) return undefined;
  const text = mcpServersEntry(serveLaunch(extensionPath, folder.uri.fsPath, findNode()));
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(
    `MCP: copied an "mcpServers" entry that serves ${folder.name} through MCP Harness (its tools and every configured server). Paste it into Claude Desktop, Claude Code or Cursor.`,
  );
  return text;
}

/** The part of the VS Code MCP API (1.101+) used here; @types/vscode 1.90 does not have it. */
interface McpApi {
  readonly lm?: {
    registerMcpServerDefinitionProvider?(
      id: string,
      provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(): unknown[] },
    ): vscode.Disposable;
  };
  readonly McpStdioServerDefinition?: new (label: string, command: string, args: string[], env?: Record<string, string>, version?: string) => { cwd?: vscode.Uri };
}

/**
 * Offers the gateway to VS Code's own MCP support, one server per workspace folder, while the
 * setting is on and the API exists at runtime. Re-announced when folders or the setting change.
 */
export class GatewayDefinitionProvider extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  private _registration: vscode.Disposable | undefined;

  constructor(
    private readonly _extensionPath: string,
    private readonly _section: string,
    private readonly _version: string,
  ) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${this._section}.${OFFER_TO_VSCODE_SETTING}`)) this._update();
      }),
    );
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this._onDidChange.fire()));
    this._update();
  }

  /** Whether VS Code has the API (1.101 or later). */
  static isSupported(api: McpApi = vscode as unknown as McpApi): boolean {
    return typeof api.lm?.registerMcpServerDefinitionProvider === 'function' && typeof api.McpStdioServerDefinition === 'function';
  }

  get registered(): boolean {
    return this._registration !== undefined;
  }

  override dispose(): void {
    this._registration?.dispose();
    this._registration = undefined;
    super.dispose();
  }

  private _update(): void {
    const api = vscode as unknown as McpApi;
    const wanted = vscode.workspace.getConfiguration(this._section).get<boolean>(OFFER_TO_VSCODE_SETTING, false);
    if (wanted && !this._registration && GatewayDefinitionProvider.isSupported(api)) {
      this._registration = api.lm!.registerMcpServerDefinitionProvider!(GATEWAY_PROVIDER_ID, {
        onDidChangeMcpServerDefinitions: this._onDidChange.event,
        provideMcpServerDefinitions: () => this._definitions(api),
      });
    } else if (!wanted && this._registration) {
      this._registration.dispose();
      this._registration = undefined;
    }
  }

  private _definitions(api: McpApi): unknown[] {
    const Definition = api.McpStdioServerDefinition!;
    const node = findNode();
    return (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((folder) => {
        const launch = serveLaunch(this._extensionPath, folder.uri.fsPath, node);
        const definition = new Definition(`MCP Harness: ${folder.name}`, launch.command, launch.args, {}, this._version);
        definition.cwd = folder.uri;
        return definition;
      });
  }
}
