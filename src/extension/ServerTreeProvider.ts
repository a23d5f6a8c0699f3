// Over 300 lines: one TreeDataProvider for every node kind (servers, their tools, resources, prompts
// and skills, running tasks, and hooks), so ids, parents and refreshes stay consistent in one place.
import * as vscode from 'vscode';
import { describeReconnect, Disposable, HOOK_AWAITING_APPROVAL, SKILLS_EXTENSION, type HarnessSkill, type HookSnapshot, type McpHarness, type McpServerSnapshot } from '../core';
import { describeHook } from './HookFeature';
import { mcpToolCandidateName } from '../core/tools/McpToolNaming';
import { scanTool } from '../core/permissions';
import { foundOriginLabel, serverTooltip, stateIcon, toolTooltip } from './serverPresentation';
import type { ToolEnablement } from './ToolEnablement';
import { nextAgeChange, taskItem, TaskNodes } from './taskPresentation';

type Tool = McpServerSnapshot['tools'][number];

/** A node of the tree: a server, one of its groups, or an item inside a group. */
export type ServerTreeNode =
  | { readonly kind: 'server'; readonly server: string }
  | { readonly kind: 'group'; readonly server: string; readonly group: 'tools' | 'resources' | 'prompts' | 'skills' }
  | { readonly kind: 'tool'; readonly server: string; readonly tool: string }
  | { readonly kind: 'resource'; readonly server: string; readonly uri: string }
  | { readonly kind: 'prompt'; readonly server: string; readonly prompt: string }
  | { readonly kind: 'skill'; readonly server: string; readonly skill: string }
  /** A running task of the server (a tool call that became one, or a request of the server's run as one here), first under it. */
  | { readonly kind: 'task'; readonly server: string; readonly taskId: string }
  /** "Hooks", after the servers: every configured hook, with where it comes from. */
  | { readonly kind: 'hooks'; readonly server?: undefined }
  | { readonly kind: 'hook'; readonly server?: undefined; readonly hook: string };

/**
 * "MCP Servers": one node per server with its state, and Tools / Resources / Prompts below.
 * Updates come from the harness's change events only. Nodes have stable ids, so expansion and
 * selection survive updates.
 */
export class ServerTreeProvider extends Disposable implements vscode.TreeDataProvider<ServerTreeNode> {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<ServerTreeNode | ServerTreeNode[] | undefined>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private _refreshQueued = false;
  private _forgetSkills = false;
  private _exposed: { tools: readonly unknown[]; names: Map<string, string> } | undefined;
  /** Ticks once a second while a server waits to reconnect, so "next try in N s" counts down. */
  private _countdown: ReturnType<typeof setTimeout> | undefined;
  private readonly _taskNodes = new TaskNodes<ServerTreeNode>((server, taskId) => ({ kind: 'task', server, taskId }));
  private _taskTick: ReturnType<typeof setTimeout> | undefined;
  /** Each server's skills as last listed (on expanding its Skills group); forgotten at every refresh, so a change the server announced shows. */
  private readonly _skills = new Map<string, readonly HarnessSkill[]>();

  constructor(
    private readonly _harness: McpHarness,
    private readonly _enablement: ToolEnablement,
  ) {
    super();
    this._register(_harness.onDidChange(() => this._queueRefresh()));
    this._register(_enablement.onDidChange(() => this._queueRefresh()));
    this._register(_harness.onDidChangeHooks(() => this._queueRefresh()));
    this._register(_harness.onDidChangeTasks(() => this._onTasksChanged()));
  }

