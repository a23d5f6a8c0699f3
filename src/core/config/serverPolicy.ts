import { createHash } from 'node:crypto';
import { readFile as fsReadFile } from 'node:fs/promises';
import { getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { errorMessage } from '../base/errors';
import { isJsonObject, kindOf } from './configSchema';
import { JsonLocator } from './JsonLocator';
import { formatConfigError } from './formatConfigError';
import type { McpConfigError, McpServerDefinition } from './types';

/** One `allow` rule of a server policy: exactly one of the three matchers. */
export type McpPolicyRule =
  | { readonly command: string }
  | { readonly url: string }
  | { readonly fingerprint: string };

/**
 * An organisation's server policy: which servers may start at all. A server outside it is listed
 * but never started. Set by an administrator (a VS Code setting of application scope, a file for
 * the CLI), never by a workspace.
 */
export interface McpServerPolicy {
  /** Where the policy came from, for messages: a file path or `settings.json (mcpHarness.serverPolicy)`. */
  readonly source: string;
  readonly allow: readonly McpPolicyRule[];
  /** Stdio servers must declare `sandbox`. */
  readonly requireSandbox: boolean;
}

/**
 * What a host hands the harness: a policy, or why the one configured could not be read. A broken
 * policy fails closed: no server starts until it is fixed.
 */
export type McpServerPolicyState =
  | { readonly ok: true; readonly value: McpServerPolicy }
  | { readonly ok: false; readonly source: string; readonly error: string };

/** The words every refusal starts with, so users recognise them wherever they are shown. */
export const POLICY_REFUSAL = "not allowed by your organisation's policy";

const TOP_FIELDS = new Set(['allow', 'requireSandbox', '$schema']);
const MATCHERS = ['command', 'url', 'fingerprint'] as const;
const FINGERPRINT = /^sha256:[0-9a-f]{64}$/;

/**
 * Reads a policy value (a parsed settings object or file). Anything it does not understand is an
 * error naming the field: a policy with a typo must not quietly allow more than its author meant.
 */
export function parseServerPolicy(raw: unknown, source: string, locate?: (segments: (string | number)[]) => { line?: number; column?: number }): McpServerPolicyState {
  const failAt = (segments: (string | number)[], jsonPath: string | undefined, message: string): McpServerPolicyState => {
    const error: McpConfigError = { file: source, jsonPath, ...(locate?.(segments) ?? {}), message };
    return { ok: false, source, error: formatConfigError(error) };
  };
  if (!isJsonObject(raw)) return failAt([], undefined, `expected an object with "allow", got ${kindOf(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!TOP_FIELDS.has(key)) return failAt([key], key, `unknown field (expected "allow" and optionally "requireSandbox")`);
  }
  if (raw.requireSandbox !== undefined && typeof raw.requireSandbox !== 'boolean') {
    return failAt(['requireSandbox'], 'requireSandbox', `expected boolean, got ${kindOf(raw.requireSandbox)}`);
  }
  if (!Array.isArray(raw.allow)) {
    return failAt(['allow'], 'allow', raw.allow === undefined ? 'missing (expected an array of rules; [] allows no server)' : `expected array of rules, got ${kindOf(raw.allow)}`);
  }
  const allow: McpPolicyRule[] = [];
  for (const [index, rule] of raw.allow.entries()) {
    const at = `allow[${index}]`;
    if (!isJsonObject(rule)) return failAt(['allow', index], at, `expected an object such as {"command": "npx -y @scope/*"}, got ${kindOf(rule)}`);
    const keys = Object.keys(rule);
    const unknown = keys.find((k) => !(MATCHERS as readonly string[]).includes(k));
    if (unknown !== undefined) return failAt(['allow', index, unknown], `${at}.${unknown}`, 'unknown field (expected one of "command", "url" or "fingerprint")');
    if (keys.length !== 1) return failAt(['allow', index], at, 'expected exactly one of "command", "url" or "fingerprint"');
    const key = keys[0] as (typeof MATCHERS)[number];
    const value = rule[key];
    if (typeof value !== 'string' || value.trim() === '') return failAt(['allow', index, key], `${at}.${key}`, `expected a non-empty string, got ${kindOf(value)}`);
    if (key === 'fingerprint' && !FINGERPRINT.test(value)) {
      return failAt(['allow', index, key], `${at}.${key}`, 'expected "sha256:" and 64 lower-case hex digits (see the server\'s tooltip or `mcp-harness list --json`)');
    }
    allow.push({ [key]: value } as McpPolicyRule);
  }
  return { ok: true, value: { source, allow, requireSandbox: raw.requireSandbox === true } };
}

/** Reads a policy file (JSON with comments). A missing or unreadable file is an error, so the policy fails closed. */
export async function loadServerPolicyFile(file: string, readFile: (path: string) => Promise<string> = (p) => fsReadFile(p, 'utf8')): Promise<McpServerPolicyState> {
  let text: string;
  try {
    text = await readFile(file);
  } catch (err) {
    return { ok: false, source: file, error: `${file}: could not be read: ${errorMessage(err)}` };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  if (!root || syntax.length > 0) {
    const locator = new JsonLocator(text, root);
    const position = syntax[0] ? locator.positionAt(syntax[0].offset) : {};
    return { ok: false, source: file, error: formatConfigError({ file, ...position, message: 'is not valid JSON' }) };
  }
  const locator = new JsonLocator(text, root);
  return parseServerPolicy(getNodeValue(root), file, (segments) => locator.valuePosition(segments) ?? {});
}

/**
 * The fingerprint a policy names a server by: `sha256:` and the hash of what decides what runs
 * (transport, command, arguments, environment, working folder, URL, headers, OAuth client,
 * sandbox), as written. Name, file and workspace folder are left out, so the same entry has the
 * same fingerprint on every machine and under any name.
 */
export function serverPolicyFingerprint(def: McpServerDefinition): string {
  const what = { type: def.type, command: def.command, args: def.args, env: def.env, envFile: def.envFile, cwd: def.cwd, url: def.url, headers: def.headers, oauth: def.oauth, sandbox: def.sandbox };
  return `sha256:${createHash('sha256').update(JSON.stringify(sortKeys(what))).digest('hex')}`;
}

/**
 * Why `def` may not start under `policy`, or undefined when it may. The reason starts with
 * {@link POLICY_REFUSAL} and names the rule (or the missing one) and the policy's source.
 */
export function checkServerPolicy(policy: McpServerPolicyState | undefined, def: McpServerDefinition): string | undefined {
  if (policy === undefined) return undefined;
  if (!policy.ok) return `${POLICY_REFUSAL}: the policy is broken, so no server may start until it is fixed (${policy.error})`;
  const { allow, requireSandbox, source } = policy.value;
  const rule = allow.find((r) => ruleMatches(r, def));
  if (rule === undefined) {
    const what = def.type === 'stdio' || def.url === undefined ? `command "${commandLine(def)}"` : `URL "${def.url}"`;
    return `${POLICY_REFUSAL}: no "allow" rule in ${source} matches ${what} or fingerprint ${serverPolicyFingerprint(def)}`;
  }
  if (requireSandbox && def.type === 'stdio' && def.sandbox === undefined) {
    return `${POLICY_REFUSAL}: "requireSandbox" in ${source} asks every stdio server to declare "sandbox" (allowed by ${describeRule(rule)})`;
  }
  return undefined;
}

/** `{"command": "npx *"}`: a rule as written. */
export function describeRule(rule: McpPolicyRule): string {
  return JSON.stringify(rule);
}

/** The command and its arguments as one line, as a `command` pattern is matched against it. */
function commandLine(def: McpServerDefinition): string {
  return [def.command ?? '', ...def.args].join(' ');
}

function ruleMatches(rule: McpPolicyRule, def: McpServerDefinition): boolean {
  if ('fingerprint' in rule) return rule.fingerprint === serverPolicyFingerprint(def);
  if ('command' in rule) return def.type === 'stdio' && def.command !== undefined && matchPattern(rule.command, commandLine(def));
  return def.type !== 'stdio' && def.url !== undefined && matchPattern(rule.url, def.url);
}

/** Variables such as `${env:HOST}` or `${input:x}`: what they stand for is not known until start. */
const VARIABLE = /\$\{[^}]*\}/g;
/** First of the private-use characters that stand for variables while matching. */
const VARIABLE_BASE = 0xe000;

/**
 * Whether `text` as a whole matches `pattern`, `*` being any run of characters. A `*` never
 * stands for a variable: an entry whose command or URL uses `${env:HOST}` matches only a pattern
 * that writes `${env:HOST}` in the same place, since the variable could take any value at start.
 * Dynamic programming over both (time is the product of their lengths, never exponential).
 */
export function matchPattern(pattern: string, text: string): boolean {
  const variables = new Map<string, string>();
  const encode = (s: string) =>
    s.replace(VARIABLE, (v) => {
      let ch = variables.get(v);
      if (ch === undefined) variables.set(v, (ch = String.fromCharCode(VARIABLE_BASE + variables.size)));
      return ch;
    });
  const p = [...encode(pattern)];
  const t = [...encode(text)];
  const isVariable = (ch: string | undefined) => ch !== undefined && ch.charCodeAt(0) >= VARIABLE_BASE && ch.charCodeAt(0) < VARIABLE_BASE + variables.size;
  let prev = new Array<boolean>(t.length + 1).fill(false);
  prev[0] = true;
  for (const ch of p) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if (ch === '*') {
      next[0] = prev[0]!;
      for (let j = 1; j <= t.length; j++) next[j] = prev[j]! || (next[j - 1]! && !isVariable(t[j - 1]));
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = prev[j - 1]! && ch === t[j - 1];
    }
    prev = next;
  }
  return prev[t.length]!;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isJsonObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
