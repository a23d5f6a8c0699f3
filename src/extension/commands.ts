// Long because each command is a small function next to its registration, so a command and what it
// does read together; the shared pieces (picking a server, revealing a definition) sit at the end.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatConfigError, splitCommandLine, type HarnessApplyResult, type McpHarness, type McpServerSnapshot } from '../core';
import {
  fileExists,
  removeServerEntry,
  revealConfigError,
  revealDefinition,
  workspaceConfigFiles,
  writeServerEntry,
  type ConfigTarget,
} from './ConfigFiles';
import type { ServerApprovals } from './ServerApprovals';
import { NOT_TRUSTED } from './ServerApprovals';
import type { ServerLogs } from './ServerLogs';
import type { ServerTreeNode } from './ServerTreeProvider';
import { stateIcon } from './serverPresentation';
import type { ToolEnablement } from './ToolEnablement';
import type { VscodeInputResolver } from './VscodeInputResolver';
import { errorMessage } from '../core/base/errors';

export interface CommandContext {
  readonly harness: McpHarness;
  readonly approvals: ServerApprovals;
  readonly logs: ServerLogs;
  readonly inputs: VscodeInputResolver;
  readonly enablement: ToolEnablement;
  /** Re-reads every config location and applies it; `restartFailed` for an explicit reload. */
  reload(options: { restartFailed: boolean }): Promise<HarnessApplyResult>;
}

/** A command's server argument: a tree node, a name (from tests or keybindings), or nothing (ask). */
type ServerArg = ServerTreeNode | string | undefined;

/** Registers the "MCP: ..." commands. */
export function registerCommands(ctx: CommandContext): vscode.Disposable[] {
  const reg = (id: string, run: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, run);
  return [
    reg('mcpHarness.reload', () => reloadCommand(ctx)),
    reg('mcpHarness.addServer', () => addServerCommand(ctx)),
    reg('mcpHarness.removeServer', (arg: ServerArg) => removeServerCommand(ctx, arg)),
    reg('mcpHarness.startServer', (arg: ServerArg) => startServerCommand(ctx, arg)),
    reg('mcpHarness.stopServer', (arg: ServerArg) => withServer(ctx, arg, 'Stop which server?', (s) => ctx.harness.stopServer(s.name))),
    reg('mcpHarness.restartServer', (arg: ServerArg) => withServer(ctx, arg, 'Restart which server?', (s) => restartServer(ctx, s))),
    reg('mcpHarness.signIn', (arg: ServerArg) => withServer(ctx, arg, 'Sign in to which server?', (s) => signInCommand(ctx, s))),
    reg('mcpHarness.signOut', (arg: ServerArg) => withServer(ctx, arg, 'Sign out of which server?', (s) => signOutCommand(ctx, s), signsIn)),
    reg('mcpHarness.showServerLog', (arg: ServerArg) => withServer(ctx, arg, 'Show the log of which server?', (s) => ctx.logs.show(s.name))),
    reg('mcpHarness.openServerConfig', (arg: ServerArg) => withServer(ctx, arg, 'Open the configuration of which server?', (s) => revealDefinition(s.definition))),
    reg('mcpHarness.openConfiguration', () => openConfigurationCommand()),
    reg('mcpHarness.createConfig', () => createConfigCommand()),
    reg('mcpHarness.showTools', () => showToolsCommand(ctx)),
    reg('mcpHarness.approveServers', () => approveCommand(ctx)),
    reg('mcpHarness.clearInputs', async () => {
      const count = await ctx.inputs.clear();
      void vscode.window.showInformationMessage(`MCP: forgot ${count} saved ${count === 1 ? 'input' : 'inputs'}; servers ask again at their next start.`);
    }),
  ];
}

/** "MCP: Reload servers": re-read, apply as a diff, restart failed servers, report. */
async function reloadCommand(ctx: CommandContext): Promise<HarnessApplyResult> {
  const result = await ctx.reload({ restartFailed: true });
  const summary = `MCP: +${result.added.length} added, ${result.restarted.length} restarted, ${result.removed.length} removed, ${result.unchanged.length} unchanged`;
  const errors = result.configErrors;
  void vscode.window.showInformationMessage(errors.length ? `${summary}; ${errors.length} config ${errors.length === 1 ? 'error' : 'errors'}` : summary);
  for (const error of errors.slice(0, 5)) {
    void vscode.window.showWarningMessage(`MCP config: ${formatConfigError(error, folderOf(error.file))}`, 'Open').then((pick) => {
      if (pick === 'Open') void revealConfigError(error);
    });
  }
  return result;
}

