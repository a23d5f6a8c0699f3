// The facade is long because it is the one surface hosts use (the extension, the CLI, serve and
// library users): each member is a thin delegation to the manager, the registry or the pipeline.
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import * as os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Emitter, type Event } from './base/event';
import { DisposableStore, type IDisposable } from './base/lifecycle';
import { CallPipeline } from './calls/CallPipeline';
import { ResourceSubscriptions, type ResourceUpdate } from './calls/ResourceSubscriptions';
import { ServerRequests, type ServerRequestOptions } from './calls/ServerRequests';
import type { ToolCallEvent, ToolCallOptions, ToolCallOutcome, ToolCallRequest } from './calls/types';
import { loadHooksConfig, loadMcpConfig, type McpConfigError, type McpLaunchResolution, type McpServerDefinition } from './config';
import { checkServerPolicy } from './config/serverPolicy';
import { HookRunner, type HookRunRecord, type HookSnapshot } from './hooks';
import type { HarnessApplyResult, HarnessCallOptions, HarnessCallResult, HarnessOptions, HarnessServer } from './HarnessTypes';
import { McpServerManager } from './mcp/McpServerManager';
import { isServingState, type McpLogEntry, type McpServerSnapshot } from './mcp/McpServerSnapshot';
import { ServerLaunchResolver } from './config/ServerLaunchResolver';
import { McpServerAuth } from './auth/McpServerAuth';
import { prepareEnvFolders } from './config/prepareEnvFolders';
import { ToolRegistry } from './tools/ToolRegistry';
import { ToolSearchCache } from './tools/search/ToolSearchCache';
import type { BuiltinTool, HarnessTool } from './tools/types';
import { HARNESS_VERSION } from './version';
import { HarnessSecrets } from './HarnessSecrets';
import { ServerSkills, type HarnessSkill, type LoadedSkill, type SkillListProblem } from './skills/ServerSkills';
import { ServerAsks } from './requests/ServerAsks';
import { UrlElicitationRetry } from './requests/UrlElicitationRetry';
import { applyServerLogLevel } from './requests/serverLogLevel';
import { errorMessage } from './base/errors';
import { sandboxLaunch } from './sandboxLaunch';
import { McpTasks } from './tasks/McpTasks';
import type { FinishedTask, HarnessTask } from './tasks/taskTypes';
import { DEFAULT_TOOL_TIMEOUT_MS } from './calls/callPolicy';
import { McpCallError } from './mcp/McpCallError';

export type {
  HarnessApplyResult,
  HarnessCallErrorKind,
  HarnessCallOptions,
  HarnessCallResult,
  HarnessHookOptions,
  HarnessOptions,
  HarnessServer,
  HarnessTool,
} from './HarnessTypes';
export { DEFAULT_TOOL_TIMEOUT_MS, DEFAULT_MAX_TOTAL_TIMEOUT_MS } from './calls/callPolicy';

/**
 * The MCP client in one object: reads configuration, keeps every server connected, exposes their
 * tools under one registry and makes every call through one pipeline. Its manager and registry
 * are its own; hosts use the members below. A constructor starts nothing; `start()` does.
 */
export class McpHarness {
  private readonly _manager: McpServerManager;
  private readonly _registry: ToolRegistry;
  private readonly _pipeline: CallPipeline;
  private readonly _requests: ServerRequests;
  private readonly _skills: ServerSkills;
  private readonly _subscriptions: ResourceSubscriptions;
  private readonly _store = new DisposableStore();
  private readonly _onDidChange = this._store.add(new Emitter<void>());
  /** Anything visible changed: a server's state or lists, the server set, tools, config errors. */
  readonly onDidChange: Event<void> = this._onDidChange.event;
  private readonly _onDidLog = this._store.add(new Emitter<McpLogEntry>());
  readonly onDidLog: Event<McpLogEntry> = this._onDidLog.event;
  /** The tools changed: added, removed, or described differently. */
  readonly onDidChangeTools: Event<void>;
  /** A resource someone subscribed to (see {@link subscribeResource}) changed on its server. */
  readonly onDidUpdateResource: Event<ResourceUpdate>;
  /** A hook ran (or was skipped): what the hook log shows. */
  readonly onDidRunHook: Event<HookRunRecord>;
  /** The hooks, or which of them may run, changed. */
  readonly onDidChangeHooks: Event<void>;
  private readonly _hooks: HookRunner;
  private readonly _tasks: McpTasks;
  /** The running tasks changed: one started, ended, or reported a new state or progress. */
  readonly onDidChangeTasks: Event<void>;
  /**
   * A tool task no call here waits for ended (picked up again after a restart, or detached): its
   * result, or why there is none, for whoever started it (`task.origin`).
   */
  readonly onDidFinishTask: Event<FinishedTask>;