  getChildren(node?: ServerTreeNode): ServerTreeNode[] | Promise<ServerTreeNode[]> {
    if (!node) {
      const servers: ServerTreeNode[] = this._harness.snapshots().map((s) => ({ kind: 'server', server: s.name }));
      return this._harness.hooks().length ? [...servers, { kind: 'hooks' }] : servers;
    }
    if (node.kind === 'hooks') return this._harness.hooks().map((h) => ({ kind: 'hook', hook: h.hook.id }));
    if (node.server === undefined) return [];
    const snapshot = this._snapshot(node.server);
    if (!snapshot) return [];
    if (node.kind === 'server') {
      const groups: ServerTreeNode[] = this._tasksOf(node.server).map((t) => this._taskNodes.node(t.server, t.taskId));
      if (snapshot.tools.length) groups.push({ kind: 'group', server: node.server, group: 'tools' });
      if (snapshot.resources.length) groups.push({ kind: 'group', server: node.server, group: 'resources' });
      if (snapshot.prompts.length) groups.push({ kind: 'group', server: node.server, group: 'prompts' });
      if (offersSkills(snapshot)) groups.push({ kind: 'group', server: node.server, group: 'skills' });
      return groups;
    }
    if (node.kind !== 'group') return [];
    if (node.group === 'tools') return snapshot.tools.map((t) => ({ kind: 'tool', server: node.server, tool: t.name }));
    if (node.group === 'resources') return snapshot.resources.map((r) => ({ kind: 'resource', server: node.server, uri: r.uri }));
    if (node.group === 'skills') return this._listSkills(node.server);
    return snapshot.prompts.map((p) => ({ kind: 'prompt', server: node.server, prompt: p.name }));
  }

  getParent(node: ServerTreeNode): ServerTreeNode | undefined {
    switch (node.kind) {
      case 'server':
      case 'hooks':
        return undefined;
      case 'task':
        return { kind: 'server', server: node.server };
      case 'hook':
        return { kind: 'hooks' };
      case 'group':
        return { kind: 'server', server: node.server };
      case 'tool':
        return { kind: 'group', server: node.server, group: 'tools' };
      case 'resource':
        return { kind: 'group', server: node.server, group: 'resources' };
      case 'prompt':
        return { kind: 'group', server: node.server, group: 'prompts' };
      case 'skill':
        return { kind: 'group', server: node.server, group: 'skills' };
    }
  }

  getTreeItem(node: ServerTreeNode): vscode.TreeItem {
    if (node.kind === 'hooks' || node.kind === 'hook') return this._hookItem(node);
    if (node.kind === 'task') {
      const task = this._tasksOf(node.server).find((t) => t.taskId === node.taskId);
      return task ? taskItem(task) : new vscode.TreeItem(node.taskId);
    }
    const snapshot = this._snapshot(node.server);
    if (!snapshot) return new vscode.TreeItem(node.server);
    switch (node.kind) {
      case 'server':
        return this._serverItem(snapshot);
      case 'group':
        return this._groupItem(snapshot, node.group);
      case 'tool':
        return this._toolItem(snapshot, snapshot.tools.find((t) => t.name === node.tool));
      case 'resource': {
        const resource = snapshot.resources.find((r) => r.uri === node.uri);
        const item = new vscode.TreeItem(resource?.name ?? node.uri);
        item.id = `resource:${node.server}:${node.uri}`;
        item.description = node.uri;
        item.tooltip = resource?.description;
        item.iconPath = new vscode.ThemeIcon('file');
        return item;
      }
      case 'prompt': {
        const prompt = snapshot.prompts.find((p) => p.name === node.prompt);
        const item = new vscode.TreeItem(node.prompt);
        item.id = `prompt:${node.server}:${node.prompt}`;
        item.description = prompt?.description?.split('\n')[0];
        item.tooltip = prompt?.description;
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        return item;
      }
      case 'skill': {
        const skill = this._skills.get(node.server)?.find((k) => k.name === node.skill);
        const item = new vscode.TreeItem(node.skill);
        item.id = `skill:${node.server}:${node.skill}`;
        item.description = skill?.description.split('\n')[0];
        item.tooltip = skill ? `${skill.description}\n\n${skill.uri}\n${skill.dynamic ? 'dynamic: no digests published' : `${skill.files.length} file(s), each checked against its SHA-256 digest and size when loaded`}` : undefined;
        item.iconPath = new vscode.ThemeIcon('mortar-board');
        item.contextValue = 'skill';
        return item;
      }
    }
  }

