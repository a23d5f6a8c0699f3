import type { Tool } from '@modelcontextprotocol/client';
import { Emitter, Event } from '../base/event';
import { Disposable, IDisposable, toDisposable } from '../base/lifecycle';
import { ArgumentValidator } from './ArgumentValidator';
import { ILogger, nullLogger } from './ILogger';
import { McpToolNameTable } from './McpToolNameTable';
import { MAX_TOOL_NAME_LENGTH, MCP_TOOL_NAME_PREFIX } from './McpToolNaming';
import { pinTool } from './toolPin';
import type { BuiltinTool, HarnessTool, ToolIdentity } from './types';

/** What an exposed name stands for: a built-in tool, or an MCP tool with the object its server listed. */
export type ResolvedTool =
  | { readonly kind: 'builtin'; readonly tool: HarnessTool; readonly builtin: BuiltinTool }
  | { readonly kind: 'mcp'; readonly tool: HarnessTool; readonly listed: Tool };

/** Options of {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Receives warnings about tools a server described badly and schemas that do not compile. */
  readonly logger?: ILogger;
}

type JsonObject = Readonly<Record<string, unknown>>;

/** The key of a tool definition's `_meta` by which a server asks for a larger (or smaller) output cap. */
export const MAX_RESULT_SIZE_META = 'anthropic/maxResultSizeChars';

/** A server's tool as kept by the registry, after checking its shape. */
interface McpToolEntry {
  readonly listed: Tool;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: Tool['annotations'];
  readonly title?: string;
  readonly maxResultSizeChars?: number;
  /** JSON of everything a {@link HarnessTool} shows, to tell a real change from a re-listing. */
  readonly fingerprint: string | undefined;
  /** Last exposed form, reused while the name holds. */
  exposed?: HarnessTool;
}

interface ServerEntry {
  readonly tools: readonly McpToolEntry[];
  readonly byName: ReadonlyMap<string, McpToolEntry>;
}

