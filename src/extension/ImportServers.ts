import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  describeLaunch,
  describeOrigin,
  discoverServers,
  formatConfigError,
  foundServerStatus,
  loadMcpConfig,
  serverEntryFor,
  type HarnessApplyResult,
  type McpHarness,
  type McpServerDefinition,
} from '../core';
import { pickTarget } from './commands';
import { USER_SERVERS_LABEL, USER_SERVERS_PATH, writeServerEntry, type ConfigTarget } from './ConfigFiles';
import type { ServerDiscovery } from './ServerDiscovery';

type ServerPick = vscode.QuickPickItem & { readonly def: McpServerDefinition };

/**
 * "MCP: Import Servers...": lists the servers other agents configured (VS Code's user `mcp.json`,
 * Claude Code, Claude Desktop, Cursor) with their file and line, and writes the chosen ones into
 * the user setting or a workspace file, as written (variables untouched). Servers whose command or
 * URL is configured already are listed but not preselected. Returns the imported names.
 */
export async function importServersCommand(
  harness: McpHarness,
  discovery: ServerDiscovery,
  reload: () => Promise<HarnessApplyResult>,
): Promise<string[]> {
  const home = os.homedir();
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const found = await discoverServers({ ...discovery.discoveryOptions(true), workspaceFolders: folders });
  for (const error of found.errors) void vscode.window.showWarningMessage(`MCP import: ${formatConfigError(error)}`);
  const configured = harness.snapshots().map((s) => s.definition);
  const usable = found.servers.filter((d) => d.problem === undefined);
  if (usable.length === 0) {
    void vscode.window.showInformationMessage(`MCP: no servers found to import in ${found.locations.map((l) => describeOrigin({ source: l.source, file: l.file, jsonPath: '' }, home)).join(', ')}.`);
    return [];
  }
  const items: ServerPick[] = usable.map((def) => {
    const status = foundServerStatus(configured, def);
    const origins = [def.origin, ...(def.origin.alsoIn ?? [])].map((o) => describeOrigin(o, home)).join(', ');
    const note = status.kind === 'configured' ? ` (configured already as ${status.as})` : status.kind === 'name-taken' ? ' (name taken: imported under another name)' : '';
    return { label: def.name, description: `${origins}${note}`, detail: describeLaunch(def), picked: status.kind === 'new', def };
  });
  const picks = await vscode.window.showQuickPick(items, { title: 'Import MCP Servers (1/2): which servers', canPickMany: true, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true });
  if (!picks?.length) return [];
  const target = await pickTarget('Import MCP Servers (2/2): where to save them');
  if (!target) return [];
  const existing = await namesIn(target, folders);
  const imported: string[] = [];
  for (const { def } of picks) {
    const name = freeName(def.name, existing);
    existing.add(name);
    await writeServerEntry(target, name, serverEntryFor(def));
    imported.push(name);
  }
  await reload();
  void vscode.window.showInformationMessage(`MCP: imported ${imported.join(', ')} into ${target.label}.`);
  return imported;
}

/** The names already defined where the import writes, so none is overwritten. */
async function namesIn(target: ConfigTarget, folders: string[]): Promise<Set<string>> {
  if (target.kind === 'settings') {
    const current = vscode.workspace.getConfiguration().inspect<Record<string, unknown>>(USER_SERVERS_PATH)?.globalValue ?? {};
    return new Set(Object.keys(current));
  }
  const loaded = await loadMcpConfig({ workspaceFolders: folders, userServers: { label: USER_SERVERS_LABEL, jsonPath: USER_SERVERS_PATH, entries: {} } });
  return new Set(loaded.servers.filter((s) => s.origin.file === target.uri.fsPath).map((s) => s.name));
}

function freeName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) if (!taken.has(`${name}-${i}`)) return `${name}-${i}`;
}
