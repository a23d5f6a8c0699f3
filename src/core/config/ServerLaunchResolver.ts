import type { IMcpInputResolver, McpLaunchResolution } from './launchTypes';
import { resolveServerLaunch } from './resolveServerLaunch';
import { buildServerEnvironment, needsLoginShellPath, readLoginShellPath } from './serverEnvironment';
import type { McpServerDefinition } from './types';

export interface ServerLaunchResolverOptions {
  /** The host's environment, read on every launch (usually `process.env`). */
  readonly env: () => Readonly<Record<string, string | undefined>>;
  /** Pass the host's whole environment to stdio servers instead of the safe subset. */
  readonly inheritEnv: () => boolean;
  readonly userHome: string;
  readonly platform: NodeJS.Platform;
  readonly inputResolver?: IMcpInputResolver;
  /** Asks the login shell for its PATH; defaults to {@link readLoginShellPath}. */
  readonly readLoginShellPath?: (shell: string) => Promise<string | undefined>;
}

/**
 * Turns a server's definition into its launch at start time: variables substituted, and for a
 * stdio server the environment it really gets (the safe subset of the host's, or all of it, the
 * login shell's PATH when the host has none worth the name, then the configured `env`). The login
 * shell is asked once per resolver.
 */
export class ServerLaunchResolver {
  private _loginShellPath: Promise<string | undefined> | undefined;

  constructor(private readonly _options: ServerLaunchResolverOptions) {}

  async resolve(def: McpServerDefinition): Promise<McpLaunchResolution> {
    const env = this._options.env();
    const resolved = await resolveServerLaunch(def, { env, userHome: this._options.userHome, inputResolver: this._options.inputResolver });
    if (!resolved.ok || resolved.value.type !== 'stdio') return resolved;
    const serverEnv = buildServerEnvironment(env, resolved.value.env, {
      platform: this._options.platform,
      inheritAll: this._options.inheritEnv(),
      loginShellPath: await this._pathFor(env),
    });
    return { ok: true, value: { ...resolved.value, env: serverEnv } };
  }

  /** What a command the harness runs for itself (a hook) gets: the host environment as servers get it. */
  hostEnvironment(): Record<string, string> {
    return buildServerEnvironment(this._options.env(), {}, { platform: this._options.platform, inheritAll: this._options.inheritEnv() });
  }

  private _pathFor(env: Readonly<Record<string, string | undefined>>): Promise<string | undefined> | undefined {
    if (!needsLoginShellPath(env, this._options.platform)) return undefined;
    const read = this._options.readLoginShellPath ?? ((shell: string) => readLoginShellPath(shell));
    this._loginShellPath ??= read(env.SHELL || '/bin/sh');
    return this._loginShellPath;
  }
}
