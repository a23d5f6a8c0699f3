import type { Tool } from '@modelcontextprotocol/client';
import { Emitter, Event } from '../base/event';
import { Disposable, IDisposable, toDisposable } from '../base/lifecycle';
import { ArgumentValidator } from './ArgumentValidator';
import { ILogger, nullLogger } from './ILogger';
import { McpToolNameTable } from './McpToolNameTable';
import { MAX_TOOL_NAME_LENGTH } from './McpToolNaming';
import type { BuiltinTool, ExposedTool } from './types';

/** What an exposed name stands for: a built-in tool, or an MCP tool with its original object. */
export type ResolvedTool =
  | { readonly kind: 'builtin'; readonly exposed: ExposedTool; readonly tool: BuiltinTool }
  | { readonly kind: 'mcp'; readonly exposed: ExposedTool; readonly server: string; readonly tool: Tool };

/** Options of {@link ToolRegistry}. */
export interface ToolRegistryOptions {
  /** Receives warnings about tools a server described badly and schemas that do not compile. */
  readonly logger?: ILogger;
}

type JsonObject = Readonly<Record<string, unknown>>;

/** A server's tool as kept by the registry, after checking its shape. */
interface McpToolEntry {
  readonly tool: Tool;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations?: Tool['annotations'];
  readonly title?: string;
  /** JSON of everything an {@link ExposedTool} shows, to tell a real change from a re-listing. */
  readonly fingerprint: string | undefined;
  /** Last exposed form, reused while the name holds. */
  exposed?: ExposedTool;
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
 * names, MCP tools as `mcp__<server>__<tool>` (see {@link McpToolNameTable}). A built-in name
 * always wins a clash. Servers' tool lists are not trusted: badly shaped tools are skipped with a
 * warning.
 */
export class ToolRegistry extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires when the exposed tools changed: added, removed, renamed or described differently. */
  readonly onDidChange: Event<void> = this._onDidChange.event;

  private readonly _logger: ILogger;
  private readonly _validator: ArgumentValidator;
  private readonly _builtins = new Map<string, { readonly tool: BuiltinTool; readonly exposed: ExposedTool }>();
  /** In the order servers were first added. */
  private readonly _servers = new Map<string, ServerEntry>();
  /** Listing position of each server, when the host has one (its configuration order). */
  private _serverOrder = new Map<string, number>();
  private readonly _names = new McpToolNameTable();
  private _list: readonly ExposedTool[] | undefined;

  constructor(options: ToolRegistryOptions = {}) {
    super();
    this._logger = options.logger ?? nullLogger;
    this._validator = new ArgumentValidator(this._logger);
  }

  /**
   * Adds a built-in tool until the result is disposed. An MCP tool that held the name moves to a
   * suffixed name.
   * @throws Error when the name is not `[A-Za-z0-9_-]{1,64}` or is already registered.
   */
  registerBuiltin(tool: BuiltinTool): IDisposable {
    if (!BUILTIN_NAME.test(tool.name)) throw new Error(`invalid built-in tool name "${tool.name}"`);
    if (this._builtins.has(tool.name)) throw new Error(`built-in tool "${tool.name}" is already registered`);
    const exposed: ExposedTool = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.annotations ? { annotations: tool.annotations } : {}),
      source: { kind: 'builtin' },
    };
    const registration = { tool, exposed };
    this._builtins.set(tool.name, registration);
    this._names.addBuiltin(tool.name);
    this._changed();
    return toDisposable(() => {
      // Stryker disable next-line ConditionalExpression: a disposable runs once, and a name cannot be registered twice meanwhile
      if (this._builtins.get(tool.name) !== registration) return;
      this._builtins.delete(tool.name);
      this._names.removeBuiltin(tool.name);
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

  /** Forgets `server` and its tools. */
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

  /** Every exposed tool: built-ins first, then each server's (see {@link setServerOrder}). */
  getTools(): readonly ExposedTool[] {
    if (!this._list) {
      const list = [...this._builtins.values()].map((b) => b.exposed);
      const rank = (name: string) => this._serverOrder.get(name) ?? Number.MAX_SAFE_INTEGER;
      const servers = [...this._servers].sort(([a], [b]) => rank(a) - rank(b));
      for (const [server, entry] of servers) {
        for (const tool of entry.tools) list.push(this._exposedOf(server, tool));
      }
      this._list = list;
    }
    return this._list;
  }

  /** The exposed tool of that name. */
  getTool(exposedName: string): ExposedTool | undefined {
    return this.resolve(exposedName)?.exposed;
  }

  /** What a call to `exposedName` goes to; for MCP tools, the original tool (call it by its own name). */
  resolve(exposedName: string): ResolvedTool | undefined {
    const builtin = this._builtins.get(exposedName);
    if (builtin) return { kind: 'builtin', exposed: builtin.exposed, tool: builtin.tool };
    const ref = this._names.resolve(exposedName);
    // Stryker disable next-line OptionalChaining: the name table and the server map change together
    const entry = ref && this._servers.get(ref.server)?.byName.get(ref.tool);
    // Stryker disable next-line LogicalOperator: as above, so there is never a ref without an entry
    if (!ref || !entry) return undefined;
    return { kind: 'mcp', exposed: this._exposedOf(ref.server, entry), server: ref.server, tool: entry.tool };
  }

  /**
   * Checks a call's arguments against the tool's input schema.
   * @returns `undefined` when they are acceptable, else a message for the model.
   */
  validateArguments(exposedName: string, args: unknown): string | undefined {
    const resolved = this.resolve(exposedName);
    if (!resolved) return `unknown tool "${exposedName}"`;
    const origin =
      resolved.kind === 'builtin'
        ? `built-in tool "${resolved.tool.name}"`
        : `tool "${resolved.tool.name}" of server "${resolved.server}"`;
    return this._validator.validate({ exposedName, origin }, resolved.exposed.inputSchema, args);
  }

  private _changed(): void {
    this._list = undefined;
    this._onDidChange.fire();
  }

  private _exposedOf(server: string, entry: McpToolEntry): ExposedTool {
    const name = this._names.nameOf(server, entry.name)!;
    if (entry.exposed?.name !== name) {
      entry.exposed = {
        name,
        description: entry.description,
        inputSchema: entry.inputSchema,
        ...(entry.outputSchema ? { outputSchema: entry.outputSchema } : {}),
        ...(entry.annotations ? { annotations: entry.annotations } : {}),
        ...(entry.title !== undefined ? { title: entry.title } : {}),
        source: { kind: 'mcp', server, tool: entry.name },
      };
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
  return {
    tool: raw as Tool,
    name,
    description,
    inputSchema,
    outputSchema,
    annotations,
    title,
    fingerprint: fingerprintOf([name, title, description, inputSchema, outputSchema, annotations]),
  };
}

/**
 * Keeps the previous entry's schema objects when nothing visible changed, so compiled validators
 * (cached per schema object) survive a server re-listing the same tools.
 */
function reuseUnchanged(entry: McpToolEntry, previous: McpToolEntry | undefined): McpToolEntry {
  if (!previous || entry.fingerprint === undefined || entry.fingerprint !== previous.fingerprint) return entry;
  return { ...previous, tool: entry.tool };
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
