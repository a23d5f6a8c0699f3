/**
 * Hooks as configured: commands run around tool calls and chat events, in Claude Code's format
 * (`"hooks": { "PreToolUse": [ { "matcher": "...", "hooks": [ { "type": "command", ... } ] } ] }`).
 */

/** The events a hook can run on. */
export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run when its entry gives no `timeout` (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/**
 * Where a hook comes from. `user`: the user's own settings (or the CLI's user file); `workspace`:
 * `.harness/hooks.json` of a workspace folder; `claude`: a folder's `.claude/settings.json`, read
 * when the user opted in; `explicit`: a file named on the command line. Workspace and Claude hooks
 * are a repository's commands: a host runs them only after the user approved them.
 */
export type HookSource = 'user' | 'workspace' | 'claude' | 'explicit';

export interface HookOrigin {
  readonly source: HookSource;
  /** Absolute path of the file, or the host's label for its settings (e.g. `settings.json`). */
  readonly file: string;
  /** Dotted JSON path of the entry, e.g. `hooks.PreToolUse[0].hooks[1]`. */
  readonly jsonPath: string;
  readonly line?: number;
  readonly column?: number;
  /** The workspace folder the file belongs to (hooks run there). */
  readonly workspaceFolder?: string;
}

/** One configured hook command. */
export interface HookDefinition {
  /** Unique within one load: the origin's file and JSON path. */
  readonly id: string;
  readonly event: HookEventName;
  /** The matcher as written; empty when absent (every tool, every source). */
  readonly matcher: string;
  /** A shell command line (`/bin/sh -c`, `cmd.exe /d /s /c` on Windows). */
  readonly command: string;
  /** Seconds before the command is killed. */
  readonly timeoutSec: number;
  /** `block` (default): a hook that fails stops what it guards; `continue`: its failure is only reported. */
  readonly onError: 'block' | 'continue';
  readonly origin: HookOrigin;
}