async function startServerCommand(ctx: CommandContext, arg: ServerArg): Promise<void> {
  await withServer(ctx, arg, 'Start which server?', async (s) => {
    if (s.state.kind === 'blocked' && s.state.policy) {
      // No approval overrides the organisation's policy.
      void vscode.window.showWarningMessage(`MCP: "${s.name}" is ${s.state.reason}.`);
      return;
    }
    if (s.state.kind === 'blocked' && s.state.reason === NOT_TRUSTED) {
      // The command is done once it has refused; the answer is handled whenever it comes.
      void vscode.window.showWarningMessage(`"${s.name}" comes from a workspace file and this workspace is not trusted.`, 'Manage Workspace Trust').then((pick) => {
        if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return;
    }
    // The user asked for this server by name: that is the approval.
    await ctx.approvals.approve([s.definition]);
    await ctx.harness.startServer(s.name);
  });
}

async function restartServer(ctx: CommandContext, s: McpServerSnapshot): Promise<void> {
  if (s.state.kind === 'blocked') return startServerCommand(ctx, s.name);
  await ctx.harness.restartServer(s.name);
}

async function approveCommand(ctx: CommandContext): Promise<void> {
  const blocked = ctx.harness.snapshots().filter((s) => s.state.kind === 'blocked' && s.state.reason !== NOT_TRUSTED && !s.state.policy);
  if (blocked.length === 0) {
    void vscode.window.showInformationMessage('MCP: no server is waiting for approval.');
    return;
  }
  await ctx.approvals.approve(blocked.map((s) => s.definition));
  await Promise.all(blocked.map((s) => ctx.harness.startServer(s.name)));
}

async function removeServerCommand(ctx: CommandContext, arg: ServerArg): Promise<void> {
  await withServer(ctx, arg, 'Remove which server?', async (s) => {
    const where = s.definition.origin.source === 'user' ? 'user settings' : vscode.workspace.asRelativePath(s.definition.origin.file);
    const answer = await vscode.window.showWarningMessage(`Remove MCP server "${s.name}" from ${where}?`, { modal: true }, 'Remove');
    if (answer !== 'Remove') return;
    await removeServerEntry(s.definition);
    await ctx.reload({ restartFailed: false });
  });
}

/** "MCP: Add server…": type, name, command or URL, target file; writes the entry and starts it. */
async function addServerCommand(ctx: CommandContext): Promise<void> {
  const type = await vscode.window.showQuickPick(
    [
      { label: 'stdio', description: 'a local command that speaks MCP on stdin/stdout', value: 'stdio' as const },
      { label: 'http', description: 'Streamable HTTP at a URL (falls back to SSE)', value: 'http' as const },
      { label: 'sse', description: 'legacy Server-Sent Events at a URL', value: 'sse' as const },
    ],
    { title: 'Add MCP Server (1/4): transport', ignoreFocusOut: true },
  );
  if (!type) return;
  const taken = new Set(ctx.harness.snapshots().map((s) => s.name));
  const name = await vscode.window.showInputBox({
    title: 'Add MCP Server (2/4): name',
    prompt: 'Tools are exposed as mcp__<name>__<tool>',
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() ? 'A name is required' : taken.has(v.trim()) ? `"${v.trim()}" already exists` : undefined),
  });
  if (!name) return;
  const entry = type.value === 'stdio' ? await askCommand() : await askUrl(type.value);
  if (!entry) return;
  const target = await pickTarget();
  if (!target) return;
  try {
    await writeServerEntry(target, name.trim(), entry);
  } catch (err) {
    void vscode.window.showErrorMessage(`MCP: could not add "${name}": ${errorMessage(err)}`);
    return;
  }
  await ctx.reload({ restartFailed: false });
  const added = ctx.harness.snapshots().find((s) => s.name === name.trim());
  if (added) {
    await ctx.approvals.approve([added.definition]); // added by the user just now
    await ctx.harness.startServer(added.name);
  }
}

async function askCommand(): Promise<Record<string, unknown> | undefined> {
  const line = await vscode.window.showInputBox({
    title: 'Add MCP Server (3/4): command',
    prompt: 'The command and its arguments, e.g. npx -y @modelcontextprotocol/server-memory',
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        return splitCommandLine(v).length ? undefined : 'A command is required';
      } catch (err) {
        return errorMessage(err);
      }
    },
  });
  if (!line) return undefined;
  const [command, ...args] = splitCommandLine(line);
  return { type: 'stdio', command, args };
}

async function askUrl(type: 'http' | 'sse'): Promise<Record<string, unknown> | undefined> {
  const url = await vscode.window.showInputBox({
    title: 'Add MCP Server (3/4): URL',
    prompt: type === 'sse' ? 'e.g. http://localhost:3001/sse' : 'e.g. http://localhost:3000/mcp',
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'Use an http:// or https:// URL';
      } catch {
        return 'Not a valid URL';
      }
    },
  });
  return url ? { type, url } : undefined;
}

/** Asks where to write server entries: a workspace file of one folder, or the user setting. */
export async function pickTarget(title = 'Add MCP Server (4/4): where to save it'): Promise<ConfigTarget | undefined> {
  const folder = await pickFolder();
  const items: (vscode.QuickPickItem & { target: ConfigTarget })[] = [];
  if (folder) {
    for (const f of workspaceConfigFiles(folder.uri).slice(0, 2)) {
      items.push({ label: f.label, description: `workspace (${folder.name})`, target: { kind: 'file', ...f } });
    }
  }
  items.push({ label: 'User settings', description: 'mcpHarness.servers, for every workspace', target: { kind: 'settings', label: 'User settings' } });
  return (await vscode.window.showQuickPick(items, { title, ignoreFocusOut: true }))?.target;
}

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which folder?' });
}

