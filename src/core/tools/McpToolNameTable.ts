import { compareToolRefs, mcpToolCandidateName, type McpToolRef } from './McpToolNaming';

/** Reserved names a server may hold beyond those it lists now, before its oldest ones are released. */
export const MAX_RESERVED_PER_SERVER = 10_000;

/**
 * The table from exposed name to MCP tool. An exposed name, once given to a server's tool, stays
 * with that tool for the life of the table, listed or not: a server that appears later, or a tool
 * listed later, never takes it and gets the next free `_2`, `_3`, ... variant instead. So a name a
 * person approved, a rule or a model's earlier call can never move to another server's tool.
 * Tools that arrive in one listing are named in `compareToolRefs` order.
 *
 * Route calls with {@link resolve}; never split an exposed name on `__`, since server and tool
 * names may contain it.
 */
export class McpToolNameTable {
  /** Exposed name -> the tool it belongs to, forever (see {@link MAX_RESERVED_PER_SERVER}). */
  private readonly _owner = new Map<string, McpToolRef>();
  /** Server -> tool -> its exposed name, in the order the names were given. */
  private readonly _names = new Map<string, Map<string, string>>();
  /** Server -> the tools it lists now. */
  private readonly _listed = new Map<string, ReadonlySet<string>>();
  private _size = 0;

  /** Number of MCP tools listed now. */
  get size(): number {
    return this._size;
  }

  /** Replaces the tools `server` lists now (by their original names; duplicates count once). */
  setServer(server: string, tools: Iterable<string>): void {
    const listed = new Set(tools);
    this._size += listed.size - (this._listed.get(server)?.size ?? 0);
    if (listed.size > 0) this._listed.set(server, listed);
    else this._listed.delete(server);
    const names = this._namesOf(server);
    const fresh = [...listed].filter((tool) => !names.has(tool)).map((tool) => ({ server, tool }));
    for (const ref of fresh.sort(compareToolRefs)) this._reserve(ref, names);
    this._release(server, names, listed);
  }

  /** The server lists nothing now; the names of its tools stay reserved for them. */
  removeServer(server: string): void {
    this.setServer(server, []);
  }

  /** The listed MCP tool an exposed name routes to. */
  resolve(exposedName: string): McpToolRef | undefined {
    const ref = this._owner.get(exposedName);
    return ref && this._listed.get(ref.server)?.has(ref.tool) ? ref : undefined;
  }

  /** The tool an exposed name was given to, listed now or not (to explain a call to a server that is down). */
  ownerOf(exposedName: string): McpToolRef | undefined {
    return this._owner.get(exposedName);
  }

  /** The exposed name of a server's tool, given its original name, once it has been listed. */
  nameOf(server: string, tool: string): string | undefined {
    return this._names.get(server)?.get(tool);
  }

  /** Every listed tool's exposed name with the tool it routes to, in no particular order. */
  *entries(): IterableIterator<[string, McpToolRef]> {
    for (const [server, tools] of this._listed) {
      const names = this._names.get(server)!;
      for (const tool of tools) yield [names.get(tool)!, { server, tool }];
    }
  }

  private _namesOf(server: string): Map<string, string> {
    let names = this._names.get(server);
    if (!names) this._names.set(server, (names = new Map()));
    return names;
  }

  /** Gives `ref` the first of its candidate names no other tool holds. */
  private _reserve(ref: McpToolRef, names: Map<string, string>): void {
    let n = 1;
    let name = mcpToolCandidateName(ref);
    while (this._owner.has(name)) name = mcpToolCandidateName(ref, ++n);
    this._owner.set(name, ref);
    names.set(ref.tool, name);
  }

  /**
   * A server that keeps listing new tools could make the table grow without bound: past the cap,
   * its oldest names that it no longer lists are released (only its own; never another server's).
   */
  private _release(server: string, names: Map<string, string>, listed: ReadonlySet<string>): void {
    if (names.size <= MAX_RESERVED_PER_SERVER + listed.size) return;
    let excess = names.size - MAX_RESERVED_PER_SERVER - listed.size;
    for (const [tool, name] of names) {
      if (excess <= 0) break;
      if (listed.has(tool)) continue;
      names.delete(tool);
      this._owner.delete(name);
      excess--;
    }
    if (names.size === 0) this._names.delete(server);
  }
}