  /** Tooltips are built when hovered, so uptime and the stderr tail are current. */
  resolveTreeItem(item: vscode.TreeItem, node: ServerTreeNode): vscode.TreeItem {
    const snapshot = node.kind === 'server' ? this._snapshot(node.server) : undefined;
    if (snapshot) item.tooltip = serverTooltip(snapshot);
    return item;
  }

  override dispose(): void {
    clearTimeout(this._countdown);
    clearTimeout(this._taskTick);
    super.dispose();
  }

  /**
   * A task started or ended: the whole tree (its server row counts tasks). Only a task's state,
   * progress or age changed: just its row, so the tree does not rebuild under the pointer (a
   * rebuilt row's inline action would lose the row it belongs to). Skills stay listed either way.
   */
  private _onTasksChanged(): void {
    const rows = this._taskNodes.update(this._harness.tasks());
    if (!rows) this._queueRefresh(false);
    else if (rows.length) this._onDidChangeTreeData.fire(rows);
    this._scheduleTaskTick();
  }

  /** Running tasks show their age: their rows are refreshed when it reads differently. */
  private _scheduleTaskTick(): void {
    clearTimeout(this._taskTick);
    const wait = nextAgeChange(this._harness.tasks());
    this._taskTick = wait === undefined ? undefined : setTimeout(() => this._onTasksChanged(), wait);
  }

  private _hookItem(node: Extract<ServerTreeNode, { kind: 'hooks' | 'hook' }>): vscode.TreeItem {
    const hooks = this._harness.hooks();
    if (node.kind === 'hooks') {
      const item = new vscode.TreeItem('Hooks', vscode.TreeItemCollapsibleState.Collapsed);
      item.id = 'hooks';
      const waiting = hooks.filter((h) => h.blocked !== undefined).length;
      item.description = waiting ? `${hooks.length - waiting} of ${hooks.length} active` : String(hooks.length);
      item.iconPath = new vscode.ThemeIcon('zap');
      item.contextValue = 'hooks';
      return item;
    }
    const snapshot = hooks.find((h) => h.hook.id === node.hook);
    if (!snapshot) return new vscode.TreeItem(node.hook);
    return hookItem(snapshot);
  }