async function openConfigurationCommand(): Promise<void> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const items: (vscode.QuickPickItem & { uri?: vscode.Uri })[] = [];
  for (const folder of folders) {
    for (const f of workspaceConfigFiles(folder.uri)) {
      const exists = await fileExists(f.uri);
      items.push({ label: f.label, description: folders.length > 1 ? folder.name : undefined, detail: exists ? undefined : 'does not exist yet: choosing it creates it', uri: f.uri });
    }
  }
  items.push({ label: 'User settings', description: 'mcpHarness.servers' });
  const pick = await vscode.window.showQuickPick(items, { title: 'Open MCP configuration' });
  if (!pick) return;
  if (!pick.uri) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'mcpHarness.servers');
    return;
  }
  await ensureFile(pick.uri, pick.label === '.mcp.json' ? '{\n  "mcpServers": {}\n}\n' : '{\n  "servers": {}\n}\n');
  await vscode.window.showTextDocument(pick.uri);
}

async function createConfigCommand(): Promise<void> {
  const folder = await pickFolder();
  if (!folder) {
    void vscode.window.showWarningMessage('MCP: open a folder first; .mcp.json lives in the workspace.');
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, '.mcp.json');
  await ensureFile(uri, '{\n  "mcpServers": {\n    "memory": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-memory"]\n    }\n  }\n}\n');
  await vscode.window.showTextDocument(uri);
}

/** "MCP: Show tools": every tool, with its schema one step away. */
async function showToolsCommand(ctx: CommandContext): Promise<void> {
  const tools = ctx.harness.tools();
  if (tools.length === 0) {
    void vscode.window.showInformationMessage('MCP: no tools available. Is any server running?');
    return;
  }
  const enabled = (t: (typeof tools)[number]) => t.server === undefined || ctx.enablement.isEnabled(t.server, t.originalName);
  const count = tools.filter(enabled).length;
  const pick = await vscode.window.showQuickPick(
    tools.map((t) => ({
      label: t.name,
      description: `${t.server ?? 'built-in'}${enabled(t) ? '' : ' · disabled for the agent'}`,
      detail: t.description.split('\n')[0],
      tool: t,
    })),
    { title: `MCP tools (${tools.length}, ${count} enabled)`, matchOnDescription: true, matchOnDetail: true },
  );
  if (!pick) return;
  const doc = await vscode.workspace.openTextDocument({
    language: 'json',
    content: JSON.stringify({ name: pick.tool.name, server: pick.tool.server, originalName: pick.tool.originalName, description: pick.tool.description, annotations: pick.tool.annotations, inputSchema: pick.tool.inputSchema }, null, 2),
  });
  await vscode.window.showTextDocument(doc, { preview: true });
}

/** Runs `action` on the server named by `arg`, asking with a quick pick when there is none. */
/** Servers reached over HTTP can sign in (OAuth); a stdio server has nothing to sign out of. */
function signsIn(s: McpServerSnapshot): boolean {
  return s.definition.type !== undefined && s.definition.type !== 'stdio';
}

async function withServer(ctx: CommandContext, arg: ServerArg, title: string, action: (s: McpServerSnapshot) => unknown, offered: (s: McpServerSnapshot) => boolean = () => true): Promise<void> {
  const servers = ctx.harness.snapshots();
  let name = typeof arg === 'string' ? arg : arg?.server;
  if (name === undefined) {
    const candidates = servers.filter(offered);
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage('MCP: no server here fits (only servers reached over HTTP sign in).');
      return;
    }
    const pick = await vscode.window.showQuickPick(
      candidates.map((s) => ({ label: s.name, description: s.state.kind, iconPath: stateIcon(s.state) })),
      { title },
    );
    name = pick?.label;
  }
  const server = servers.find((s) => s.name === name);
  if (name !== undefined && !server) void vscode.window.showWarningMessage(`MCP: no server named "${name}".`);
  if (server) await action(server);
}

async function ensureFile(uri: vscode.Uri, content: string): Promise<void> {
  if (!(await fileExists(uri))) await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
}

function folderOf(file: string): string | undefined {
  if (!path.isAbsolute(file)) return undefined;
  return vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath;
}


/** "Sign In": asks "Sign in to <server> at <host>?", opens the browser, starts the server when the redirect is back. */
async function signInCommand(ctx: CommandContext, s: McpServerSnapshot): Promise<void> {
  await ctx.harness.signIn(s.name);
  const after = ctx.harness.snapshots().find((x) => x.name === s.name);
  if (after && after.state.kind !== 'running') {
    const why = after.state.kind === 'error' ? after.state.message : after.state.kind === 'auth_required' ? after.state.reason : after.state.kind;
    void vscode.window.showWarningMessage(`MCP: ${s.name}: ${why}`);
  }
}

/** "MCP: Sign Out of Server...": forgets the server's tokens and client registration. */
async function signOutCommand(ctx: CommandContext, s: McpServerSnapshot): Promise<void> {
  await ctx.harness.signOut(s.name);
  void vscode.window.showInformationMessage(`MCP: signed out of ${s.name}.`);
}
