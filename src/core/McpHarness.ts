// The facade is one class by design (every host action is a method here); it is longer than 300
// lines for that reason, with masking, naming, tool tables and process code in their own files.
import * as os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Emitter, type Event } from './base/event';
import { DisposableStore, type IDisposable } from './base/lifecycle';
import { loadMcpConfig, resolveServerLaunch, type McpConfigError, type McpLaunchResolution, type McpServerDefinition } from './config';
import type { HarnessApplyResult, HarnessCallErrorKind, HarnessCallOptions, HarnessCallResult, HarnessOptions, HarnessServer, HarnessTool } from './HarnessTypes';
import { McpCallError } from './mcp/McpCallError';
import { McpServerManager } from './mcp/McpServerManager';
import { isServingState, type McpLogEntry, type McpServerSnapshot } from './mcp/McpServerSnapshot';
import { buildServerEnvironment, needsLoginShellPath, readLoginShellPath } from './mcp/serverEnvironment';
import { DEFAULT_MAX_OUTPUT_CHARS, errorResult, formatToolResult } from './tools/formatToolResult';
import { MCP_TOOL_NAME_PREFIX, sanitizeToolNamePart } from './tools/McpToolNaming';
import { ToolRegistry } from './tools/ToolRegistry';
import { ToolSearchCache } from './agent/ToolSearch';
import type { BuiltinTool } from './tools/types';
import { HARNESS_VERSION } from './version';
import { errorMessage } from './base/errors';
import { HarnessSecrets } from './HarnessSecrets';

export type {
  HarnessApplyResult,
  HarnessCallErrorKind,
  HarnessCallOptions,
  HarnessCallResult,
  HarnessOptions,
  HarnessServer,
  HarnessTool,
} from './HarnessTypes';

export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/**
 * The MCP client in one object: reads configuration, keeps every server connected, exposes their
 * tools under one registry and calls them. A constructor starts nothing; `start()` does.
 */
export class McpHarness {
  readonly manager: McpServerManager;
  readonly registry: ToolRegistry;
  private readonly _store = new DisposableStore();
  private readonly _onDidChange = this._store.add(new Emitter<void>());
  /** Anything visible changed: a server's state or lists, the server set, tools, config errors. */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private readonly _onDidLog = this._store.add(new Emitter<McpLogEntry>());
  readonly onDidLog: Event<McpLogEntry> = this._onDidLog.event;

  private _options: HarnessOptions;
  private _configErrors: readonly McpConfigError[] = [];
  private _loginShellPath: Promise<string | undefined> | undefined;
  private _started: Promise<void> | undefined;
  private _applying: Promise<void> = Promise.resolve();
  private _disposed: Promise<void> | undefined;
  /** Exposed tool names each server offered the last time it ran, to explain calls while it is down. */
  private readonly _lastToolNames = new Map<string, ReadonlySet<string>>();
  private _toolSearch: ToolSearchCache | undefined;
  private readonly _secrets = new HarnessSecrets();

  constructor(options: HarnessOptions = {}) {
    this._options = options;
    this.registry = this._store.add(new ToolRegistry({ logger: { warn: (m) => this._log('harness', 'warn', m) } }));
    this.manager = new McpServerManager({
      clientInfo: { name: 'mcp-harness', version: HARNESS_VERSION },
      handlers: { roots: () => this._roots(), ...options.handlers },
      resolveLaunch: (def) => this._resolveLaunch(def),
      checkStart: options.checkStart,
      reconnectDelaysMs: options.reconnectDelaysMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs,
      stableAfterMs: options.reconnectStableAfterMs,
      clock: options.clock,
      maxMessageBytes: options.maxMessageBytes,
      defaultStartupTimeoutMs: options.startupTimeoutMs,
      shutdownGraceMs: options.shutdownGraceMs,
      traceEnabled: options.traceEnabled ?? (() => false),
      authHost: options.authHost,
    });
    this._store.add(this.manager.onDidChangeServer((s) => this._syncServer(s.name)));
    this._store.add(this.manager.onDidChangeServers(() => this._syncAll()));
    this._store.add(this.manager.onDidLog((e) => this._onDidLog.fire(this._secrets.logEntry(e))));
    this._store.add(this.registry.onDidChange(() => this._onDidChange.fire()));
  }

  /** Loads the configuration and starts every server; resolves when each runs or has failed. Safe to call twice. */
  start(): Promise<void> {
    this._started ??= this.applyConfig().then(() => undefined);
    return this._started;
  }

  /** Every server in configuration order. */
  servers(): HarnessServer[] {
    return this.snapshots().map(toHarnessServer);
  }

  /** Full snapshots, for hosts that show everything (tree views, tooltips); resolved secrets masked. */
  snapshots(): McpServerSnapshot[] {
    return this.manager.servers().map((s) => this._secrets.snapshot(s));
  }

  /** `text` with every secret a server's definition resolved to (and URL passwords) masked: for anything quoted from a server. */
  maskSecrets(text: string): string {
    return this._secrets.mask(text);
  }

