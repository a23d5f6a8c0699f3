import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  AuditLog,
  createBuiltinTools,
  formatConfigError,
  HarnessMcpServer,
  loadServeConfig,
  McpHarness,
  type McpServerPolicyState,
  ServeHttpListener,
  ServeOAuth,
  serveStdio,
} from '../core';
import { cliHookOptions } from './cliHooks';
import { POLICY_ENV, policyFileFrom, readCliPolicy } from './cliPolicy';
import { CliInputResolver } from './CliInputResolver';
import { UsageError } from './CliOptions';
import { errorMessage } from '../core/base/errors';
import { describeExposure, describeServeSource, type ServeRule } from './serveExposureReport';
import { userConfigFile } from './userPaths';

export const SERVE_USAGE = `mcp-harness serve: MCP Harness as an MCP server

Usage:
  mcp-harness serve [--http [HOST:]PORT] [--gateway] [--expose NAMES] [--deny NAMES] [options]

  stdio by default (stdout carries only MCP messages; logs go to stderr).
  --http [HOST:]PORT   Streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1), requiring
                       "Authorization: Bearer <token>": MCP_HARNESS_TOKEN, or a token printed once to stderr
  --oauth-issuer URL   HTTP: also accept OAuth access tokens (JWT) this authorization server issued for the
                       gateway, so many people share one gateway, each seen by name (the token's subject) in
                       the audit log; publishes protected resource metadata (RFC 9728) naming the issuer.
                       The static token is then accepted only if MCP_HARNESS_TOKEN sets it
  --oauth-scope SCOPE  HTTP with --oauth-issuer: a scope every token must carry (repeatable)
  --oauth-resource URL HTTP with --oauth-issuer: the gateway's URL as clients reach it (a proxy in front, a
                       name other than HOST), which tokens must name as their audience (default: http://HOST:PORT/mcp)
  --gateway            also offer every configured server's tools (mcp__<server>__<tool>), resources and prompts
  --expose NAMES       offer these too (comma-separated names or patterns with *, repeatable), e.g. write_file
  --deny NAMES         never offer these; deny wins over expose and over the defaults
  --allow-origin URL   a browser origin allowed to connect over HTTP (repeatable)
  --session-idle-timeout MS
                       HTTP: end a 2025-era session unused this long (default 1800000, 30 minutes);
                       its client gets 404 and initializes again
  --max-sessions N     HTTP: most sessions at once (default 1000); past that, 503 with Retry-After
  --audit-log FILE     where every call is recorded (default: .harness/audit.jsonl in the workspace)
  --workspace DIR      workspace root: the files the built-in tools see, and its config files (default: cwd)
  --config FILE        another config file (repeatable); counts as yours, like the user config below
  --inherit-env        give stdio servers (and hooks) the whole environment
  --hooks FILE         another hooks file (repeatable); .harness/hooks.json and the user's hooks file are always read
  --claude-hooks       also run the hooks of the workspace's .claude/settings.json
  --policy FILE        the organisation's server policy (default \$${POLICY_ENV}); servers outside it never start
  --trace              print the servers' JSON-RPC traffic to stderr

Offered by default: the read-only built-in tools (read_file, list_directory, glob_search, grep_search);
with --gateway, also every configured server's tools, resources and prompts. A "serve" section
({"serve": {"expose": [...], "deny": [...], "sessionIdleTimeoutMs": N, "maxSessions": N}}) in your
user config (${userConfigFile()}) or a --config file adds to the flags. The workspace's
.harness/mcp.json may only narrow: its "deny" counts, its "expose" and limits are ignored (and said so).
At start, serve prints what it offers and where each entry came from.
Every tools/call runs the PreToolUse and PostToolUse hooks; a hook's "ask" is a refusal here.`;

/** Each step of stopping a server behind the gateway (stdin closed, SIGTERM, SIGKILL). */
const SERVE_SHUTDOWN_GRACE_MS = 500;

const log = (line: string) => process.stderr.write(`mcp-harness: ${line}\n`);

interface ServeArgs {
  readonly http?: { host?: string; port: number };
  readonly gateway: boolean;
  readonly expose: string[];
  readonly deny: string[];
  readonly allowOrigins?: string[];
  readonly sessionIdleTimeoutMs?: number;
  readonly maxSessions?: number;
  readonly auditLog: string;
  readonly workspace: string;
  readonly configFiles: string[];
  readonly inheritEnv: boolean;
  readonly trace: boolean;
  readonly hookFiles: string[];
  readonly claudeHooks: boolean;
  readonly policyFile?: string;
  readonly oauth?: { readonly issuer: string; readonly scopes: string[]; readonly resource?: string };
}

