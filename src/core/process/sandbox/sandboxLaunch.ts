import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail, ok, type Result } from '../../base/result';
import { buildSandboxPolicy, commandInstallRoot, findOnPath, sandboxUnavailableReason, type SandboxPolicy, type SandboxRequest } from './sandboxPolicy';

/** A stdio command as the transport spawns it. */
export interface SandboxCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface SandboxLaunchOptions {
  /** The bundled launcher (`dist/sandbox-launcher.mjs`). */
  readonly launcherPath: string;
  /** The Node that runs the launcher (default: this process's executable, as Node under Electron). */
  readonly nodePath?: string;
  readonly platform?: NodeJS.Platform;
  /** Whether a command is installed (default: looked up on this process's PATH). */
  readonly hasCommand?: (name: string) => boolean;
}

export interface SandboxedCommand {
  readonly launch: SandboxCommand;
  readonly policy: SandboxPolicy;
}

/**
 * Puts a stdio command under the sandbox launcher with the policy its entry asks for. Fails, with
 * the reason a person needs, where sandboxing is unavailable: the command is then not run at all.
 */
export function sandboxCommand(
  launch: SandboxCommand,
  request: SandboxRequest,
  context: { readonly workspaceFolders: readonly string[]; readonly userHome?: string },
  options: SandboxLaunchOptions,
): Result<SandboxedCommand> {
  const platform = options.platform ?? process.platform;
  const hasCommand = options.hasCommand ?? ((name: string) => findOnPath(name, process.env.PATH) !== undefined);
  const unavailable = sandboxUnavailableReason(platform, hasCommand);
  if (unavailable) return fail(unavailable);
  if (!fs.existsSync(options.launcherPath)) return fail(`the sandbox launcher is missing (${options.launcherPath}); reinstall MCP Harness`);
  const cwd = launch.cwd ?? process.cwd();
  const found = findOnPath(launch.command, launch.env.PATH);
  const policy = buildSandboxPolicy(request, {
    workspaceFolders: context.workspaceFolders,
    cwd,
    userHome: context.userHome,
    commandRoot: found ? commandInstallRoot(path.resolve(cwd, found)) : undefined,
  });
  const electron = process.versions.electron !== undefined && options.nodePath === undefined;
  return ok({
    policy,
    launch: {
      command: options.nodePath ?? process.execPath,
      args: [options.launcherPath, JSON.stringify(policy), '--', launch.command, ...launch.args],
      env: electron ? { ...launch.env, ELECTRON_RUN_AS_NODE: '1' } : launch.env,
      cwd: launch.cwd,
    },
  });
}