  private _options: HarnessOptions;
  private _configErrors: readonly McpConfigError[] = [];
  private readonly _launches: ServerLaunchResolver;
  private _started: Promise<void> | undefined;
  private _applying: Promise<void> = Promise.resolve();
  private _disposed: Promise<void> | undefined;
  private _toolSearch: ToolSearchCache | undefined;
  /** Start time of each server's last session seen running, to tell a new session (renew subscriptions) from a state change. */
  private readonly _sessionStarts = new Map<string, number>();
  private readonly _secrets = new HarnessSecrets();
  private readonly _asks: ServerAsks | undefined;

  constructor(options: HarnessOptions = {}) {
    this._options = options;
    this._launches = new ServerLaunchResolver({
      env: () => this._options.env ?? process.env,
      inheritEnv: () => this._options.inheritEnv ?? false,
      userHome: os.homedir(),
      platform: process.platform,
      inputResolver: options.inputResolver,
    });
    this._asks = options.asks && new ServerAsks({ log: (server, m) => this._log(server, 'info', m), ...options.asks });
    this._registry = this._store.add(new ToolRegistry({ logger: { warn: (m) => this._log('harness', 'warn', m) } }));
    this._tasks = new McpTasks({
      store: options.taskStore,
      clientFor: (server, signal) => {
        const connection = this._manager.get(server);
        // Not configured any more: nothing to wait for (an unavailable server is waited for).
        if (!connection) throw new McpCallError('protocol', `server "${server}" is no longer configured`);
        return connection.taskClient(signal);
      },
      hasServer: (server) => this._manager.get(server) !== undefined,
      requestTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      log: (server, level, message) => this._log(server, level, message),
    });
    this._store.add(this._tasks);
    this.onDidChangeTasks = this._tasks.onDidChangeTasks;
    this.onDidFinishTask = this._tasks.onDidFinishTask;
    this.onDidChangeTools = this._registry.onDidChange;
    this._manager = new McpServerManager({
      clientInfo: { name: 'mcp-harness', version: HARNESS_VERSION },
      handlers: { roots: () => this._roots(), ...this._asks?.handlers(), ...options.handlers },
      resolveLaunch: (def) => this._resolveLaunch(def),
      checkStart: options.checkStart,
      checkPolicy: (def) => checkServerPolicy(this._options.serverPolicy, def),
      reconnectDelaysMs: options.reconnectDelaysMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs,
      stableAfterMs: options.reconnectStableAfterMs,
      clock: options.clock,
      maxMessageBytes: options.maxMessageBytes,
      defaultStartupTimeoutMs: options.startupTimeoutMs,
      shutdownGraceMs: options.shutdownGraceMs,
      createTransports: options.createTransports,
      traceEnabled: options.traceEnabled ?? (() => false),
      auth: new McpServerAuth(options.authHost),
      tasks: this._tasks,
    });
    const defaults = () => ({ toolTimeoutMs: this._options.toolTimeoutMs, maxTotalTimeoutMs: this._options.maxTotalTimeoutMs, maxOutputChars: this._options.maxOutputChars, maxOutputCharsPerTool: this._options.maxOutputCharsPerTool });
    this._hooks = this._store.add(
      new HookRunner({
        permit: (hook) => this._options.hooks?.permit?.(hook),
        // Hooks get what stdio servers get: the safe variables, or everything with inheritEnv.
        env: () => this._launches.hostEnvironment(),
        projectDir: () => this._folders()[0] ?? process.cwd(),
      }),
    );
    this.onDidRunHook = this._hooks.onDidRun;
    this.onDidChangeHooks = this._hooks.onDidChange;
    const servers = () => this._manager.servers().map((s) => s.name);
    const mask = (text: string) => this._secrets.mask(text);
    // A 2025-11-25 server may refuse a call until the person visits a page (-32042): with someone to ask, they are asked and the call retried.
    const asks = this._asks;
    const connection = (server: string) => {
      const c = this._manager.get(server);
      return c && asks ? new UrlElicitationRetry(c, server, asks) : c;
    };
    this._pipeline = new CallPipeline({ registry: this._registry, connection, servers, defaults, hooks: this._hooks, mask });
    this._requests = new ServerRequests({ connection: (server) => this._manager.get(server), defaults, mask });
    this._skills = new ServerSkills({ servers, connection: (server) => this._manager.get(server) });
    this._subscriptions = this._store.add(new ResourceSubscriptions(this._requests, (server, m) => this._log(server, 'warn', m)));
    this.onDidUpdateResource = this._subscriptions.onDidUpdate;
    this._store.add(this._manager.onDidChangeServer((s) => this._syncServer(s.name)));
    this._store.add(this._manager.onDidChangeServers(() => this._syncAll()));
    this._store.add(this._manager.onDidLog((e) => this._onDidLog.fire(this._secrets.logEntry(e))));
    this._store.add(this._manager.onDidUpdateResource((e) => this._subscriptions.updated(e.server, e.uri)));
    this._store.add(this._registry.onDidChange(() => this._onDidChange.fire()));
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
    return this._manager.servers().map((s) => this._secrets.snapshot(s));
  }

