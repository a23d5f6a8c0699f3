import { Disposable, DisposableStore } from '../base/lifecycle';
import { Emitter, type Event } from '../base/event';
import { definitionFingerprint } from '../config/definitionFingerprint';
import type { McpServerDefinition } from '../config/types';
import { McpConnection, type McpConnectionOptions } from './McpConnection';
import type { McpLogEntry, McpServerSnapshot } from './McpServerSnapshot';

export type McpServerManagerOptions = Omit<McpConnectionOptions, 'definition'>;

/** What applying a configuration did, by server name. */
export interface McpConfigDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly restarted: readonly string[];
  readonly unchanged: readonly string[];
}

export interface ApplyDefinitionsOptions {
  /** Start added and changed servers (default true). */
  readonly start?: boolean;
  /** Also restart unchanged servers that are in error (an explicit reload does this). */
  readonly restartFailed?: boolean;
}

/**
 * Owns one {@link McpConnection} per configured server. Applies configurations as a diff, starts
 * servers concurrently, and keeps one server's failure away from the others.
 */
export class McpServerManager extends Disposable {
  private readonly _onDidChangeServer = this._register(new Emitter<McpServerSnapshot>());
  /** A server's snapshot changed. */
  readonly onDidChangeServer: Event<McpServerSnapshot> = this._onDidChangeServer.event;
  private readonly _onDidChangeServers = this._register(new Emitter<void>());
  /** Servers were added or removed. */
  readonly onDidChangeServers: Event<void> = this._onDidChangeServers.event;
  private readonly _onDidLog = this._register(new Emitter<McpLogEntry>());
  readonly onDidLog: Event<McpLogEntry> = this._onDidLog.event;
  private readonly _onDidUpdateResource = this._register(new Emitter<{ readonly server: string; readonly uri: string }>());
  /** A server said a subscribed resource changed (its own URI). */
  readonly onDidUpdateResource: Event<{ readonly server: string; readonly uri: string }> = this._onDidUpdateResource.event;

  private readonly _connections = new Map<string, { connection: McpConnection; fingerprint: string; listeners: DisposableStore }>();
  private _order: string[] = [];
  private _disposed = false;

  constructor(private readonly _options: McpServerManagerOptions) {
    super();
  }

  /** Snapshots of every server, in configuration order. */
  servers(): McpServerSnapshot[] {
    return this._order.map((name) => this._connections.get(name)!.connection.snapshot);
  }

  get(name: string): McpConnection | undefined {
    return this._connections.get(name)?.connection;
  }

  /**
   * Makes the set of servers match `definitions`: added servers start, removed ones stop, changed
   * ones (any field) restart, unchanged ones are left alone. Returns at once with the diff;
   * `settled` resolves when every server it started is running or has failed.
   */
  applyDefinitions(definitions: readonly McpServerDefinition[], options: ApplyDefinitionsOptions = {}): { diff: McpConfigDiff; settled: Promise<void> } {
    if (this._disposed) throw new Error('McpServerManager is disposed');
    const start = options.start ?? true;
    const next = new Map(definitions.map((d) => [d.name, d] as const));
    const diff = { added: [] as string[], removed: [] as string[], restarted: [] as string[], unchanged: [] as string[] };
    // First settle the set of servers, so listeners of the events fired below see a consistent list.
    const retiring = [...this._connections].filter(([name]) => !next.has(name));
    for (const [name] of retiring) {
      diff.removed.push(name);
      this._connections.delete(name);
    }
    const actions: Array<() => Promise<void>> = retiring.map(([, entry]) => () => this._retire(entry));
    for (const def of definitions) {
      const fingerprint = definitionFingerprint(def);
      const entry = this._connections.get(def.name);
      if (!entry) {
        diff.added.push(def.name);
        const connection = this._create(def, fingerprint);
        if (start) actions.push(() => connection.start());
      } else if (entry.fingerprint !== fingerprint) {
        diff.restarted.push(def.name);
        entry.fingerprint = fingerprint;
        actions.push(() => {
          entry.connection.setDefinition(def);
          return start ? entry.connection.restart() : entry.connection.stop();
        });
      } else {
        const failed = entry.connection.state.kind === 'error' && !def.problem;
        const restart = options.restartFailed && failed && start;
        (restart ? diff.restarted : diff.unchanged).push(def.name);
        actions.push(() => {
          entry.connection.setDefinition(def); // its origin (line, file) may have moved
          // A reload is a good moment to see whether a dropped server is back.
          return restart ? entry.connection.restart() : start ? entry.connection.retryNow() : Promise.resolve();
        });
      }
    }
    const order = definitions.map((d) => d.name);
    const orderChanged = order.join('\0') !== this._order.join('\0');
    this._order = order;
    if (orderChanged) this._onDidChangeServers.fire();
    return { diff, settled: Promise.all(actions.map((run) => run())).then(() => undefined) };
  }

  /** Starts every server that is not running; resolves when each runs or has failed. */
  async startAll(): Promise<void> {
    await Promise.all([...this._connections.values()].map((e) => e.connection.start()));
  }

  start(name: string): Promise<void> {
    return this._require(name).start();
  }

  stop(name: string): Promise<void> {
    return this._require(name).stop();
  }

  restart(name: string): Promise<void> {
    return this._require(name).restart();
  }

  signIn(name: string): Promise<void> {
    return this._require(name).signIn();
  }

  signOut(name: string): Promise<void> {
    return this._require(name).signOut();
  }

  /** Resolves when no server is starting or reconnecting (a remote server that stays down keeps reconnecting). */
  async whenSettled(): Promise<void> {
    await Promise.all([...this._connections.values()].map((e) => e.connection.whenSettled()));
  }

  /** Stops every server and waits until every process it started is gone. */
  async shutdown(): Promise<void> {
    this._disposed = true;
    const entries = [...this._connections.values()];
    this._connections.clear();
    this._order = [];
    await Promise.all(entries.map((e) => this._retire(e)));
    super.dispose();
  }

  /** Same as {@link shutdown}, without waiting. Prefer awaiting `shutdown()`. */
  override dispose(): void {
    void this.shutdown();
  }

  private _create(def: McpServerDefinition, fingerprint: string): McpConnection {
    const connection = new McpConnection({ ...this._options, definition: def });
    const listeners = new DisposableStore();
    listeners.add(connection.onDidChange((s) => this._onDidChangeServer.fire(s)));
    listeners.add(connection.onDidLog((e) => this._onDidLog.fire(e)));
    listeners.add(connection.onDidUpdateResource((uri) => this._onDidUpdateResource.fire({ server: def.name, uri })));
    this._connections.set(def.name, { connection, fingerprint, listeners });
    return connection;
  }

  private async _retire(entry: { connection: McpConnection; listeners: DisposableStore }): Promise<void> {
    try {
      await entry.connection.stop();
    } finally {
      entry.listeners.dispose();
      entry.connection.dispose();
    }
  }

  private _require(name: string): McpConnection {
    const connection = this.get(name);
    if (!connection) throw new Error(`no MCP server named "${name}"`);
    return connection;
  }
}
