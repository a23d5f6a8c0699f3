import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable, DisposableStore, discoveryLocations, isHarnessGateway, type McpDiscoveryOptions, type McpProvidedServers } from '../core';
import { SETTINGS_SECTION } from './ConfigFiles';
import { errorMessage } from '../core/base/errors';

/** The setting that keeps other agents' servers loaded live instead of imported. */
export const DISCOVER_SETTING = 'discoverServers';

/**
 * A server definition as VS Code's `McpServerDefinitionProvider` gives it: stdio (`command`) or
 * HTTP (`uri`). Plain objects of the same shape are accepted too.
 */
export interface McpProvidedDefinition {
  readonly label: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string | number | null>>;
  readonly cwd?: vscode.Uri | string;
  readonly uri?: vscode.Uri | string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly version?: string;
}

/** What another extension registers with {@link ServerDiscovery.registerProvider}: VS Code's provider shape. */
export interface McpServerProvider {
  readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): vscode.ProviderResult<readonly McpProvidedDefinition[]>;
}

/** The part of VS Code's MCP API read here (feature-detected: older hosts and @types/vscode lack it). */
interface VscodeMcpList {
  readonly lm?: { readonly mcpServerDefinitions?: readonly McpProvidedDefinition[]; readonly onDidChangeMcpServerDefinitions?: vscode.Event<void> };
}

/** Label of the servers VS Code itself lists (its own configuration and its extensions' providers). */
export const VSCODE_LIST_LABEL = 'VS Code MCP servers';

/**
 * Servers from outside our own files: VS Code's user `mcp.json` of the current profile, VS Code's
 * list of servers (`vscode.lm.mcpServerDefinitions`, where the host has it), servers other
 * extensions register with us, and, with the `mcpHarness.discoverServers` setting, other agents'
 * files. `onDidChange` asks for a reload; the harness reads them through {@link hostOptions}.
 */
export class ServerDiscovery extends Disposable {
  private readonly _onDidChange = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this._onDidChange.event;
  private readonly _providers = new Map<string, { provider: McpServerProvider; servers: Record<string, unknown> }>();
  private readonly _watchers = this._register(new DisposableStore());

