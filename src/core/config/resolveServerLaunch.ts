import { ok, type Result } from '../base/result';
import { readFile as fsReadFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { McpLaunchResolution, McpVariableContext } from './launchTypes';
import { parseDotenv } from './parseDotenv';
import { urlPassword } from './McpSecretMask';
import { McpSubstitute, resolveVariables } from './resolveVariables';
import type { McpServerDefinition, McpTransportKind } from './types';
import { errorMessage } from '../base/errors';


/**
 * Turns a definition into what a transport needs, at start time: substitutes `${...}` variables
 * (asking for `${input:id}` values through `ctx.inputResolver`), reads `envFile` (values in `env`
 * win) and resolves relative `cwd`/`envFile` against the workspace folder, else the config file's
 * folder. Only the fields of the server's transport are resolved. Never throws; errors name
 * variables, fields and paths but never resolved values.
 */
export async function resolveServerLaunch(
  def: McpServerDefinition,
  ctx: McpVariableContext,
): Promise<McpLaunchResolution> {
  if (def.problem !== undefined) {
    return { ok: false, error: def.problem };
  }
  if (def.type === undefined) {
    return { ok: false, error: 'no transport type' };
  }
  const variables = await resolveVariables(def, ctx);
  if (!variables.ok) {
    return variables;
  }
  const sub = variables.value;
  if (def.type !== 'stdio') {
    const url = def.url === undefined ? undefined : sub(def.url);
    const subOptional = (text: string | undefined) => (text === undefined ? undefined : sub(text));
    const idp = def.oauth?.idp && { ...def.oauth.idp, clientSecret: subOptional(def.oauth.idp.clientSecret), idToken: sub(def.oauth.idp.idToken) };
    const oauth = def.oauth && {
      ...def.oauth,
      clientSecret: subOptional(def.oauth.clientSecret),
      privateKey: subOptional(def.oauth.privateKey),
      assertion: subOptional(def.oauth.assertion),
      ...(idp ? { idp } : {}),
    };
    const headers = mapValues(def.headers, sub);
    const secretValues = collect(sub, [urlPassword(url), oauth?.clientSecret, oauth?.privateKey, oauth?.assertion, idp?.clientSecret, idp?.idToken]);
    return { ok: true, value: { type: def.type, url, args: [], env: {}, headers, ...(oauth ? { oauth } : {}), secretValues } };
  }
  return resolveProcessLaunch(def, def.type, sub, ctx);
}

async function resolveProcessLaunch(
  def: McpServerDefinition,
  type: McpTransportKind,
  sub: McpSubstitute,
  ctx: McpVariableContext,
): Promise<McpLaunchResolution> {
  const cwd = def.cwd === undefined ? ok(def.workspaceFolder) : resolvePath(def, def.cwd, sub(def.cwd), 'cwd');
  if (!cwd.ok) {
    return cwd;
  }
  let fileEnv: Record<string, string> = {};
  if (def.envFile !== undefined) {
    const envFile = resolvePath(def, def.envFile, sub(def.envFile), 'envFile');
    if (!envFile.ok) {
      return envFile;
    }
    const loaded = await readEnvFile(envFile.value, ctx);
    if (!loaded.ok) {
      return loaded;
    }
    fileEnv = loaded.value;
  }
  const env = { ...fileEnv, ...mapValues(def.env, sub) };
  const command = def.command === undefined ? undefined : sub(def.command);
  const args = def.args.map(sub);
  return { ok: true, value: { type, command, args, env, cwd: cwd.value, headers: {}, secretValues: collect(sub, Object.values(fileEnv)) } };
}

/** The values `sub` substituted from the environment and inputs, and `more`. */
function collect(sub: McpSubstitute, more: readonly (string | undefined)[]): string[] {
  return [...new Set([...sub.secretValues, ...more.filter((v): v is string => v !== undefined && v !== '')])];
}

/**
 * `resolved` made absolute against the workspace folder, else the config file's folder. Errors
 * quote the configured text, not the substituted one.
 */
function resolvePath(def: McpServerDefinition, configured: string, resolved: string, field: string): Result<string> {
  if (path.isAbsolute(resolved)) {
    return ok(path.normalize(resolved));
  }
  const file = def.origin.file;
  const base = def.workspaceFolder ?? (path.isAbsolute(file) ? path.dirname(file) : undefined);
  if (base === undefined) {
    return { ok: false, error: `relative ${field} "${configured}" needs a workspace folder to resolve against` };
  }
  return ok(path.resolve(base, resolved));
}

async function readEnvFile(file: string, ctx: McpVariableContext): Promise<Result<Record<string, string>>> {
  const readFile = ctx.readFile ?? ((p: string) => fsReadFile(p, 'utf8'));
  try {
    return ok(parseDotenv(await readFile(file)));
  } catch (e) {
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { ok: false, error: `envFile not found: ${file}` };
    }
    const reason = code ?? errorMessage(e);
    return { ok: false, error: `cannot read envFile ${file} (${reason})` };
  }
}


function mapValues(record: Readonly<Record<string, string>>, fn: (value: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));
}