/** A missing input schema means "an object, anything goes". */
const DEFAULT_INPUT_SCHEMA: JsonObject = Object.freeze({ type: 'object' });
const BUILTIN_NAME = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_TOOL_NAME_LENGTH}}$`);

/**
 * Every tool the harness can call, under one model-safe name each: built-in tools by their own
 * names, MCP tools as `mcp__<server>__<tool>` (see {@link McpToolNameTable}: a name, once given,
 * stays with its tool). Servers' tool lists are not trusted: badly shaped tools are skipped with a
 * warning.
 */
export class ToolRegistry extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when the exposed tools changed: added, removed or described differently. */
  readonly onDidChange: Event<void> = this._onDidChange.event;

  private readonly _logger: ILogger;
  private readonly _validator: ArgumentValidator;
  private readonly _builtins = new Map<string, { readonly builtin: BuiltinTool; readonly tool: HarnessTool }>();
  /** In the order servers were first added. */
  private readonly _servers = new Map<string, ServerEntry>();
  /** Listing position of each server, when the host has one (its configuration order). */
  private _serverOrder = new Map<string, number>();
  private readonly _names = new McpToolNameTable();
  private _list: readonly HarnessTool[] | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    super();
    this._logger = options.logger ?? nullLogger;
    this._validator = new ArgumentValidator(this._logger);
  }

  /**
   * Adds a built-in tool until the result is disposed.
   * @throws Error when the name is not `[A-Za-z0-9_-]{1,64}`, starts with `mcp__` (MCP tools'
   * namespace) or is already registered.
   */
  registerBuiltin(builtin: BuiltinTool): IDisposable {
    if (!BUILTIN_NAME.test(builtin.name)) throw new Error(`invalid built-in tool name "${builtin.name}"`);
    if (builtin.name.startsWith(MCP_TOOL_NAME_PREFIX)) throw new Error(`built-in tool name "${builtin.name}" is in the ${MCP_TOOL_NAME_PREFIX} namespace of MCP tools`);
    if (this._builtins.has(builtin.name)) throw new Error(`built-in tool "${builtin.name}" is already registered`);
    const fields = {
      name: builtin.name,
      description: builtin.description,
      inputSchema: builtin.inputSchema,
      ...(builtin.annotations ? { annotations: builtin.annotations } : {}),
      originalName: builtin.name,
    };
    const registration = { builtin, tool: { ...fields, pin: pinTool(fields).hash } };
    this._builtins.set(builtin.name, registration);
    this._changed();
    return toDisposable(() => {
      // Stryker disable next-line ConditionalExpression: a disposable runs once, and a name cannot be registered twice meanwhile
      if (this._builtins.get(builtin.name) !== registration) return;
      this._builtins.delete(builtin.name);
      this._changed();
    });
  }

  /** Replaces the tools of `server` with `tools` as the server listed them. */
  setServerTools(server: string, tools: readonly Tool[]): void {
    const previous = this._servers.get(server);
    const entries = this._readTools(server, tools, previous);
    this._servers.set(server, { tools: entries, byName: new Map(entries.map((e) => [e.name, e])) });
    if (previous && sameExposure(previous.tools, entries)) return;
    this._names.setServer(server, entries.map((e) => e.name));
    if (previous || entries.length > 0) this._changed();
  }

  /** Forgets the tools `server` lists (their names stay reserved for them). */
  removeServer(server: string): void {
    const previous = this._servers.get(server);
    if (!previous) return;
    this._servers.delete(server);
    this._names.removeServer(server);
    if (previous.tools.length > 0) this._changed();
  }

  /**
   * Lists servers' tools in this order (names not given come after, in the order first added),
   * so the tool list does not depend on which server happened to connect first.
   */
  setServerOrder(names: readonly string[]): void {
    const order = new Map(names.map((n, i) => [n, i]));
    if ([...order].every(([n, i]) => this._serverOrder.get(n) === i) && order.size === this._serverOrder.size) return;
    this._serverOrder = order;
    if (this._servers.size > 1) this._changed();
  }

  /** Every tool: built-ins first, then each server's (see {@link setServerOrder}). */
  getTools(): readonly HarnessTool[] {
    if (!this._list) {
      const list = [...this._builtins.values()].map((b) => b.tool);
      const rank = (name: string) => this._serverOrder.get(name) ?? Number.MAX_SAFE_INTEGER;
      const servers = [...this._servers].sort(([a], [b]) => rank(a) - rank(b));
      for (const [server, entry] of servers) {
        for (const tool of entry.tools) list.push(this._exposedOf(server, tool));
      }
      this._list = list;
    }
    return this._list;
  }

  /** The tool of that exposed name. */
  getTool(exposedName: string): HarnessTool | undefined {
    return this.resolve(exposedName)?.tool;
  }

  /** What a call to `exposedName` goes to now. */
  resolve(exposedName: string): ResolvedTool | undefined {
    const builtin = this._builtins.get(exposedName);
    if (builtin) return { kind: 'builtin', tool: builtin.tool, builtin: builtin.builtin };
    const ref = this._names.resolve(exposedName);
    // Stryker disable next-line OptionalChaining: the name table and the server map change together
    const entry = ref && this._servers.get(ref.server)?.byName.get(ref.tool);
    // Stryker disable next-line LogicalOperator: as above, so there is never a ref without an entry
    if (!ref || !entry) return undefined;
    return { kind: 'mcp', tool: this._exposedOf(ref.server, entry), listed: entry.listed };
  }

  /**
   * The tool with this identity, if it is offered now exactly as it was (same server, same name,
   * same pin): what a call that was decided on may go to, and nothing else.
   */
  resolveIdentity(identity: ToolIdentity): ResolvedTool | undefined {
    const resolved = this.find(identity.server, identity.originalName);
    return resolved?.tool.pin === identity.pin ? resolved : undefined;
  }

  /** A server's tool by its own name (a built-in when `server` is undefined), whatever its pin. */
  find(server: string | undefined, originalName: string): ResolvedTool | undefined {
    if (server === undefined) {
      const builtin = this._builtins.get(originalName);
      return builtin && { kind: 'builtin', tool: builtin.tool, builtin: builtin.builtin };
    }
    const entry = this._servers.get(server)?.byName.get(originalName);
    return entry && { kind: 'mcp', tool: this._exposedOf(server, entry), listed: entry.listed };
  }

  /** The server an exposed name was given to, listed now or not (to explain a call while it is down). */
  serverOfName(exposedName: string): string | undefined {
    return this._names.ownerOf(exposedName)?.server;
  }

  /**
   * Checks a call's arguments against the tool's input schema.
   * @returns `undefined` when they are acceptable, else a message for the model.
   */
  validateArguments(tool: HarnessTool, args: unknown): string | undefined {
    const origin = tool.server === undefined ? `built-in tool "${tool.originalName}"` : `tool "${tool.originalName}" of server "${tool.server}"`;
    return this._validator.validate({ exposedName: tool.name, origin }, tool.inputSchema, args);
  }

  private _changed(): void {
    this._list = undefined;
    this._onDidChange.fire();
  }

  private _exposedOf(server: string, entry: McpToolEntry): HarnessTool {
    const name = this._names.nameOf(server, entry.name)!;
    if (entry.exposed?.name !== name) {
      const fields = {
        name,
        description: entry.description,
        inputSchema: entry.inputSchema,
        ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
        ...(entry.annotations ? { annotations: entry.annotations } : {}),
        ...(entry.title !== undefined ? { title: entry.title } : {}),
        server,
        originalName: entry.name,
      };
      const hint = entry.maxResultSizeChars !== undefined ? { maxResultSizeChars: entry.maxResultSizeChars } : {};
      entry.exposed = { ...fields, pin: pinTool(fields).hash, ...hint };
    }
    return entry.exposed;
  }

  /** Checks each listed tool's shape, skipping (with a warning) what cannot be exposed. */
  private _readTools(server: string, tools: readonly Tool[], previous: ServerEntry | undefined): McpToolEntry[] {
    const listed: readonly unknown[] = Array.isArray(tools) ? tools : [];
    const entries: McpToolEntry[] = [];
    const seen = new Set<string>();
    for (const raw of listed) {
      const entry = readTool(raw);
      if (typeof entry === 'string') {
        this._logger.warn(`server "${server}": skipped a tool ${entry}`);
      } else if (seen.has(entry.name)) {
        this._logger.warn(`server "${server}": skipped a second tool named "${entry.name}"`);
      } else {
        seen.add(entry.name);
        entries.push(reuseUnchanged(entry, previous?.byName.get(entry.name)));
      }
    }
    return entries;
  }
}

/** Reads one listed tool, or says why it cannot be used. */
function readTool(raw: unknown): McpToolEntry | string {
  if (!isRecord(raw)) return 'that is not an object';
  const name = raw.name;
  if (typeof name !== 'string' || name === '') return 'without a name';
  if (raw.inputSchema !== undefined && !isRecord(raw.inputSchema)) return `"${name}": its inputSchema is not an object`;
  const inputSchema = raw.inputSchema ?? DEFAULT_INPUT_SCHEMA;
  const description = typeof raw.description === 'string' ? raw.description : '';
  const title = typeof raw.title === 'string' ? raw.title : undefined;
  const outputSchema = isRecord(raw.outputSchema) ? raw.outputSchema : undefined;
  const annotations = isRecord(raw.annotations) ? (raw.annotations as Tool['annotations']) : undefined;
  const hint = isRecord(raw._meta) ? raw._meta[MAX_RESULT_SIZE_META] : undefined;
  const maxResultSizeChars = typeof hint === 'number' && Number.isSafeInteger(hint) && hint > 0 ? hint : undefined;
  return {
    listed: raw as Tool,
    name,
    description,
    inputSchema,
    outputSchema,
    annotations,
    title,
    ...(maxResultSizeChars !== undefined ? { maxResultSizeChars } : {}),
    fingerprint: fingerprintOf([name, title, description, inputSchema, outputSchema, annotations, maxResultSizeChars]),
  };
}

/**
 * Keeps the previous entry's schema objects when nothing visible changed, so compiled validators
 * (cached per schema object) survive a server re-listing the same tools.
 */
function reuseUnchanged(entry: McpToolEntry, previous: McpToolEntry | undefined): McpToolEntry {
  if (!previous || entry.fingerprint === undefined || entry.fingerprint !== previous.fingerprint) return entry;
  return { ...previous, listed: entry.listed };
}

function sameExposure(a: readonly McpToolEntry[], b: readonly McpToolEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((entry, i) => entry.fingerprint !== undefined && entry.fingerprint === b[i].fingerprint)
  );
}

function fingerprintOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    // A cycle or a BigInt: such a tool counts as changed on every listing.
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
