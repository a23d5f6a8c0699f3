import * as path from 'node:path';
import * as fs from 'node:fs';

/** What to hand to `child_process.spawn` for one server. */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** Set for `cmd /c`, whose quoting we do ourselves. */
  readonly windowsVerbatimArguments: boolean;
}

export interface SpawnPlanOptions {
  readonly platform: NodeJS.Platform;
  /** Environment used to search PATH/PATHEXT and to find `ComSpec`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** File existence check, injectable so the Windows logic can be tested anywhere. */
  readonly isFile?: (p: string) => boolean;
}

/**
 * Builds the spawn call for a configured command. On Windows, batch shims such as `npx.cmd`
 * cannot be started directly (CreateProcess only runs executables), so they go through
 * `cmd /d /s /c` with each argument quoted and cmd's metacharacters escaped.
 */
export function buildSpawnPlan(command: string, args: readonly string[], options: SpawnPlanOptions): SpawnPlan {
  if (options.platform !== 'win32') return { file: command, args, windowsVerbatimArguments: false };
  const resolved = resolveWindowsCommand(command, options);
  if (!resolved || !/\.(cmd|bat)$/i.test(resolved)) {
    return { file: resolved ?? command, args, windowsVerbatimArguments: false };
  }
  const comspec = options.env.ComSpec ?? options.env.COMSPEC ?? 'cmd.exe';
  const line = [escapeCmdCommand(resolved), ...args.map(escapeCmdArgument)].join(' ');
  return { file: comspec, args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}

/** Finds what Windows would run for `command`, trying PATHEXT when it has no extension. */
export function resolveWindowsCommand(command: string, options: SpawnPlanOptions): string | undefined {
  const isFile = options.isFile ?? defaultIsFile;
  const win = path.win32;
  const exts = (options.env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  const candidates = (base: string) => (win.extname(base) ? [base, ...exts.map((e) => base + e)] : exts.map((e) => base + e));
  const hasDir = command.includes('\\') || command.includes('/');
  if (hasDir) return candidates(command).find(isFile);
  const dirs = (options.env.PATH ?? options.env.Path ?? '').split(';').filter(Boolean);
  for (const dir of dirs) {
    const hit = candidates(win.join(dir, command)).find(isFile);
    if (hit) return hit;
  }
  return undefined;
}

// cmd metacharacters that must be caret-escaped outside of our own quoting.
const CMD_META = /([()\][%!^"`<>&|;, *?])/g;

/** Quotes one argument by CreateProcess rules, then escapes it for cmd. */
export function escapeCmdArgument(arg: string): string {
  let quoted = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    // Backslashes before a quote are doubled, and the quote itself escaped.
    quoted += ch === '"' ? '\\'.repeat(backslashes * 2 + 1) + '"' : '\\'.repeat(backslashes) + ch;
    backslashes = 0;
  }
  // Trailing backslashes are doubled so they do not escape the closing quote.
  quoted += '\\'.repeat(backslashes * 2) + '"';
  return quoted.replace(CMD_META, '^$1');
}

/** The command itself is not quoted by CreateProcess rules; only cmd's metacharacters matter. */
export function escapeCmdCommand(command: string): string {
  return command.replace(CMD_META, '^$1');
}

function defaultIsFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    // Not there, or not ours to see.
  }
  return false;
}