/** `serve`: runs until the stdio client goes away, or until SIGINT/SIGTERM. */
export async function runServe(argv: string[]): Promise<number> {
  const args = parseServeArgs(argv);
  if (!args) {
    process.stdout.write(SERVE_USAGE + '\n');
    return 0;
  }
  const user = userConfigFile();
  const serveConfig = await loadServeConfig({ userConfigFile: user, workspaceFolders: [args.workspace], configFiles: args.configFiles });
  for (const error of serveConfig.errors) log(`config: ${formatConfigError(error, args.workspace)}`);
  for (const { file, field, entries } of serveConfig.ignored) {
    log(`${file}: ${field} ignored (${entries.join(', ')}): a workspace file may only narrow what serve offers; put it in ${user}, a --config file, or a flag`);
  }
  const expose: ServeRule[] = [...args.expose.map((pattern) => ({ pattern, from: '--expose' })), ...serveConfig.expose.map((e) => ({ pattern: e.pattern, from: describeServeSource(e.source) }))];
  const deny: ServeRule[] = [...args.deny.map((pattern) => ({ pattern, from: '--deny' })), ...serveConfig.deny.map((e) => ({ pattern: e.pattern, from: describeServeSource(e.source) }))];
  const harness = createServeHarness(args, await readCliPolicy(args.policyFile, log));
  const audit = new AuditLog(args.auditLog, { onError: (err) => log(`audit log: ${errorMessage(err)}`) });
  const mcp = new HarnessMcpServer(harness, {
    gateway: args.gateway,
    expose: expose.map((e) => e.pattern),
    deny: deny.map((e) => e.pattern),
    audit,
    log,
  });
  let listener: ServeHttpListener | undefined;
  const signalled = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  try {
    await harness.start();
    for (const error of harness.configErrors()) log(`config: ${formatConfigError(error, args.workspace)}`);
    const offered = mcp.catalog.tools().map((t) => t.name);
    log(`offering ${offered.length} tool${offered.length === 1 ? '' : 's'}: ${offered.join(', ') || '(none)'}`);
    for (const line of describeExposure(offered, harness.tools(), expose, deny)) log(line);
    if (!args.http) {
      await Promise.race([serveStdio(mcp, process.stdin, process.stdout, (err) => log(`stdio: ${err.message}`)), signalled]);
      return 0;
    }
    // With OAuth the static token is the operator's choice only; without it, one is made up and shown.
    const token = process.env.MCP_HARNESS_TOKEN || (args.oauth ? undefined : randomBytes(24).toString('base64url'));
    const oauth = args.oauth ? new ServeOAuth({ issuer: args.oauth.issuer, scopes: args.oauth.scopes }) : undefined;
    const sessionIdleTimeoutMs = args.sessionIdleTimeoutMs ?? serveConfig.sessionIdleTimeoutMs?.value;
    const maxSessions = args.maxSessions ?? serveConfig.maxSessions?.value;
    listener = new ServeHttpListener(mcp, { ...args.http, token, oauth, resource: args.oauth?.resource, allowedOrigins: args.allowOrigins, sessionIdleTimeoutMs, maxSessions, log });
    const url = await listener.listen();
    if (!process.env.MCP_HARNESS_TOKEN && token) log(`token (shown once; set MCP_HARNESS_TOKEN to choose it): ${token}`);
    if (oauth) log(`accepting OAuth access tokens from ${oauth.issuer} for ${listener.resource} (metadata: ${listener.metadataUrl})`);
    const host = args.http.host ?? '127.0.0.1';
    if (!['127.0.0.1', 'localhost', '::1'].includes(host)) log(`warning: listening on ${host}, reachable from other machines; only the token keeps them out`);
    log(`serving MCP on ${url}`);
    await signalled;
    return 0;
  } finally {
    await listener?.close();
    mcp.dispose();
    await harness.dispose();
    await audit.flush();
  }
}

/** The flags, or undefined for --help. */
function parseServeArgs(argv: string[]): ServeArgs | undefined {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      http: { type: 'string' },
      gateway: { type: 'boolean', default: false },
      expose: { type: 'string', multiple: true },
      deny: { type: 'string', multiple: true },
      'allow-origin': { type: 'string', multiple: true },
      'session-idle-timeout': { type: 'string' },
      'max-sessions': { type: 'string' },
      'audit-log': { type: 'string' },
      workspace: { type: 'string' },
      config: { type: 'string', multiple: true },
      'inherit-env': { type: 'boolean', default: false },
      trace: { type: 'boolean', default: false },
      hooks: { type: 'string', multiple: true },
      'claude-hooks': { type: 'boolean', default: false },
      policy: { type: 'string' },
      'oauth-issuer': { type: 'string' },
      'oauth-scope': { type: 'string', multiple: true },
      'oauth-resource': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const policyFile = policyFileFrom(values.policy);
  const http = values.http !== undefined ? parseListen(values.http) : undefined;
  return {
    http,
    oauth: parseOAuthFlags(values['oauth-issuer'], values['oauth-scope'], values['oauth-resource'], http !== undefined),
    gateway: values.gateway,
    expose: splitNames(values.expose),
    deny: splitNames(values.deny),
    allowOrigins: values['allow-origin'],
    sessionIdleTimeoutMs: positiveInteger(values['session-idle-timeout'], '--session-idle-timeout', 'milliseconds'),
    maxSessions: positiveInteger(values['max-sessions'], '--max-sessions', 'sessions'),
    auditLog: path.resolve(values['audit-log'] ?? path.join(workspace, '.harness', 'audit.jsonl')),
    workspace,
    configFiles: (values.config ?? []).map((f) => path.resolve(f)),
    inheritEnv: values['inherit-env'],
    trace: values.trace,
    hookFiles: (values.hooks ?? []).map((f) => path.resolve(f)),
    claudeHooks: values['claude-hooks'],
    policyFile: policyFile === undefined ? undefined : path.resolve(policyFile),
  };
}