  private _serverItem(s: McpServerSnapshot): vscode.TreeItem {
    const tasks = this._tasksOf(s.name).length;
    const hasChildren = s.tools.length + s.resources.length + s.prompts.length + tasks > 0 || offersSkills(s);
    const item = new vscode.TreeItem(s.name, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `server:${s.name}`;
    item.iconPath = stateIcon(s.state);
    const origin = foundOriginLabel(s.definition.origin);
    const sandboxed = s.definition.sandbox !== undefined && s.definition.type === 'stdio' ? ' · sandboxed' : '';
    const running = tasks ? ` · ${tasks} ${tasks === 1 ? 'task' : 'tasks'}` : '';
    item.description = `${serverDescription(s, this._enablement)}${sandboxed}${running}${origin ? ` · ${origin}` : ''}`;
    // `.signin` marks servers reached over HTTP, the ones that can sign in (and so sign out); a
    // stdio server cannot. Menus match the state as a prefix, so the suffix leaves them working.
    item.contextValue = `server.${s.state.kind}${s.transport !== undefined && s.transport !== 'stdio' ? '.signin' : ''}`;
    return item;
  }

  private _groupItem(s: McpServerSnapshot, group: 'tools' | 'resources' | 'prompts' | 'skills'): vscode.TreeItem {
    if (group === 'skills') {
      const item = new vscode.TreeItem('Skills', vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `skills:${s.name}`;
      const listed = this._skills.get(s.name);
      if (listed) item.description = String(listed.length);
      item.iconPath = new vscode.ThemeIcon('mortar-board');
      return item;
    }
    const count = group === 'tools' ? s.tools.length : group === 'resources' ? s.resources.length : s.prompts.length;
    const label = group === 'tools' ? 'Tools' : group === 'resources' ? 'Resources' : 'Prompts';
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `${group}:${s.name}`;
    if (group === 'tools') {
      const enabled = s.tools.filter((t) => this._enablement.isEnabled(s.name, t.name)).length;
      item.description = enabled === count ? String(count) : `${enabled} of ${count} enabled`;
    } else {
      item.description = String(count);
    }
    item.iconPath = new vscode.ThemeIcon(group === 'tools' ? 'tools' : group === 'resources' ? 'files' : 'comment-discussion');
    return item;
  }

  private _toolItem(s: McpServerSnapshot, tool: Tool | undefined): vscode.TreeItem {
    const name = tool?.name ?? '?';
    const item = new vscode.TreeItem(tool?.title ?? tool?.annotations?.title ?? name);
    item.id = `tool:${s.name}:${name}`;
    const badges = [tool?.annotations?.readOnlyHint ? 'read-only' : undefined, tool?.annotations?.destructiveHint ? 'destructive' : undefined].filter(Boolean);
    // Descriptions are often Markdown; a tree row shows plain text.
    const summary = (tool?.description?.split('\n')[0] ?? '').replace(/[`*_]/g, '');
    const hits = tool ? poisoningHits(tool) : [];
    // A name another server or tool already held is suffixed: say so, or the model's calls read as another tool's.
    const exposed = tool ? this._exposedName(s.name, name) : undefined;
    const renamed = exposed !== undefined && exposed !== mcpToolCandidateName({ server: s.name, tool: name });
    item.description = [hits.length ? '⚠ suspicious' : '', renamed ? `as ${exposed}` : '', badges.length ? `[${badges.join(', ')}]` : '', summary].filter(Boolean).join(' ');
    item.tooltip = tool ? toolTooltip(s.name, tool, exposed) : undefined;
    if (hits.length && item.tooltip instanceof vscode.MarkdownString) {
      item.tooltip.appendMarkdown(`\n\n**Suspicious content** (the chat shows it on the tool's permission card):\n`);
      for (const hit of hits) item.tooltip.appendMarkdown(`\n- ${hit.where}: `).appendText(hit.excerpt);
    }
    // Only annotated or flagged tools get an icon; the checkbox already marks the row.
    if (hits.length) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    else if (tool?.annotations?.destructiveHint) item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    else if (tool?.annotations?.readOnlyHint) item.iconPath = new vscode.ThemeIcon('eye');
    item.checkboxState = this._enablement.isEnabled(s.name, name) ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked;
    item.contextValue = 'tool';
    return item;
  }

  /** The name a model calls a server's tool by (looked up in one map per tool list). */
  private _exposedName(server: string, tool: string): string | undefined {
    const tools = this._harness.tools();
    if (this._exposed?.tools !== tools) {
      this._exposed = { tools, names: new Map(tools.flatMap((t) => (t.server !== undefined ? [[JSON.stringify([t.server, t.originalName]), t.name] as const] : []))) };
    }
    return this._exposed.names.get(JSON.stringify([server, tool]));
  }

  /** `skills/list` on the server (reads no file); a failure shows as no skills, the log says why. */
  private async _listSkills(server: string): Promise<ServerTreeNode[]> {
    const { skills: own } = await this._harness.skills({ server });
    this._skills.set(server, own);
    return own.map((k) => ({ kind: 'skill', server, skill: k.name }));
  }

  private _tasksOf(server: string) {
    return this._harness.tasks().filter((t) => t.server === server);
  }

  private _snapshot(name: string): McpServerSnapshot | undefined {
    return this._harness.snapshots().find((s) => s.name === name);
  }

  /** Coalesces bursts of events (a server starting fires several) into one refresh. */
  private _queueRefresh(forgetSkills = true): void {
    this._forgetSkills ||= forgetSkills;
    if (this._refreshQueued) return;
    this._refreshQueued = true;
    queueMicrotask(() => {
      this._refreshQueued = false;
      if (this._forgetSkills) this._skills.clear();
      this._forgetSkills = false;
      this._onDidChangeTreeData.fire(undefined);
      this._scheduleCountdown();
    });
  }

  private _scheduleCountdown(): void {
    clearTimeout(this._countdown);
    this._countdown = undefined;
    const now = Date.now();
    const waits = this._harness
      .snapshots()
      .map((s) => (s.state.kind === 'reconnecting' ? s.state.nextAttemptAt : undefined))
      .filter((at): at is number => at !== undefined && at > now)
      // Wake just after the soonest whole-second boundary of any countdown.
      .map((at) => ((at - now) % 1000) + 5);
    if (waits.length === 0) return;
    this._countdown = setTimeout(() => this._queueRefresh(false), Math.min(...waits));
  }
}

/** One hook: event and matcher, its command, where it comes from, and why it does not run when it does not. */
function hookItem({ hook, blocked }: HookSnapshot): vscode.TreeItem {
  const { label, description, origin } = describeHook(hook);
  const item = new vscode.TreeItem(label);
  item.id = `hook:${hook.id}`;
  item.description = `${description} · ${origin}${blocked ? ` · ${blocked}` : ''}`;
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${hook.event}** hook from ${origin}\n\n`);
  tooltip.appendCodeblock(hook.command, 'sh');
  tooltip.appendMarkdown(`\nMatcher: \`${hook.matcher || '*'}\` · timeout ${hook.timeoutSec} s · on error: ${hook.onError}`);
  if (blocked) tooltip.appendMarkdown(`\n\nNot running: ${blocked}`);
  item.tooltip = tooltip;
  item.iconPath = blocked ? new vscode.ThemeIcon(blocked === HOOK_AWAITING_APPROVAL ? 'shield' : 'circle-slash', new vscode.ThemeColor('list.warningForeground')) : new vscode.ThemeIcon('zap');
  item.contextValue = blocked === HOOK_AWAITING_APPROVAL ? 'hook.pending' : blocked ? 'hook.blocked' : 'hook.active';
  return item;
}

function offersSkills(s: McpServerSnapshot): boolean {
  return s.state.kind === 'running' && s.capabilities?.extensions?.[SKILLS_EXTENSION] !== undefined;
}

/** Poisoning-scan hits of a tool's definition, computed once per tool object (lists are replaced, not mutated). */
const scanned = new WeakMap<Tool, ReturnType<typeof scanTool>>();
function poisoningHits(tool: Tool): ReturnType<typeof scanTool> {
  let hits = scanned.get(tool);
  if (!hits) {
    hits = scanTool({ title: tool.title, description: tool.description ?? '', inputSchema: tool.inputSchema });
    scanned.set(tool, hits);
  }
  return hits;
}

/** `12 tools` (`11 of 12 tools` when some are switched off), or the short reason the server is not running. */
export function serverDescription(s: McpServerSnapshot, enablement: ToolEnablement): string {
  switch (s.state.kind) {
    case 'running': {
      const enabled = s.tools.filter((t) => enablement.isEnabled(s.name, t.name)).length;
      const noun = s.tools.length === 1 ? 'tool' : 'tools';
      return enabled === s.tools.length ? `${s.tools.length} ${noun}` : `${enabled} of ${s.tools.length} ${noun}`;
    }
    case 'starting':
      return 'starting…';
    case 'reconnecting':
      return `${describeReconnect(s.state)}…`;
    case 'error':
      return firstLine(s.state.message, 80);
    case 'blocked':
      // The organisation's rule is the point of the row: it is not cut short.
      return firstLine(s.state.reason, s.state.policy ? 400 : 80);
    case 'auth_required':
      return 'sign-in required';
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
  }
}

function firstLine(text: string, max: number): string {
  const line = text.split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