  /** One server's snapshot, resolved secrets masked. */
  snapshot(name: string): McpServerSnapshot | undefined {
    const snapshot = this._manager.get(name)?.snapshot;
    return snapshot && this._secrets.snapshot(snapshot);
  }

  /** `text` with every secret a server's definition resolved to (and URL passwords) masked: for anything quoted from a server. */
  maskSecrets(text: string): string {
    return this._secrets.mask(text);
  }

  /** Every callable tool: built-ins first, then each server's. */
  tools(): readonly HarnessTool[] {
    return this._registry.getTools();
  }

  /** The tool an exposed name stands for now. */
  tool(name: string): HarnessTool | undefined {
    return this._registry.getTool(name);
  }

  /**
   * The tools best matching `query` (names, titles, servers, descriptions, parameters), best
   * first; at most `limit` (default 8). Only tools that are new or changed since the last search
   * are indexed again.
   */
  searchTools(query: string, options: { limit?: number; tools?: readonly HarnessTool[] } = {}): HarnessTool[] {
    this._toolSearch ??= new ToolSearchCache();
    return this._toolSearch.search(options.tools ?? this.tools(), query, options);
  }

  configErrors(): readonly McpConfigError[] {
    return this._configErrors;
  }

  /** Every configured hook in the order they run, with why it does not run now when it does not. */
  hooks(): HookSnapshot[] {
    return this._hooks.hooks();
  }

  /** Tells the hooks' listeners that which hooks may run changed (an approval, the workspace's trust). */
  refreshHooks(): void {
    this._hooks.refresh();
  }

  /** The chat events' hooks (UserPromptSubmit, SessionStart), for a chat session to run. */
  get chatHooks(): Pick<HookRunner, 'userPromptSubmit' | 'sessionStart'> {
    return { userPromptSubmit: (c) => this._hooks.userPromptSubmit(c), sessionStart: (c) => this._hooks.sessionStart(c) };
  }

  registerBuiltin(tool: BuiltinTool): IDisposable {
    return this._registry.registerBuiltin(tool);
  }

