import * as vscode from 'vscode';
import { describeTask, formatTaskAge, type HarnessTask } from '../core';
import { escapeMarkdown } from './serverPresentation';

/** The tree row of a running task: its title, status with the server's message, progress and age; "Cancel Task" inline. */
export function taskItem(task: HarnessTask, now = Date.now()): vscode.TreeItem {
  const item = new vscode.TreeItem(task.title);
  item.id = `task:${task.server}:${task.taskId}`;
  item.description = describeTask(task, now);
  item.iconPath = taskIcon(task);
  item.tooltip = taskTooltip(task, now);
  // `task.<kind>.<status>`: menus match the prefix.
  item.contextValue = `task.${task.kind}.${task.status}`;
  item.accessibilityInformation = { label: `Task ${task.title} on ${task.server}: ${item.description}` };
  return item;
}

function taskIcon(task: HarnessTask): vscode.ThemeIcon {
  if (task.status === 'input_required') return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('list.warningForeground'));
  if (task.kind !== 'tool') return new vscode.ThemeIcon('comment-discussion');
  return new vscode.ThemeIcon('sync~spin');
}

/** Everything about a task, as Markdown. */
export function taskTooltip(task: HarnessTask, now = Date.now()): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportThemeIcons = true;
  const what = task.kind === 'tool' ? `a call of \`${escapeMarkdown(task.tool ?? task.title)}\`` : task.kind === 'sampling' ? 'a model request the server sent as a task' : 'a question the server sent as a task';
  md.appendMarkdown(`**${escapeMarkdown(task.title)}**: ${what} on **${escapeMarkdown(task.server)}**\n\n`);
  const rows: [string, string][] = [['Status', escapeMarkdown(task.status === 'input_required' ? 'waiting for input' : task.status)]];
  if (task.statusMessage) rows.push(['Message', escapeMarkdown(task.statusMessage)]);
  const p = task.progress;
  if (p) rows.push(['Progress', escapeMarkdown(`${p.progress}${p.total !== undefined ? ` of ${p.total}` : ''}${p.message ? `: ${p.message}` : ''}`)]);
  rows.push(['Started', `${new Date(task.createdAt).toLocaleString()} (${formatTaskAge(task.createdAt, now)} ago)`]);
  rows.push(['Task', `\`${task.taskId}\``]);
  if (task.resumed) rows.push(['Picked up', 'again after a restart: its result goes to the conversation that started it']);
  md.appendMarkdown(rows.map(([k, v]) => `${k}: ${v}`).join('  \n'));
  return md;
}

/** Milliseconds until the first of `tasks` shows another age (a second while young, a minute later), or undefined. */
export function nextAgeChange(tasks: readonly HarnessTask[], now = Date.now()): number | undefined {
  let next: number | undefined;
  for (const t of tasks) {
    const age = Math.max(0, now - t.createdAt);
    const unit = age < 60_000 ? 1000 : 60_000;
    const wait = unit - (age % unit) + 5;
    next = next === undefined ? wait : Math.min(next, wait);
  }
  return next;
}

/**
 * One node object per running task: VS Code refreshes a single row only through the element object
 * it was given, so a task's row keeps its object while the task runs.
 */
export class TaskNodes<N> {
  private readonly _nodes = new Map<string, N>();

  constructor(private readonly _make: (server: string, taskId: string) => N) {}

  node(server: string, taskId: string): N {
    const key = JSON.stringify([server, taskId]);
    let node = this._nodes.get(key);
    if (node === undefined) this._nodes.set(key, (node = this._make(server, taskId)));
    return node;
  }

  /** After the tasks changed: undefined when one started or ended (the tree is rebuilt), else the rows to refresh. */
  update(tasks: readonly HarnessTask[]): N[] | undefined {
    const keys = new Set(tasks.map((t) => JSON.stringify([t.server, t.taskId])));
    if (keys.size === this._nodes.size && [...keys].every((k) => this._nodes.has(k))) return [...this._nodes.values()];
    for (const k of [...this._nodes.keys()]) if (!keys.has(k)) this._nodes.delete(k);
    return undefined;
  }
}
