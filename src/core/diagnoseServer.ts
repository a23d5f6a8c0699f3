import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findUnsetVariables } from './config/findUnsetVariables';
import { resolveServerLaunch } from './config/resolveServerLaunch';
import type { McpServerDefinition } from './config/types';
import { McpSecretMask } from './config/McpSecretMask';
import { hasAuthorizationHeader } from './mcp/mcpErrors';
import { resolveWindowsCommand } from './process/spawnCommand';
import { errorMessage } from './base/errors';

/** One finding about one server, with what to try when it is a problem. */
export interface McpDiagnostic {
  readonly server: string;
  readonly level: 'ok' | 'warning' | 'error';
  readonly message: string;
  readonly fix?: string;
}

export interface DiagnoseOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform?: NodeJS.Platform;
  /** Time allowed to reach an HTTP server (default 3 s). */
  readonly urlTimeoutMs?: number;
}

const INSTALL_HINTS: Record<string, string> = {
  npx: 'install Node.js (https://nodejs.org), which provides npx',
  node: 'install Node.js (https://nodejs.org)',
  uvx: 'install uv (https://docs.astral.sh/uv/), which provides uvx',
  uv: 'install uv (https://docs.astral.sh/uv/)',
  docker: 'install Docker and make sure its daemon is running',
  python: 'install Python, or use python3',
  python3: 'install Python 3',
  deno: 'install Deno (https://deno.com)',
  bunx: 'install Bun (https://bun.sh), which provides bunx',
};

/**
 * Checks what can be checked without starting a server: the definition itself, unset variables,
 * the command on PATH, the working directory and env file, and whether a URL answers.
 */
export async function diagnoseServer(def: McpServerDefinition, options: DiagnoseOptions): Promise<McpDiagnostic[]> {
  const out: McpDiagnostic[] = [];
  const add = (level: McpDiagnostic['level'], message: string, fix?: string) => out.push({ server: def.name, level, message, fix });
  if (def.problem) {
    add('error', def.problem, `edit ${def.origin.file} at ${def.origin.jsonPath}`);
    return out;
  }
  if (def.disabled) add('warning', 'disabled in the configuration', `remove "disabled": true from ${def.origin.jsonPath}`);
  for (const name of findUnsetVariables(def, options.env)) {
    add('error', `env var ${name} is not set`, `set ${name} in the environment that starts the editor or CLI, give a default with \${${name}:-value}, or put it in "env" or "envFile"`);
  }
  const resolved = await resolveServerLaunch(def, { env: options.env, userHome: os.homedir() });
  if (!resolved.ok) {
    if (!out.some((d) => d.level === 'error')) add('error', resolved.error, 'fix the variables in the entry, or provide the inputs when the editor asks');
    return out;
  }
  const launch = resolved.value;
  // From here on messages quote resolved values: the secrets among them are masked.
  const mask = new McpSecretMask(launch.secretValues ?? []);
  const addMasked = (level: McpDiagnostic['level'], message: string, fix?: string) => add(level, mask.mask(message), fix === undefined ? undefined : mask.mask(fix));
  if (launch.type === 'stdio') {
    checkCommand(launch.command!, options, addMasked);
    if (launch.cwd !== undefined && !isDirectory(launch.cwd)) addMasked('error', `working directory does not exist: ${launch.cwd}`, 'create it, or change "cwd"');
  } else {
    await checkUrl(launch.url!, launch.type, launch.headers, options.urlTimeoutMs ?? 3000, addMasked);
  }
  if (!out.some((d) => d.level !== 'ok')) add('ok', 'no problems found');
  return out;
}

function checkCommand(command: string, options: DiagnoseOptions, add: (l: McpDiagnostic['level'], m: string, f?: string) => void): void {
  const platform = options.platform ?? process.platform;
  const found = platform === 'win32' ? resolveWindowsCommand(command, { platform, env: options.env }) : findOnPath(command, options.env.PATH ?? '');
  const base = path.basename(command).replace(/\.(exe|cmd|bat)$/i, '');
  if (found) {
    add('ok', `command "${command}" found at ${found}`);
    return;
  }
  const hasDir = command.includes('/') || command.includes('\\');
  add(
    'error',
    hasDir ? `command "${command}" does not exist or is not executable` : `command "${command}" not found on PATH`,
    INSTALL_HINTS[base] ?? (hasDir ? 'check the path in "command"' : `install ${base}, or put its absolute path in "command"`),
  );
}

function findOnPath(command: string, pathValue: string): string | undefined {
  const candidates = command.includes('/') ? [path.resolve(command)] : pathValue.split(path.delimiter).filter(Boolean).map((d) => path.join(d, command));
  return candidates.find((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

async function checkUrl(
  url: string,
  type: string,
  headers: Readonly<Record<string, string>> | undefined,
  timeoutMs: number,
  add: (l: McpDiagnostic['level'], m: string, f?: string) => void,
): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    add('error', `"${url}" is not a valid URL`, 'write the full URL, e.g. http://localhost:3000/mcp');
    return;
  }
  try {
    // Any HTTP answer proves the host and port are reachable; the MCP handshake is checked by connecting.
    // The configured headers go along, so a rejected token shows up here as it would when connecting.
    const response = await fetch(parsed, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' }, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    add('ok', `${parsed.origin} answers (HTTP ${response.status} to GET ${parsed.pathname})`);
    if (response.status === 401 || response.status === 403) {
      if (hasAuthorizationHeader(headers)) {
        add(
          'error',
          `the Authorization header was sent and rejected (HTTP ${response.status})`,
          'check that the token is valid, not expired and allowed to use this server; check the variable or input it comes from',
        );
      } else {
        add('warning', `the server asks for authorization (HTTP ${response.status})`, 'add an Authorization header under "headers", e.g. "Bearer ${input:token}"');
      }
    }
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? errorMessage(err);
    add('error', `cannot reach ${parsed.origin} (${reason})`, `start the ${type === 'sse' ? 'SSE' : 'HTTP'} server, or check the host and port in "url"`);
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