  /** Every callable tool: built-ins first, then each server's. */
  tools(): HarnessTool[] {
    return this.registry.getTools().map((t) => ({
      name: t.name,
      ...(t.title !== undefined ? { title: t.title } : {}),
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
      server: t.source.kind === 'mcp' ? t.source.server : undefined,
      originalName: t.source.kind === 'mcp' ? t.source.tool : t.name,
    }));
  }

  /**
   * The tools best matching `query` (names, titles, descriptions, parameter names), best
   * first; at most `limit` (default 8). The index is rebuilt only when the tools change.
   */
  searchTools(query: string, options: { limit?: number } = {}): HarnessTool[] {
    this._toolSearch ??= new ToolSearchCache();
    return this._toolSearch.search(this.tools(), query, options);
  }

  configErrors(): readonly McpConfigError[] {
    return this._configErrors;
  }

  registerBuiltin(tool: BuiltinTool): IDisposable {
    return this.registry.registerBuiltin(tool);
  }

  /**
   * Re-reads the configuration (optionally with new locations) and applies it as a diff.
   * Resolves when the servers it started run or have failed, unless `wait` is false.
   */
  async applyConfig(
    update: Pick<HarnessOptions, 'workspaceFolders' | 'configFiles' | 'userServers' | 'toolTimeoutMs' | 'maxOutputChars' | 'inheritEnv'> = {},
    options: { restartFailed?: boolean; wait?: boolean } = {},
  ): Promise<HarnessApplyResult> {
    this._options = { ...this._options, ...update };
    // One load at a time, in call order: a slow read must never apply over a newer one.
    const applied = this._applying.then(async () => {
      const { servers, errors } = await loadMcpConfig({
        workspaceFolders: this._folders(),
        configFiles: this._options.configFiles,
        userServers: this._options.userServers,
      });
      this._configErrors = errors;
      const { diff, settled } = this.manager.applyDefinitions(servers, {
        start: this._options.autoStart ?? true,
        restartFailed: options.restartFailed,
      });
      this._onDidChange.fire();
      return { result: { ...diff, configErrors: errors }, settled };
    });
    this._applying = applied.then(
      () => undefined,
      () => undefined,
    );
    const { result, settled } = await applied;
    if (options.wait ?? true) await settled;
    return result;
  }

  startServer(name: string): Promise<void> {
    return this.manager.start(name);
  }
  stopServer(name: string): Promise<void> {
    return this.manager.stop(name);
  }
  restartServer(name: string): Promise<void> {
    return this.manager.restart(name);
  }
  /** Signs in to an HTTP server that asks for it (needs `authHost`); resolves when it runs or has failed. */
  signIn(name: string): Promise<void> {
    return this.manager.signIn(name);
  }
  /** Forgets a server's OAuth tokens and registrations; it then shows "sign-in required". */
  signOut(name: string): Promise<void> {
    return this.manager.signOut(name);
  }

  /** Calls a tool by exposed name. Never rejects for expected failures: they come back as `isError` results. */
  async callTool(name: string, args: unknown = {}, options: HarnessCallOptions = {}): Promise<HarnessCallResult> {
    return this._secrets.callResult(await this._callTool(name, args, options));
  }

  private async _callTool(name: string, args: unknown, options: HarnessCallOptions): Promise<HarnessCallResult> {
    const resolved = this.registry.resolve(name);
    if (!resolved) {
      const down = this._serverOfMissingTool(name);
      return down ? failure('unavailable', down.describeUnavailable()) : failure('unknown_tool', `unknown tool "${name}"`);
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return failure('invalid_arguments', `arguments for ${name} must be a JSON object`);
    }
    const problem = this.registry.validateArguments(name, args as Record<string, unknown>);
    if (problem) return failure('invalid_arguments', problem);
    const input = args as Record<string, unknown>;
    if (resolved.kind === 'builtin') return this._callBuiltin(resolved.tool, input, options);
    const connection = this.manager.get(resolved.server);
    if (!connection) return failure('unavailable', `server "${resolved.server}" is no longer configured`);
    const timeoutMs = options.timeoutMs ?? connection.definition.toolTimeoutMs ?? this._options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    try {
      const raw = await connection.callTool(resolved.tool.name, input, {
        signal: options.signal,
        timeoutMs,
        maxTotalTimeoutMs: Math.max(timeoutMs, this._options.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS),
        onProgress: options.onProgress,
      });
      const result = formatToolResult(raw, { maxOutputChars: this._maxOutput() });
      return result.isError ? { ...result, errorKind: 'tool_error' } : result;
    } catch (err) {
      // An unavailable server is already named in its message.
      if (err instanceof McpCallError) return failure(err.kind, err.kind === 'unavailable' ? err.message : `${resolved.server}: ${err.message}`);
      throw err;
    }
  }

