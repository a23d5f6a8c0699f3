import type { McpServerDefinition } from './types';

const SECRET_NAME = /(token|secret|password|passwd|api[-_]?key|auth|credential|private[-_]?key|session|cookie)/i;
const MASK = '••••';

/** Whether a value by this name is likely a secret. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * What a server runs or connects to, for people: the command line or URL with likely secrets
 * masked (`--api-key x`, `TOKEN=x`, `?token=x`). Variables such as `${input:key}` are shown as
 * written, since definitions are never resolved.
 */
export function describeLaunch(def: McpServerDefinition): string {
  if (def.url !== undefined) return redactUrl(def.url);
  if (def.command === undefined) return '(no command or url)';
  return [def.command, ...redactArgs(def.args)].map(quoteIfNeeded).join(' ');
}

/** Header values masked, keeping an `Authorization` scheme (`Bearer ••••`). */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => {
      const scheme = /^(Bearer|Basic|Token)\s/i.exec(v)?.[1];
      return [k, isVariableOnly(v) ? v : scheme ? `${scheme} ${MASK}` : MASK];
    }),
  );
}

/**
 * Env values as written, masked only when the name looks secret and the value is not a variable
 * reference: a definition is never resolved here, so `${env:TOKEN}` shows no secret, while a
 * literal `MEMORY_FILE_PATH` path is no secret at all.
 */
export function redactEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, looksSecret(k) && !isVariableOnly(v) ? MASK : v]));
}

/** Masks the value of secret-looking flags (`--token x`, `--token=x`) and `NAME=value` pairs. */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = /^(-{0,2}[^=\s]+)=(.*)/s.exec(arg);
    if (eq && looksSecret(eq[1]) && !isVariableOnly(eq[2])) {
      out.push(`${eq[1]}=${MASK}`);
    } else if (/^--?[\w-]+$/.test(arg) && looksSecret(arg) && i + 1 < args.length && !args[i + 1].startsWith('-')) {
      out.push(arg, isVariableOnly(args[i + 1]) ? args[i + 1] : MASK);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Masks user info and secret-looking query parameters of a URL. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password) parsed.password = MASK;
  for (const key of [...parsed.searchParams.keys()]) {
    if (looksSecret(key)) parsed.searchParams.set(key, MASK);
  }
  return decodeURI(parsed.toString());
}

function isVariableOnly(value: string): boolean {
  return /^\$\{[^}]+\}$/.test(value);
}

function quoteIfNeeded(part: string): string {
  return /[\s"']/.test(part) ? JSON.stringify(part) : part;
}
