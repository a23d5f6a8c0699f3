import * as path from 'node:path';
import { fail, ok, type Result } from './base/result';
import type { McpResolvedLaunch, McpServerDefinition } from './config';
import { sandboxCommand } from './process/sandbox/sandboxLaunch';
import { describeSandboxPolicy } from './process/sandbox/sandboxPolicy';

export interface HarnessSandboxContext {
  readonly workspaceFolders: readonly string[];
  readonly userHome?: string;
  /** Default: `sandbox-launcher.mjs` beside this bundle. */
  readonly launcherPath?: string;
}

/**
 * The launch of a stdio server whose entry sets `sandbox`: the same command, run under the
 * sandbox launcher. Fails (the server is then not started) where sandboxing is unavailable.
 */
export function sandboxLaunch(
  def: McpServerDefinition,
  launch: McpResolvedLaunch,
  context: HarnessSandboxContext,
): Result<{ readonly launch: McpResolvedLaunch; readonly description: string }> {
  const folders = [...context.workspaceFolders, ...(def.workspaceFolder ? [def.workspaceFolder] : [])];
  const wrapped = sandboxCommand(
    { command: launch.command!, args: launch.args, env: launch.env, cwd: launch.cwd },
    def.sandbox ?? {},
    { workspaceFolders: folders, userHome: context.userHome },
    { launcherPath: context.launcherPath ?? path.join(__dirname, 'sandbox-launcher.mjs') },
  );
  if (!wrapped.ok) return fail(`"sandbox" is set and ${wrapped.error}; the server is not started (it never runs unsandboxed)`);
  const { command, args, env } = wrapped.value.launch;
  return ok({ launch: { ...launch, command, args: [...args], env: { ...env } }, description: describeSandboxPolicy(wrapped.value.policy) });
}
