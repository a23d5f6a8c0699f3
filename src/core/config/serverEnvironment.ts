import { execFile } from 'node:child_process';

/** Variables a server gets by default, as the MCP SDK chooses them (never the whole environment). */
export const SAFE_ENV_KEYS: Readonly<Record<'posix' | 'win32', readonly string[]>> = {
  posix: ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'],
  win32: [
    'APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE',
    'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES',
  ],
};

export interface ServerEnvironmentOptions {
  readonly platform: NodeJS.Platform;
  /** Pass the host's whole environment instead of the safe subset. */
  readonly inheritAll: boolean;
  /** PATH from the user's login shell, used when the host has none worth the name. */
  readonly loginShellPath?: string;
}

/** Composes a server's environment: safe (or whole) host environment, PATH repair, then the config's env. */
export function buildServerEnvironment(
  hostEnv: Readonly<Record<string, string | undefined>>,
  configEnv: Readonly<Record<string, string>>,
  options: ServerEnvironmentOptions,
): Record<string, string> {
  const env: Record<string, string> = {};
  const keys = options.inheritAll ? Object.keys(hostEnv) : SAFE_ENV_KEYS[options.platform === 'win32' ? 'win32' : 'posix'];
  for (const key of keys) {
    const value = hostEnv[key];
    // Exported shell functions (`() { ...`) are a known injection vector; never pass them on.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  if (options.loginShellPath) env.PATH = options.loginShellPath;
  return { ...env, ...configEnv };
}

const MINIMAL_DARWIN_PATH = new Set(['/usr/bin', '/bin', '/usr/sbin', '/sbin']);

/**
 * A host launched from a desktop icon (macOS Dock, some Linux launchers) gets no PATH, or only
 * the system minimum, so `npx`, `uvx` and friends are not found. Then the login shell knows better.
 */
export function needsLoginShellPath(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): boolean {
  if (platform === 'win32') return false;
  const value = env.PATH;
  if (!value) return true;
  return platform === 'darwin' && value.split(':').every((dir) => MINIMAL_DARWIN_PATH.has(dir));
}

const MARK = '__MCP_HARNESS_PATH__';

/** Asks the user's login shell for its PATH. Resolves undefined when the shell fails or hangs. */
export function readLoginShellPath(shell: string, timeoutMs = 5000): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      shell,
      ['-i', '-l', '-c', `printf '%s%s%s' '${MARK}' "$PATH" '${MARK}'`],
      { timeout: timeoutMs, killSignal: 'SIGKILL', env: { HOME: process.env.HOME, USER: process.env.USER, TERM: 'dumb' } },
      (err, stdout) => {
        const match = typeof stdout === 'string' ? stdout.split(MARK) : [];
        resolve(!err || match.length >= 3 ? match[1] || undefined : undefined);
      },
    );
  });
}
