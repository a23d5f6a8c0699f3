import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  isEditableConfigText,
  removeServerFromConfigText,
  setServerInConfigText,
  type McpConfigError,
  type McpConfigSource,
  type McpServerDefinition,
} from '../core';

/** Where a new server entry can be written. */
export type ConfigTarget =
  | { readonly kind: 'file'; readonly source: McpConfigSource; readonly uri: vscode.Uri; readonly label: string }
  | { readonly kind: 'settings'; readonly label: string };

export const SETTINGS_SECTION = 'mcpHarness';
export const SETTINGS_KEY = 'servers';
export const USER_SERVERS_LABEL = 'settings.json';
export const USER_SERVERS_PATH = 'mcpHarness.servers';

/** The workspace files, in precedence order, for one folder. */
export function workspaceConfigFiles(folder: vscode.Uri): { source: McpConfigSource; uri: vscode.Uri; label: string }[] {
  return [
    { source: 'vscode', uri: vscode.Uri.joinPath(folder, '.vscode', 'mcp.json'), label: '.vscode/mcp.json' },
    { source: 'claude', uri: vscode.Uri.joinPath(folder, '.mcp.json'), label: '.mcp.json' },
    { source: 'harness', uri: vscode.Uri.joinPath(folder, '.harness', 'mcp.json'), label: '.harness/mcp.json' },
  ];
}

/** Server entries found where they are not read, and why. */
export interface IgnoredUserServers {
  /** Where they were found, e.g. `workspace settings`. */
  readonly where: string;
  readonly names: readonly string[];
  readonly reason: string;
}

const NOT_FROM_WORKSPACE_SETTINGS =
  "a workspace's settings may not define commands to run without your approval; put these servers in .vscode/mcp.json, where they need it";

/**
 * The host's own server entries: the `mcpHarness.servers` setting as the user set it (user settings,
 * and in a remote window also the remote machine's settings). Values from workspace or folder
 * settings are not used (a cloned repository must not start commands unasked) and are returned in
 * `ignored`, so that they are reported rather than dropped without a word.
 */
export function readUserServers(): { userServers: { label: string; jsonPath: string; entries: unknown }; ignored: IgnoredUserServers[] } {
  const inspected = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(SETTINGS_KEY);
  const ignored: IgnoredUserServers[] = [];
  for (const [where, value] of [
    ['workspace settings', inspected?.workspaceValue],
    ['folder settings', inspected?.workspaceFolderValue],
  ] as const) {
    const names = value && typeof value === 'object' ? Object.keys(value) : [];
    if (names.length > 0) ignored.push({ where, names, reason: NOT_FROM_WORKSPACE_SETTINGS });
  }
  return { userServers: { label: USER_SERVERS_LABEL, jsonPath: USER_SERVERS_PATH, entries: inspected?.globalValue ?? {} }, ignored };
}

/**
 * Adds or replaces a server entry through the editor (so an open, unsaved file is respected),
 * keeping the file's comments and formatting, then saves it.
 */
export async function writeServerEntry(target: ConfigTarget, name: string, entry: Record<string, unknown>): Promise<void> {
  if (target.kind === 'settings') {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const current = config.inspect<Record<string, unknown>>(SETTINGS_KEY)?.globalValue ?? {};
    await config.update(SETTINGS_KEY, { ...current, [name]: entry }, vscode.ConfigurationTarget.Global);
    return;
  }
  await editFile(target.uri, (text) => setServerInConfigText(text, target.source, name, entry));
}

/** Origins that are not ours to edit: other agents' files and servers that providers give. */
export function isFoundElsewhere(source: McpConfigSource): boolean {
  return !['explicit', 'vscode', 'claude', 'harness', 'user'].includes(source);
}

/** Removes a server's entry from where it is defined (never from another agent's file or a provider). */
export async function removeServerEntry(def: McpServerDefinition): Promise<void> {
  if (isFoundElsewhere(def.origin.source)) {
    throw new Error(`"${def.name}" comes from ${def.origin.file}, which MCP Harness does not edit: remove it there`);
  }
  if (def.origin.source === 'user') {
    const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
    const current = { ...(config.inspect<Record<string, unknown>>(SETTINGS_KEY)?.globalValue ?? {}) };
    delete current[def.name];
    await config.update(SETTINGS_KEY, current, vscode.ConfigurationTarget.Global);
    return;
  }
  await editFile(vscode.Uri.file(def.origin.file), (text) => removeServerFromConfigText(text, def.origin.source, def.name));
}

/** Opens the file that defines a server, at its entry. */
export async function revealDefinition(def: McpServerDefinition): Promise<void> {
  if (def.origin.source === 'user') {
    await vscode.commands.executeCommand('workbench.action.openSettings', USER_SERVERS_PATH);
    return;
  }
  if (!path.isAbsolute(def.origin.file)) {
    void vscode.window.showInformationMessage(`MCP: "${def.name}" is provided by ${def.origin.file}; it has no file to open.`);
    return;
  }
  await revealLocation(def.origin.file, def.origin.line, def.origin.column);
}

/** Opens a config error's file at the fault. */
export async function revealConfigError(error: McpConfigError): Promise<void> {
  if (!path.isAbsolute(error.file)) {
    await vscode.commands.executeCommand('workbench.action.openSettings', USER_SERVERS_PATH);
    return;
  }
  await revealLocation(error.file, error.line, error.column);
}

/** Whether a file exists (through the editor's file system, so remote folders work too). */
export function fileExists(uri: vscode.Uri): Thenable<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

async function revealLocation(file: string, line?: number, column?: number): Promise<void> {
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), Math.max(0, (column ?? 1) - 1));
  await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: new vscode.Range(position, position), preview: false });
}

async function editFile(uri: vscode.Uri, change: (text: string) => string): Promise<void> {
  if (!(await fileExists(uri))) await vscode.workspace.fs.writeFile(uri, new Uint8Array());
  const doc = await vscode.workspace.openTextDocument(uri);
  const text = doc.getText();
  if (!isEditableConfigText(text)) {
    throw new Error(`${vscode.workspace.asRelativePath(uri)} is not valid JSON; fix it first`);
  }
  const next = change(text);
  if (next !== text) {
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(text.length)), next);
    await vscode.workspace.applyEdit(edit);
  }
  await doc.save();
}
