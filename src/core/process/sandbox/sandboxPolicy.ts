import * as fs from 'node:fs';
import * as path from 'node:path';

/** What a server entry asks of its sandbox (`true` in a config file is `{}`). */
export interface SandboxRequest {
  readonly filesystem?: { readonly allowWrite?: readonly string[]; readonly denyRead?: readonly string[] };
  readonly network?: { readonly allowedDomains?: readonly string[] };
}

/**
 * The sandbox one server runs in, in the shape `@anthropic-ai/sandbox-runtime` takes (its
 * `SandboxRuntimeConfig`), every path absolute. Reads are allowed except `denyRead` (where
 * `allowRead` carves exceptions back out); writes only under `allowWrite`; connections only to
 * `allowedDomains`, through the runtime's proxy.
 */
export interface SandboxPolicy {
  readonly filesystem: {
    readonly denyRead: string[];
    readonly allowRead: string[];
    readonly allowWrite: string[];
    readonly denyWrite: string[];
  };
  readonly network: { readonly allowedDomains: string[]; readonly deniedDomains: string[] };
}

export interface SandboxPolicyContext {
  /** The workspace folders: always readable, even inside the home folder. */
  readonly workspaceFolders: readonly string[];
  /** The server's working directory: relative paths in the entry are taken from it; readable. */
  readonly cwd: string;
  /** The user's home folder: hidden from the server except what the workspace and the command need. */
  readonly userHome?: string;
  /** Where the command is installed (see {@link commandInstallRoot}); readable, so a tool under home still runs. */
  readonly commandRoot?: string;
}

/**
 * The policy for a server entry's `sandbox`: read the workspace and the system, not the rest of
 * the home folder (where keys and tokens live) nor what `denyRead` names; write only what
 * `allowWrite` names; reach only `allowedDomains`.
 */
export function buildSandboxPolicy(request: SandboxRequest, context: SandboxPolicyContext): SandboxPolicy {
  const absolute = (p: string) => toAbsolute(p, context.cwd, context.userHome);
  const readable = [...context.workspaceFolders, context.cwd, ...(context.commandRoot ? [context.commandRoot] : [])];
  return {
    filesystem: {
      denyRead: unique([...(context.userHome ? [context.userHome] : []), ...(request.filesystem?.denyRead ?? []).map(absolute)]),
      allowRead: unique(readable.map(absolute)),
      allowWrite: unique((request.filesystem?.allowWrite ?? []).map(absolute)),
      denyWrite: [],
    },
    network: { allowedDomains: [...(request.network?.allowedDomains ?? [])], deniedDomains: [] },
  };
}

/**
 * Why sandboxed servers cannot run on this machine, or undefined when they can: the runtime
 * wraps bubblewrap (with socat for its network proxy and ripgrep) on Linux and sandbox-exec
 * (with ripgrep) on macOS, and has nothing on other platforms.
 */
export function sandboxUnavailableReason(platform: NodeJS.Platform, hasCommand: (name: string) => boolean): string | undefined {
  const needs: Partial<Record<NodeJS.Platform, readonly [string, string][]>> = {
    linux: [['bwrap', 'bubblewrap'], ['socat', 'socat'], ['rg', 'ripgrep']],
    darwin: [['sandbox-exec', 'sandbox-exec'], ['rg', 'ripgrep']],
  };
  const list = needs[platform];
  if (!list) return `sandboxing is not available on ${platform === 'win32' ? 'Windows' : platform} (only Linux and macOS)`;
  const missing = list.filter(([command]) => !hasCommand(command)).map(([, name]) => name);
  if (missing.length === 0) return undefined;
  const install = platform === 'linux' ? `apt-get install ${missing.join(' ')}` : `brew install ${missing.join(' ')}`;
  return `sandboxing needs ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not installed (${install})`;
}

/**
 * Finds `command` on `PATH`; undefined when it is not there. Unlike a shell, an empty entry does
 * not mean the current folder: a sandbox launcher is never taken from wherever the harness runs.
 */
export function findOnPath(command: string, pathVariable: string | undefined): string | undefined {
  if (command.includes('/')) return isExecutable(command) ? command : undefined;
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The folder a command is installed in: the parent of the `bin` folder its real file sits in
 * (`~/.nvm/versions/node/v20/bin/node` gives `~/.nvm/versions/node/v20`), else its own folder.
 */
export function commandInstallRoot(commandPath: string): string {
  let real = commandPath;
  try {
    real = fs.realpathSync(commandPath);
  } catch {
    // Keep the path as found.
  }
  const dir = path.dirname(real);
  return path.basename(dir) === 'bin' ? path.dirname(dir) : dir;
}

function toAbsolute(p: string, cwd: string, home: string | undefined): string {
  if (home && (p === '~' || p.startsWith('~/'))) return path.join(home, p.slice(1));
  return path.resolve(cwd, p);
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** One line for the server's log: what the sandbox lets the server reach, paths resolved. */
export function describeSandboxPolicy(policy: SandboxPolicy): string {
  const { filesystem, network } = policy;
  const reads = filesystem.denyRead.length === 0 ? 'everything' : `everything except ${filesystem.denyRead.join(', ')} (but still ${filesystem.allowRead.join(', ')})`;
  const writes = filesystem.allowWrite.length === 0 ? 'nowhere' : filesystem.allowWrite.join(', ');
  const connects = network.allowedDomains.length === 0 ? 'nothing' : network.allowedDomains.join(', ');
  return `sandboxed: may read ${reads}; may write ${writes}; may connect to ${connects}`;
}
