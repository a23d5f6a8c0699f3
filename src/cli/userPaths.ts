import * as os from 'node:os';
import * as path from 'node:path';

/** `~/.config/mcp-harness` (`$XDG_CONFIG_HOME/mcp-harness`, or `%APPDATA%\mcp-harness` on Windows): the user's own files. */
export function userConfigDirectory(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const base = platform === 'win32' ? (env.APPDATA ?? path.join(os.homedir(), 'AppData', 'Roaming')) : (env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'));
  return path.join(base, 'mcp-harness');
}

/**
 * The user's config file, `~/.config/mcp-harness/config.json`: what the user (not a repository)
 * decided. Its `serve` section may widen what `serve` offers; a workspace file may only narrow it.
 */
export function userConfigFile(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return path.join(userConfigDirectory(env, platform), 'config.json');
}