/** A harness over the workspace's configuration, with the built-in tools registered. */
function createServeHarness(args: ServeArgs, serverPolicy: McpServerPolicyState | undefined): McpHarness {
  const harness = new McpHarness({
    serverPolicy,
    workspaceFolder: args.workspace,
    configFiles: args.configFiles,
    inheritEnv: args.inheritEnv,
    // Servers run only when the gateway offers them.
    autoStart: args.gateway,
    // A client that leaves gives its server about 2 s before SIGTERM and 2 s more before SIGKILL (the
    // SDK clients do); the servers behind the gateway must be down by then, or a killed gateway leaves them running.
    shutdownGraceMs: SERVE_SHUTDOWN_GRACE_MS,
    inputResolver: new CliInputResolver(process.env, false),
    // A config that lists this gateway itself (e.g. .vscode/mcp.json for VS Code) must not make it start itself, forever.
    checkStart: async (def) => (isThisGateway(def.command, def.args) ? 'this entry runs mcp-harness serve itself; the gateway does not serve itself' : undefined),
    traceEnabled: () => args.trace,
    hooks: cliHookOptions(args),
  });
  harness.onDidRunHook((run) => {
    if (run.outcome === 'error' || run.outcome === 'deny' || args.trace) log(`hook ${run.hookEvent} ${run.tool ?? ''} ${run.outcome}${run.detail ? `: ${run.detail}` : ''} (${run.hook})`);
  });
  harness.onDidLog((e) => {
    if (e.source === 'rpc' ? args.trace : e.level === 'warn' || e.level === 'error' || e.source === 'stderr') log(`[${e.server}] ${e.message}`);
  });
  // Commands the clients run do not get the token that guards this server.
  const commandEnv = { ...process.env, MCP_HARNESS_TOKEN: undefined };
  for (const tool of createBuiltinTools({ roots: [args.workspace], runCommand: { env: commandEnv } })) harness.registerBuiltin(tool);
  return harness;
}

/** `--oauth-issuer` and its companions, checked: URLs that parse, and only with `--http`. */
function parseOAuthFlags(issuer: string | undefined, scopes: string[] | undefined, resource: string | undefined, http: boolean): ServeArgs['oauth'] {
  if (issuer === undefined) {
    if (scopes !== undefined || resource !== undefined) throw new UsageError(`${scopes ? '--oauth-scope' : '--oauth-resource'} needs --oauth-issuer`);
    return undefined;
  }
  if (!http) throw new UsageError('--oauth-issuer needs --http: OAuth access tokens travel over HTTP');
  for (const [flag, value] of [['--oauth-issuer', issuer], ['--oauth-resource', resource]] as const) {
    if (value !== undefined && !/^https?:\/\//.test(value)) throw new UsageError(`${flag} expects an http(s) URL, got "${value}"`);
    if (value !== undefined && !URL.canParse(value)) throw new UsageError(`${flag} expects a URL, got "${value}"`);
  }
  return { issuer, scopes: splitNames(scopes), ...(resource !== undefined ? { resource } : {}) };
}

/** `8080`, `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:8080`. */
function parseListen(text: string): { host?: string; port: number } {
  const match = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text);
  const port = match ? Number(match[2]) : NaN;
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--http expects [HOST:]PORT, e.g. 8123 or 127.0.0.1:8123, got "${text}"`);
  }
  const host = match[1]?.replace(/^\[(.*)\]$/, '$1');
  return host ? { host, port } : { port };
}

function positiveInteger(text: string | undefined, flag: string, unit: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`${flag} expects a positive number of ${unit}, got "${text}"`);
  return value;
}

function splitNames(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** Whether a server entry launches `mcp-harness serve` (this CLI, or the installed command). */
function isThisGateway(command: string | undefined, args: readonly string[]): boolean {
  if (!args.includes('serve')) return false;
  const self = process.argv[1] ? path.resolve(process.argv[1]) : undefined;
  const names = [command ?? '', ...args];
  return names.some((a) => path.basename(a) === 'mcp-harness' || (self !== undefined && a.endsWith('cli.js') && path.resolve(a) === self));
}