  /**
   * Re-reads the configuration (optionally with new locations) and applies it as a diff.
   * Resolves when the servers it started run or have failed, unless `wait` is false.
   */
  async applyConfig(
    update: Pick<HarnessOptions, 'workspaceFolders' | 'configFiles' | 'userServers' | 'providedServers' | 'discover' | 'toolTimeoutMs' | 'maxOutputChars' | 'maxOutputCharsPerTool' | 'inheritEnv' | 'hooks' | 'serverPolicy'> = {},
    options: { restartFailed?: boolean; wait?: boolean } = {},
  ): Promise<HarnessApplyResult> {
    const policyBefore = JSON.stringify(this._options.serverPolicy ?? null);
    const rootsBefore = JSON.stringify(this._roots());
    this._options = { ...this._options, ...update };
    const policyChanged = JSON.stringify(this._options.serverPolicy ?? null) !== policyBefore;
    // Servers that declared the roots capability hear that the folders changed.
    // Stryker disable next-line OptionalChaining: every server the manager lists has a connection
    if (JSON.stringify(this._roots()) !== rootsBefore) for (const s of this._manager.servers()) this._manager.get(s.name)?.notifyRootsChanged();
    // One load at a time, in call order: a slow read must never apply over a newer one.
    const applied = this._applying.then(async () => {
      const hookOptions = this._options.hooks ?? {};
      const [{ servers, errors: serverErrors }, hooks] = await Promise.all([
        loadMcpConfig({
          workspaceFolders: this._folders(),
          configFiles: this._options.configFiles,
          userServers: this._options.userServers,
          providedServers: this._options.providedServers,
          discover: this._discoveryOptions(),
        }),
        loadHooksConfig({ workspaceFolders: this._folders(), ...hookOptions }),
      ]);
      const errors = [...serverErrors, ...hooks.errors];
      this._configErrors = errors;
      this._hooks.setHooks([...(hookOptions.definitions ?? []), ...hooks.hooks]);
      const { diff, settled } = this._manager.applyDefinitions(servers, {
        start: this._options.autoStart ?? true,
        restartFailed: options.restartFailed,
      });
      // Servers whose definition did not change still answer to a new policy: stopped if it now refuses them, started if it now allows them.
      const recheck = policyChanged ? this._applyPolicy(diff.unchanged) : Promise.resolve();
      this._onDidChange.fire();
      return { result: { ...diff, configErrors: errors }, settled: Promise.all([settled, recheck]).then(() => undefined) };
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
    return this._manager.start(name);
  }
  stopServer(name: string): Promise<void> {
    return this._manager.stop(name);
  }
  restartServer(name: string): Promise<void> {
    return this._manager.restart(name);
  }
  /** Signs in to an HTTP server that asks for it (needs `authHost`); resolves when it runs or has failed. */
  signIn(name: string): Promise<void> {
    return this._manager.signIn(name);
  }
  /** Forgets a server's OAuth tokens and registrations; it then shows "sign-in required". */
  signOut(name: string): Promise<void> {
    return this._manager.signOut(name);
  }
  /** Resolves once no server is starting or reconnecting (a remote server that stays down keeps reconnecting). */
  whenSettled(): Promise<void> {
    return this._manager.whenSettled();
  }

  /**
   * Calls a tool by exposed name, as the caller itself decided (a library host, the CLI); pass a
   * `decider` to put a permission gate in front. Never rejects for expected failures: they come
   * back as `isError` results with an `errorKind`.
   */
  async callTool(name: string, args: unknown = {}, options: HarnessCallOptions = {}): Promise<HarnessCallResult> {
    const { onProgress, ...rest } = options;
    const outcome = await this.call(
      { name, arguments: args },
      // Assigned, not spread: on Node 20 a spread followed by more properties is slow.
      onProgress
        ? Object.assign(rest, {
            onEvent: (e: ToolCallEvent) => {
              if (e.progress && e.state === 'running') onProgress(e.progress);
              options.onEvent?.(e);
            },
          })
        : rest,
    );
    const { isError, text, content, structuredContent, errorKind } = outcome;
    return { isError, text, content, ...(structuredContent ? { structuredContent } : {}), ...(errorKind ? { errorKind } : {}) };
  }

  /**
   * Runs one call through the pipeline and reports everything about it (what a card shows). A
   * failure's text may quote a server's definition: it is masked, on the card too.
   */
  async call(request: ToolCallRequest, options: ToolCallOptions = {}): Promise<ToolCallOutcome> {
    const onEvent = options.onEvent;
    // The log's lines are written only while someone reads the log.
    const logged = this._onDidLog.hasListeners;
    const masked: ToolCallOptions =
      // Stryker disable next-line ConditionalExpression: only spares a wrapper: with no listener and no log reader, the wrapper passes nothing on
      onEvent || logged
        ? Object.assign({}, options, {
            onEvent: (e: ToolCallEvent) => {
              if (logged && e.state === 'running' && e.tool?.server !== undefined) this._log(e.tool.server, 'info', `call ${e.tool.originalName} (${e.callId.slice(0, 8)})`);
              onEvent?.(e.state === 'error' && e.output !== undefined ? { ...e, output: this._secrets.mask(e.output) } : e);
            },
          })
        : options;
    const outcome = this._secrets.callResult(await this._pipeline.callTool(request, masked)) as ToolCallOutcome;
    // Stryker disable next-line ConditionalExpression: only spares work: lines logged while nobody reads the log go nowhere
    if (logged) this._logOutcome(outcome);
    return outcome;
  }

  /** The server log's line for a finished call: how it ended, how long it ran, and a failure's first line. */
  private _logOutcome(outcome: ToolCallOutcome): void {
    const server = outcome.tool?.server;
    if (server === undefined) return;
    const ran = outcome.runMs === undefined ? '' : ` after ${Math.round(outcome.runMs)} ms`;
    const what = `call ${outcome.tool!.originalName} (${outcome.callId.slice(0, 8)})`;
    if (outcome.state === 'done') return this._log(server, 'info', `${what} done${ran}`);
    const first = firstLine(outcome.text);
    if (outcome.state === 'error') this._log(server, 'warn', `${what} failed${ran}: ${first}`);
    else this._log(server, 'info', `${what} ${outcome.state}${first ? `: ${first}` : ''}`);
  }

  /** Reads a resource of a server (by the URI the server knows it by), through the same steps as a call. */
  readResource(server: string, uri: string, options?: ServerRequestOptions): Promise<ReadResourceResult> {
    return this._requests.readResource(server, uri, options);
  }

  /** The skills servers offer (`skills/list`; no file is read), and the servers or entries that could not be listed (also logged). */
  async skills(options?: { server?: string; signal?: AbortSignal }): Promise<{ skills: HarnessSkill[]; problems: SkillListProblem[] }> {
    const listed = await this._skills.list(options);
    for (const p of listed.problems) this._log(p.server, 'warn', p.message);
    return listed;
  }

  /**
   * Loads a skill by name (or `SKILL.md` URI): every file read through `resources/read` and checked
   * against the manifest's size and SHA-256 digest. @throws SkillRefusedError naming the file and why.
   */
  getSkill(server: string, name: string, options?: { signal?: AbortSignal }): Promise<LoadedSkill> {
    return this._skills.load(server, name, options);
  }

  /** Gets a prompt of a server with its arguments (strings), through the same steps as a call. */
  getPrompt(server: string, name: string, args?: Readonly<Record<string, unknown>>, options?: ServerRequestOptions): Promise<GetPromptResult> {
    return this._requests.getPrompt(server, name, args, options);
  }

  /** Suggestions for a prompt argument or a resource template variable being typed (`completion/complete`). */
  complete(...args: Parameters<ServerRequests['complete']>): ReturnType<ServerRequests['complete']> {
    return this._requests.complete(...args);
  }

  /**
   * Subscribes `holder` to a resource: {@link onDidUpdateResource} then fires when it changes. One
   * upstream subscription however many hold it; renewed when the server reconnects.
   */
  subscribeResource(server: string, uri: string, holder: object, options?: ServerRequestOptions): Promise<void> {
    return this._subscriptions.subscribe(server, uri, holder, options);
  }

  unsubscribeResource(server: string, uri: string, holder: object, options?: ServerRequestOptions): Promise<void> {
    return this._subscriptions.unsubscribe(server, uri, holder, options);
  }

  /** Ends every subscription `holder` has (a client went away). */
  dropSubscriptions(holder: object): void {
    this._subscriptions.drop(holder);
  }

  /** Every running task: tool calls that came back as tasks, then servers' requests this host runs as tasks. */
  tasks(): HarnessTask[] {
    return this._tasks.tasks();
  }

  /** "Cancel Task": a tool task is cancelled on its server (`tasks/cancel`), a task of ours stops. Returns whether there was one. */
  cancelTask(server: string, taskId: string): boolean {
    return this._tasks.cancel(server, taskId);
  }

  /**
   * Follows the stored tool tasks again (those `only` accepts; all by default), each once its server
   * runs; how each ends is told through {@link onDidFinishTask}. Needs `taskStore`.
   */
  resumeTasks(only?: Parameters<McpTasks['resume']>[0]): Promise<HarnessTask[]> {
    return this._tasks.resume(only);
  }

  /** The stored tool tasks nobody follows in this process (a detached call's, another run's). */
  storedTasks(): ReturnType<McpTasks['stored']> {
    return this._tasks.stored();
  }

  /** Follows a task of `server` by its id until it ends (also told through {@link onDidFinishTask}). */
  waitForTask(server: string, taskId: string, about?: { tool?: string; title?: string }): Promise<FinishedTask> {
    return this._tasks.watch(server, taskId, about);
  }

  /** A task's state as its server reports it now (`tasks/get`), waiting for a starting server. */
  async getTask(server: string, taskId: string, options: { signal?: AbortSignal } = {}) {
    const connection = this._manager.get(server);
    if (!connection) throw new McpCallError('unavailable', `server "${server}" is not configured`);
    const signal = options.signal ?? new AbortController().signal;
    const timeoutMs = this._options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return (await connection.taskClient(signal)).get(taskId, { signal, timeoutMs });
  }

  /**
   * Stops following every task without cancelling any: they keep running on their servers and stay
   * in the task store, to be picked up again ({@link resumeTasks}). Done by {@link dispose} too; a
   * host calls it first when something it stops next (a chat turn) would otherwise cancel them.
   */
  suspendTasks(): void {
    this._tasks.suspend();
  }

  /** Stops every server and waits until no process it started is left (running tasks are left running, see {@link suspendTasks}). */
  dispose(): Promise<void> {
    this._tasks.suspend();
    this._disposed ??= Promise.all([this._manager.shutdown(), this._tasks.flush()]).then(
      () => this._store.dispose(),
      (err: unknown) => {
        this._store.dispose();
        throw err;
      },
    );
    return this._disposed;
  }

  /** Forgets "Allow for this session" answers to servers' sampling requests: each asks again. */
  resetAskApprovals(): void {
    this._asks?.resetSession();
  }

  /**
   * Sends a running 2025-era server that offers logging the level `options.logLevel` gives it
   * (`logging/setLevel`); done by itself whenever a session starts. Failures are logged.
   */
  applyLogLevel(server: string): void {
    const level = this._options.logLevel?.(server);
    if (level === undefined) return;
    applyServerLogLevel(this._manager.get(server), level).then(
      (outcome) => outcome === 'set' && this._log(server, 'debug', `asked the server to log from level ${level} up`),
      (err: unknown) => this._log(server, 'warn', `logging/setLevel failed: ${this._secrets.mask(errorMessage(err))}`),
    );
  }

  private _syncServer(name: string): void {
    const snapshot = this._manager.get(name)?.snapshot;
    if (snapshot && isServingState(snapshot.state)) this._registry.setServerTools(name, snapshot.tools);
    else this._registry.removeServer(name);
    // A new session (after a reconnect or a restart) has forgotten the subscriptions made on the old one.
    const startedAt = snapshot?.state.kind === 'running' ? snapshot.startedAt : undefined;
    if (startedAt !== undefined) {
      const seen = this._sessionStarts.get(name);
      this._sessionStarts.set(name, startedAt);
      if (seen !== undefined && seen !== startedAt) this._subscriptions.renew(name);
      if (seen !== startedAt) this.applyLogLevel(name);
    }
    this._onDidChange.fire();
  }

  private _syncAll(): void {
    const order = this._manager.servers().map((s) => s.name);
    const names = new Set(order);
    this._registry.setServerOrder(order);
    for (const tool of this._registry.getTools()) {
      if (tool.server !== undefined && !names.has(tool.server)) this._registry.removeServer(tool.server);
    }
    for (const name of [...this._sessionStarts.keys()]) {
      if (names.has(name)) continue;
      this._sessionStarts.delete(name);
      this._subscriptions.forgetServer(name);
    }
    for (const name of names) this._syncServer(name);
  }

  private _discoveryOptions() {
    const discover = this._options.discover;
    if (!discover) return undefined;
    return { env: this._options.env, ...(discover === true ? {} : discover) };
  }

  /** Moves each of `names` to what the current policy says: a refused one is stopped (and shown blocked), a newly allowed one started. */
  private async _applyPolicy(names: readonly string[]): Promise<void> {
    await Promise.all(
      names.map(async (name) => {
        const connection = this._manager.get(name);
        if (!connection) return;
        const refused = checkServerPolicy(this._options.serverPolicy, connection.definition) !== undefined;
        const state = connection.state;
        const blockedByPolicy = state.kind === 'blocked' && state.policy === true;
        if (refused && !blockedByPolicy && state.kind !== 'disabled') await this._manager.restart(name);
        else if (!refused && blockedByPolicy && (this._options.autoStart ?? true)) await this._manager.start(name);
      }),
    );
  }

  private _folders(): readonly string[] {
    return this._options.workspaceFolders ?? (this._options.workspaceFolder ? [this._options.workspaceFolder] : []);
  }

  private _roots() {
    return this._folders().map((folder) => ({ uri: pathToFileURL(folder).href, name: folder.split(/[\\/]/).pop() || folder }));
  }

  private async _resolveLaunch(def: McpServerDefinition): Promise<McpLaunchResolution> {
    const resolved = await this._launches.resolve(def);
    if (resolved.ok) this._secrets.set(def.name, resolved.value.secretValues);
    if (resolved.ok && resolved.value.type === 'stdio') {
      // Only what the definition itself sets: the inherited environment is the user's business.
      const configured = Object.fromEntries(Object.entries(resolved.value.env).filter(([name]) => def.env?.[name] !== undefined));
      await this._prepareEnvFolders(def, configured);
    }
    if (!resolved.ok || def.sandbox === undefined || resolved.value.type !== 'stdio') return resolved;
    const sandboxed = sandboxLaunch(def, resolved.value, { workspaceFolders: this._folders(), userHome: os.homedir(), launcherPath: this._options.sandboxLauncher });
    if (sandboxed.ok) this._log(def.name, 'info', sandboxed.value.description);
    return sandboxed.ok ? { ok: true, value: sandboxed.value.launch } : sandboxed;
  }

  /** Folders the configured environment names a file in (a gitignored `.harness/`): made when inside the workspace. */
  private async _prepareEnvFolders(def: McpServerDefinition, env: Readonly<Record<string, string>>): Promise<void> {
    const folders = [...this._folders(), ...(def.workspaceFolder ? [def.workspaceFolder] : [])];
    for (const note of await prepareEnvFolders(env, folders)) {
      if (note.action === 'created') this._log(def.name, 'info', `created the folder ${note.folder} that ${note.variable} points into`);
      else this._log(def.name, 'warn', `${note.variable} points into ${note.folder}, which does not exist; the server may fail to write there`);
    }
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

/** The first line of `text` that is not blank, trimmed, at most 300 characters. */
function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim().slice(0, 300) ?? '';
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
