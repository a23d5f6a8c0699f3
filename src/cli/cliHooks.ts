import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { CALLER_DECIDES, describeUnansweredAsk, hookLabel, type HarnessHookOptions, type HookSnapshot, type ICallDecider } from '../core';

/** The CLI's own hooks file: `~/.config/mcp-harness/hooks.json` (`$XDG_CONFIG_HOME`, `%APPDATA%` on Windows). */
export function defaultUserHooksFile(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const base = platform === 'win32' ? (env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming')) : (env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'));
  return path.join(base, 'mcp-harness', 'hooks.json');
}

/**
 * Where the CLI and `serve` take hooks from: the user's file, `--hooks` files, and (with
 * `--claude-hooks`) each folder's `.claude/settings.json`; `.harness/hooks.json` of the workspace
 * is always read. The terminal's user chose the workspace to run in, as with its servers.
 */
export function cliHookOptions(options: { readonly hookFiles: readonly string[]; readonly claudeHooks: boolean }): HarnessHookOptions {
  return { userFiles: [defaultUserHooksFile()], files: options.hookFiles, claudeSettings: options.claudeHooks };
}

/**
 * `call`'s decider: the person who typed the command decided, except that a PreToolUse hook's
 * `ask` is put to them on the terminal (and answered no when there is none).
 */
export function terminalDecider(interactive: boolean): ICallDecider {
  return {
    decide: async (call) => {
      if (call.hook?.decision !== 'ask') return { outcome: 'allow', decider: CALLER_DECIDES };
      const hint = call.hook;
      if (!interactive) return { outcome: 'deny', decider: { by: 'hook', hook: hint.hook }, reason: describeUnansweredAsk(hint) };
      const question = `The PreToolUse hook "${hint.hook}" asks before ${call.tool.name} ${JSON.stringify(call.arguments)} runs${hint.reason ? `: ${hint.reason}` : ''}.\nRun it? [y/N] `;
      const yes = await askYesNo(question);
      return yes ? { outcome: 'allow', decider: { by: 'user', choice: 'once' } } : { outcome: 'deny', decider: { by: 'user', choice: 'deny' } };
    },
  };
}

function askYesNo(question: string): Promise<boolean> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
    rl.on('SIGINT', () => {
      rl.close();
      resolve(false);
    });
  });
}

/** `hooks`: every hook, its event and matcher, where it is configured, and whether it runs. */
export function renderHooks(hooks: readonly HookSnapshot[], workspace: string): { rows: string[][]; json: unknown[] } {
  const where = (file: string) => (path.isAbsolute(file) && file.startsWith(workspace + path.sep) ? path.relative(workspace, file) : file);
  return {
    rows: hooks.map(({ hook, blocked }) => [hook.event, hook.matcher || '*', hookLabel(hook), `${where(hook.origin.file)}${hook.origin.line ? `:${hook.origin.line}` : ''}`, blocked ?? 'active']),
    json: hooks.map(({ hook, blocked }) => ({ event: hook.event, matcher: hook.matcher, command: hook.command, timeout: hook.timeoutSec, onError: hook.onError, origin: hook.origin, state: blocked ?? 'active' })),
  };
}