  /** Stops every server and waits until no process it started is left. */
  dispose(): Promise<void> {
    this._disposed ??= this.manager.shutdown().finally(() => this._store.dispose());
    return this._disposed;
  }

  private async _callBuiltin(tool: BuiltinTool, args: Record<string, unknown>, options: HarnessCallOptions): Promise<HarnessCallResult> {
    try {
      const result = await tool.invoke(args, { signal: options.signal });
      return result.isError ? { ...result, errorKind: 'tool_error' } : result;
    } catch (err) {
      return failure('tool_error', `${tool.name} failed: ${errorMessage(err)}`);
    }
  }

  private _syncServer(name: string): void {
    const connection = this.manager.get(name);
    const snapshot = connection?.snapshot;
    if (snapshot && isServingState(snapshot.state)) {
      this.registry.setServerTools(name, snapshot.tools);
      this._lastToolNames.set(name, new Set(this.registry.getTools().flatMap((t) => (t.source.kind === 'mcp' && t.source.server === name ? [t.name] : []))));
    } else {
      this.registry.removeServer(name);
    }
    if (!connection) this._lastToolNames.delete(name);
    this._onDidChange.fire();
  }

  /**
   * The configured server a call to an unlisted `name` was meant for, when that server is not
   * running: one that offered the name last time it ran, else one whose `mcp__<server>__` prefix
   * the name carries (the longest such prefix). Never splits the name apart.
   */
  private _serverOfMissingTool(name: string) {
    const down = this.manager.servers().filter((s) => s.state.kind !== 'running');
    const byList = down.find((s) => this._lastToolNames.get(s.name)?.has(name));
    const byPrefix = down
      .filter((s) => name.startsWith(`${MCP_TOOL_NAME_PREFIX}${sanitizeToolNamePart(s.name)}__`))
      .sort((a, b) => b.name.length - a.name.length)[0];
    const server = byList ?? byPrefix;
    return server && this.manager.get(server.name);
  }

  private _syncAll(): void {
    const order = this.manager.servers().map((s) => s.name);
    const names = new Set(order);
    this.registry.setServerOrder(order);
    for (const tool of this.registry.getTools()) {
      if (tool.source.kind === 'mcp' && !names.has(tool.source.server)) this.registry.removeServer(tool.source.server);
    }
    for (const name of this._lastToolNames.keys()) if (!names.has(name)) this._lastToolNames.delete(name);
    for (const name of names) this._syncServer(name);
  }

  private _folders(): readonly string[] {
    return this._options.workspaceFolders ?? (this._options.workspaceFolder ? [this._options.workspaceFolder] : []);
  }

  private _roots() {
    return this._folders().map((folder) => ({ uri: pathToFileURL(folder).href, name: folder.split(/[\\/]/).pop() || folder }));
  }

  private _maxOutput(): number {
    return this._options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  }

  private async _resolveLaunch(def: McpServerDefinition): Promise<McpLaunchResolution> {
    const env = this._options.env ?? process.env;
    const resolved = await resolveServerLaunch(def, { env, userHome: os.homedir(), inputResolver: this._options.inputResolver });
    if (resolved.ok) this._secrets.set(def.name, resolved.value.secretValues);
    if (!resolved.ok || resolved.value.type !== 'stdio') return resolved;
    let loginShellPath: string | undefined;
    if (needsLoginShellPath(env, process.platform)) {
      this._loginShellPath ??= readLoginShellPath(env.SHELL || '/bin/sh');
      loginShellPath = await this._loginShellPath;
    }
    const serverEnv = buildServerEnvironment(env, resolved.value.env, {
      platform: process.platform,
      inheritAll: this._options.inheritEnv ?? false,
      loginShellPath,
    });
    return { ok: true, value: { ...resolved.value, env: serverEnv } };
  }

  private _log(server: string, level: McpLogEntry['level'], message: string): void {
    this._onDidLog.fire({ server, level, source: 'harness', message, time: Date.now() });
  }
}

/** Creates a harness, loads its configuration and starts every server. */
export async function createHarness(options: HarnessOptions = {}): Promise<McpHarness> {
  const harness = new McpHarness(options);
  try {
    await harness.start();
  } catch (err) {
    await harness.dispose();
    throw err;
  }
  return harness;
}

function toHarnessServer(s: McpServerSnapshot): HarnessServer {
  const state = s.state;
  const error =
    state.kind === 'error' ? state.message : state.kind === 'blocked' || state.kind === 'reconnecting' || state.kind === 'auth_required' ? state.reason : undefined;
  return {
    name: s.name,
    state: state.kind,
    transport: s.transport,
    tools: s.tools,
    ...(error !== undefined ? { error } : {}),
    serverInfo: s.serverInfo,
    protocolVersion: s.protocolVersion,
    origin: s.definition.origin,
    restartCount: s.restartCount,
    stderrTail: s.stderrTail,
  };
}

function failure(kind: HarnessCallErrorKind, message: string): HarnessCallResult {
  return { ...errorResult(message), errorKind: kind };
}