  constructor(
    private readonly _context: Pick<vscode.ExtensionContext, 'globalStorageUri' | 'extensionPath'>,
    private readonly _log: (message: string) => void,
  ) {
    super();
    const list = (vscode as unknown as VscodeMcpList).lm;
    if (typeof list?.onDidChangeMcpServerDefinitions === 'function') this._register(list.onDidChangeMcpServerDefinitions(() => this._onDidChange.fire()));
    this._watchFiles();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SETTINGS_SECTION}.${DISCOVER_SETTING}`)) this._watchFiles();
      }),
    );
  }

  /** Watches the files that are read live: the profile's `mcp.json`, and other agents' with the setting. */
  private _watchFiles(): void {
    this._watchers.clear();
    for (const location of discoveryLocations(this.discoveryOptions())) {
      const pattern = new vscode.RelativePattern(vscode.Uri.file(path.dirname(location.file)), path.basename(location.file));
      const watcher = this._watchers.add(vscode.workspace.createFileSystemWatcher(pattern));
      for (const e of [watcher.onDidCreate, watcher.onDidChange, watcher.onDidDelete]) this._watchers.add(e(() => this._onDidChange.fire()));
    }
  }

  /**
   * The current profile's `User` folder, where VS Code keeps its user `mcp.json`: the extension's
   * global storage lives at `<User>/globalStorage/<extension>` (for a profile, `<User>/profiles/<id>/...`).
   */
  profileUserFolder(): string | undefined {
    const storage = this._context.globalStorageUri;
    if (storage.scheme !== 'file') return undefined;
    const parent = path.dirname(storage.fsPath);
    return path.basename(parent) === 'globalStorage' ? path.dirname(parent) : undefined;
  }

  /** Whether other agents' files are read live (the setting), not only offered for import. */
  get live(): boolean {
    return vscode.workspace.getConfiguration(SETTINGS_SECTION).get<boolean>(DISCOVER_SETTING, false);
  }

  /** Where to discover: the profile's `mcp.json` always; other agents' files when live. */
  discoveryOptions(all = this.live): McpDiscoveryOptions {
    const folder = this.profileUserFolder();
    return { vscodeUserFolder: folder ?? false, sources: all ? undefined : folder ? ['vscode-user'] : [] };
  }

  /** The harness options this adds: provided servers and what to discover. */
  hostOptions(): { providedServers: McpProvidedServers[]; discover: McpDiscoveryOptions } {
    const provided: McpProvidedServers[] = [...this._providers].map(([id, p]) => ({ source: 'extension', label: `extension ${id}`, jsonPath: id, entries: p.servers }));
    const list = this._vscodeList();
    if (Object.keys(list).length) provided.push({ source: 'extension', label: VSCODE_LIST_LABEL, jsonPath: 'vscode.lm.mcpServerDefinitions', entries: list, supplementary: true });
    return { providedServers: provided, discover: this.discoveryOptions() };
  }

  /**
   * Registers servers another extension provides, shown as `<id>:<label>`. They start only after
   * the same approval as a workspace's servers. The provider's change event updates them.
   */
  registerProvider(id: string, provider: McpServerProvider): vscode.Disposable {
    if (typeof id !== 'string' || id.trim() === '') throw new Error('registerServerProvider: id must be a non-empty string');
    if (this._providers.has(id)) throw new Error(`registerServerProvider: a provider "${id}" is registered already`);
    if (typeof provider?.provideMcpServerDefinitions !== 'function') throw new Error('registerServerProvider: provider needs provideMcpServerDefinitions()');
    const entry = { provider, servers: {} as Record<string, unknown> };
    this._providers.set(id, entry);
    const subscription = provider.onDidChangeMcpServerDefinitions?.(() => void this._refresh(id));
    void this._refresh(id);
    return new vscode.Disposable(() => {
      subscription?.dispose();
      if (this._providers.get(id) === entry) {
        this._providers.delete(id);
        this._onDidChange.fire();
      }
    });
  }

  private async _refresh(id: string): Promise<void> {
    const entry = this._providers.get(id);
    if (!entry) return;
    const source = new vscode.CancellationTokenSource();
    try {
      const defs = (await entry.provider.provideMcpServerDefinitions(source.token)) ?? [];
      if (this._providers.get(id) !== entry) return;
      entry.servers = Object.fromEntries(defs.map((d) => [`${id}:${d.label}`, toEntry(d)]));
      this._onDidChange.fire();
    } catch (err) {
      this._log(`server provider ${id} failed: ${errorMessage(err)}`);
    } finally {
      source.dispose();
    }
  }

  /** VS Code's own list, without the gateway this extension offers it (no loop). */
  private _vscodeList(): Record<string, unknown> {
    const defs = (vscode as unknown as VscodeMcpList).lm?.mcpServerDefinitions;
    if (!Array.isArray(defs)) return {};
    const ours = (d: McpProvidedDefinition) =>
      isHarnessGateway({ command: d.command, args: d.args ?? [] }) || [d.command ?? '', ...(d.args ?? [])].some((part) => typeof part === 'string' && part.startsWith(this._context.extensionPath));
    return Object.fromEntries(defs.filter((d) => !ours(d)).map((d) => [d.label, toEntry(d)]));
  }
}

/** A provided definition as a config entry, validated like any other. */
function toEntry(d: McpProvidedDefinition): Record<string, unknown> {
  if (d.uri !== undefined) return { type: 'http', url: String(d.uri), ...(d.headers ? { headers: { ...d.headers } } : {}) };
  const env = Object.fromEntries(Object.entries(d.env ?? {}).filter(([, v]) => v !== null).map(([k, v]) => [k, String(v)]));
  const cwd = d.cwd === undefined ? undefined : typeof d.cwd === 'string' ? d.cwd : d.cwd.fsPath;
  return { command: d.command, args: [...(d.args ?? [])], ...(Object.keys(env).length ? { env } : {}), ...(cwd ? { cwd } : {}) };
}
