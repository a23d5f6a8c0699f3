import * as path from 'node:path';
import * as vscode from 'vscode';
import * as os from 'node:os';
import { describeLaunch, describeOrigin, describeSandbox, describeReconnect, redactEnv, redactHeaders, serverPolicyFingerprint, type McpConfigOrigin, type McpConnectionState, type McpServerSnapshot } from '../core';

type Tool = McpServerSnapshot['tools'][number];

/** The tree icon for a state: spinning while starting, coloured for running and failing. */
export function stateIcon(state: McpConnectionState): vscode.ThemeIcon {
  switch (state.kind) {
    case 'running':
      return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
    case 'starting':
      return new vscode.ThemeIcon('loading~spin');
    case 'reconnecting':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('list.warningForeground'));
    case 'error':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
    case 'blocked':
      return new vscode.ThemeIcon('shield', new vscode.ThemeColor('list.warningForeground'));
    case 'auth_required':
      return new vscode.ThemeIcon('account', new vscode.ThemeColor('list.warningForeground'));
    case 'disabled':
      return new vscode.ThemeIcon('circle-slash');
    case 'stopped':
      return new vscode.ThemeIcon('circle-outline');
  }
}

/**
 * Everything worth knowing about a server, as Markdown: state, transport, what it runs (secrets
 * masked), where it is configured, what it says it is, uptime, restarts, the error and stderr.
 */
export function serverTooltip(s: McpServerSnapshot, now = Date.now()): vscode.MarkdownString {
  const def = s.definition;
  const md = new vscode.MarkdownString(undefined, true);
  md.supportThemeIcons = true;
  md.appendMarkdown(`**${escapeMarkdown(s.name)}**: ${escapeMarkdown(stateLabel(s.state))}\n\n`);
  const rows: [string, string][] = [['Transport', s.transport ?? def.type ?? 'unknown']];
  rows.push([def.url !== undefined ? 'URL' : 'Command', code(describeLaunch(def))]);
  const env = redactEnv(def.env);
  if (Object.keys(env).length) rows.push(['Env', code(Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' '))]);
  const headers = redactHeaders(def.headers);
  if (Object.keys(headers).length) rows.push(['Headers', code(Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join(', '))]);
  // What a sandboxed server may reach.
  if (def.sandbox !== undefined && def.type === 'stdio') rows.push(['Sandbox', describeSandbox(def.sandbox).map(escapeMarkdown).join('; ')]);
  rows.push(['Defined in', originMarkdown(def.origin)]);
  for (const other of def.origin.alsoIn ?? []) rows.push(['Also in', originMarkdown(other)]);
  if (s.serverInfo) rows.push(['Server', escapeMarkdown(`${s.serverInfo.name} ${s.serverInfo.version}`)]);
  if (s.protocolVersion) rows.push(['Protocol', protocolLabel(s.protocolVersion)]);
  if (s.startedAt && s.state.kind === 'running') rows.push(['Up for', formatDuration(now - s.startedAt)]);
  if (s.restartCount) rows.push(['Restarts', String(s.restartCount)]);
  // What an organisation's server policy names this entry by.
  rows.push(['Fingerprint', code(serverPolicyFingerprint(def))]);
  if (s.state.kind === 'running') rows.push(['Offers', `${s.tools.length} tools, ${s.resources.length} resources, ${s.prompts.length} prompts`]);
  md.appendMarkdown(rows.map(([k, v]) => `${k}: ${v}`).join('  \n'));
  const problem = s.state.kind === 'error' ? s.state.message : s.state.kind === 'reconnecting' ? s.state.reason : s.lastError;
  if (problem) md.appendMarkdown(`\n\n$(error) **${s.state.kind === 'error' ? 'Error' : 'Last error'}:** ${escapeMarkdown(problem)}`);
  const stderr = s.stderrTail.slice(-8);
  if (stderr.length && s.state.kind !== 'running') md.appendMarkdown('\n\nLast stderr lines:\n').appendCodeblock(stderr.join('\n'), 'text');
  return md;
}

/** `2026-07-28 (server/discover)` or `2025-11-25 (initialize)`: the revision and how it was agreed. */
export function protocolLabel(version: string): string {
  return version >= '2026-07-28' ? `${version} (server/discover)` : `${version} (initialize)`;
}

/** A tool's description, annotations and input schema. */
export function toolTooltip(server: string, tool: Tool, exposedName?: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${escapeMarkdown(tool.name)}** (${escapeMarkdown(server)})\n\n`);
  if (exposedName) md.appendMarkdown(`The model calls it \`${exposedName}\`.\n\n`);
  if (tool.description) md.appendMarkdown(`${escapeMarkdown(tool.description)}\n\n`);
  const hints = Object.entries(tool.annotations ?? {})
    .filter(([k, v]) => k.endsWith('Hint') && v === true)
    .map(([k]) => k.replace(/Hint$/, ''));
  if (hints.length) md.appendMarkdown(`Hints: ${hints.join(', ')}\n\n`);
  md.appendCodeblock(JSON.stringify(tool.inputSchema, null, 2), 'json');
  return md;
}

export function stateLabel(state: McpConnectionState): string {
  switch (state.kind) {
    case 'reconnecting':
      return describeReconnect(state);
    case 'blocked':
      return `not started: ${state.reason}`;
    case 'error':
      return 'error';
    default:
      return state.kind;
  }
}

function originMarkdown(origin: McpConfigOrigin): string {
  const agent = describeOrigin({ ...origin, file: '', line: undefined }).trim();
  const where = `${escapeMarkdown(originLabel(origin.file))} \`${origin.jsonPath}\`${origin.line ? ` (line ${origin.line})` : ''}`;
  return agent ? `${escapeMarkdown(agent)}: ${where}` : where;
}

/**
 * Where a server found outside our own files comes from, short, for its tree row:
 * `Claude Desktop`, `extension acme.tools`, `VS Code MCP servers`; with `+1` for each other origin.
 * Undefined for servers of the workspace's files and the user's setting, whose tooltip says it.
 */
export function foundOriginLabel(origin: McpConfigOrigin): string | undefined {
  const others = origin.alsoIn?.length ? ` +${origin.alsoIn.length}` : '';
  switch (origin.source) {
    case 'explicit':
    case 'vscode':
    case 'claude':
    case 'harness':
    case 'user':
      return others ? `also in ${origin.alsoIn!.map((o) => describeOrigin({ ...o, file: '', line: undefined }).trim() || originLabel(o.file)).join(', ')}` : undefined;
    case 'extension':
      return `${origin.file}${others}`;
    default:
      return `${describeOrigin(origin, os.homedir())}${others}`;
  }
}

function originLabel(file: string): string {
  if (!path.isAbsolute(file)) return file;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file));
  return folder ? path.relative(folder.uri.fsPath, file) : file;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m % 60} min`;
}

function code(text: string): string {
  return '`' + text.replace(/`/g, "'") + '`';
}

/** Escapes Markdown punctuation so names and messages render as written. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
