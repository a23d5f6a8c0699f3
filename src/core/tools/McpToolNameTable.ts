import { assignSuffixedNames, compareToolRefs, mcpToolCandidateName, McpToolRef } from './McpToolNaming';

/**
 * The table from exposed name to MCP tool, kept up to date one server at a time.
 *
 * It always holds exactly what `computeMcpToolNames` would compute from the same built-in
 * names and refs, but an update costs time in proportion to the server's tools and the few names
 * that collide, not to every tool of every server.
 *
 * Route calls with {@link resolve}; never split an exposed name on `__`, since server and tool
 * names may contain it.
 */
export class McpToolNameTable {
  private readonly _builtins = new Set<string>();
  /** Candidate name -> refs that want it. */
  private readonly _groups = new Map<string, McpToolRef[]>();
  /** Server -> tool -> candidate name. */
  private readonly _candidates = new Map<string, Map<string, string>>();
  /** Candidates wanted by more than one ref, or owned by a built-in. */
  private readonly _contested = new Set<string>();
  /** Exposed name -> ref. */
  private readonly _byName = new Map<string, McpToolRef>();
  /** Server -> tool -> exposed name. */
  private readonly _names = new Map<string, Map<string, string>>();
  /** Refs that currently hold a suffixed name. */
  // Stryker disable next-line ArrayDeclaration: a bogus entry unassigns nothing
  private _losers: McpToolRef[] = [];
  /** Every name the losers tried when last settled: taken ones and their own. */
  private _triedByLosers = new Set<string>();

  /** Number of MCP tools in the table. */
  get size(): number {
    return this._byName.size;
  }

  /** Reserves a built-in tool's name; an MCP tool holding it moves to a suffixed name. */
  addBuiltin(name: string): void {
    // Stryker disable next-line ConditionalExpression: re-settling for a name already reserved changes nothing
    if (this._builtins.has(name)) return;
    this._builtins.add(name);
    this._update(new Set([name]));
  }

  /** Releases a built-in tool's name. */
  removeBuiltin(name: string): void {
    if (!this._builtins.delete(name)) return;
    this._update(new Set([name]));
  }

  /** Replaces the tools of `server` (by their original names; duplicates count once). */
  setServer(server: string, tools: Iterable<string>): void {
    const dirty = this._forgetServer(server);
    const candidates = new Map<string, string>();
    for (const tool of tools) {
      if (candidates.has(tool)) continue;
      const ref: McpToolRef = { server, tool };
      const candidate = mcpToolCandidateName(ref);
      candidates.set(tool, candidate);
      const group = this._groups.get(candidate);
      if (group) group.push(ref);
      else this._groups.set(candidate, [ref]);
      dirty.add(candidate);
    }
    // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty map and none forget the same nothing
    if (candidates.size > 0) this._candidates.set(server, candidates);
    this._update(dirty);
  }

  /** Forgets every tool of `server`. */
  removeServer(server: string): void {
    this._update(this._forgetServer(server));
  }

  /** The MCP tool an exposed name routes to. */
  resolve(exposedName: string): McpToolRef | undefined {
    return this._byName.get(exposedName);
  }

  /** The exposed name of a server's tool, given its original name. */
  nameOf(server: string, tool: string): string | undefined {
    return this._names.get(server)?.get(tool);
  }

  /** Every exposed name with the tool it routes to, in no particular order. */
  entries(): IterableIterator<[string, McpToolRef]> {
    return this._byName.entries();
  }

  /** Takes the server's refs out of their groups; returns the groups they left. */
  private _forgetServer(server: string): Set<string> {
    const dirty = new Set<string>();
    const candidates = this._candidates.get(server);
    if (!candidates) return dirty;
    // Stryker disable next-line BlockStatement,CallExpression: a stale entry would only re-settle empty groups
    this._candidates.delete(server);
    for (const [tool, candidate] of candidates) {
      const group = this._groups.get(candidate);
      // Stryker disable next-line all: a known candidate's group always exists and holds the ref
      const i = group ? group.findIndex((r) => r.server === server && r.tool === tool) : -1;
      // Stryker disable next-line all: as above
      if (group && i >= 0) group.splice(i, 1);
      dirty.add(candidate);
    }
    return dirty;
  }

  /**
   * Re-settles the groups in `dirty` (candidate names, or built-in names that came or went), then
   * the suffixed names if the change can reach them: a dirty group that has losers before or
   * after, or a dirty name that a loser tried. Otherwise every loser would get the same name again.
   */
  private _update(dirty: Set<string>): void {
    const touchesLosers = (): boolean =>
      // Stryker disable next-line ConditionalExpression: settling the losers more often only costs time
      [...dirty].some((candidate) => this._contested.has(candidate) || this._triedByLosers.has(candidate));
    const resettle = touchesLosers();
    if (resettle) this._unassignLosers();
    for (const candidate of dirty) {
      // Losers aside, whoever holds a candidate name is that group's previous winner.
      const holder = this._byName.get(candidate);
      if (holder) this._unassign(holder);
      this._settleGroup(candidate);
    }
    if (resettle) {
      this._settleLosers();
      return;
    }
    // Stryker disable next-line ConditionalExpression: as above
    if (touchesLosers()) {
      this._unassignLosers();
      this._settleLosers();
    }
  }

  private _unassignLosers(): void {
    for (const ref of this._losers) this._unassign(ref);
    // Stryker disable next-line ArrayDeclaration: a bogus entry unassigns nothing
    this._losers = [];
  }

  private _settleLosers(): void {
    const losers: McpToolRef[] = [];
    for (const candidate of this._contested) {
      // Stryker disable next-line ArrayDeclaration: a contested name always has a group
      const group = this._groups.get(candidate) ?? [];
      losers.push(...(this._builtins.has(candidate) ? group : group.slice(1)));
    }
    const tried = new Set<string>();
    assignSuffixedNames(
      losers,
      (name) => {
        tried.add(name);
        return this._builtins.has(name) || this._byName.has(name);
      },
      (ref, name) => {
        this._assign(ref, name);
        this._losers.push(ref);
      },
    );
    this._triedByLosers = tried;
  }

  private _settleGroup(candidate: string): void {
    const group = this._groups.get(candidate);
    if (!group || group.length === 0) {
      // Stryker disable next-line CallExpression: frees memory; an empty group settles to nothing
      this._groups.delete(candidate);
      // Stryker disable next-line CallExpression: a contested name without a group yields no loser
      this._contested.delete(candidate);
      return;
    }
    group.sort(compareToolRefs);
    const ownedByBuiltin = this._builtins.has(candidate);
    if (!ownedByBuiltin) this._assign(group[0], candidate);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a needlessly contested name only costs a re-settle
    if (ownedByBuiltin || group.length > 1) this._contested.add(candidate);
    // Stryker disable next-line CallExpression: as above
    else this._contested.delete(candidate);
  }

  private _assign(ref: McpToolRef, name: string): void {
    this._byName.set(name, ref);
    let names = this._names.get(ref.server);
    if (!names) this._names.set(ref.server, (names = new Map()));
    names.set(ref.tool, name);
  }

  private _unassign(ref: McpToolRef): void {
    const names = this._names.get(ref.server);
    // Stryker disable next-line OptionalChaining: only assigned refs are unassigned, so the map exists
    const name = names?.get(ref.tool);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a guard; callers pass only the current holder of a name
    if (name === undefined || this._byName.get(name) !== ref) return;
    this._byName.delete(name);
    names!.delete(ref.tool);
    // Stryker disable next-line ConditionalExpression,CallExpression: frees an empty map, which answers like none
    if (names!.size === 0) this._names.delete(ref.server);
  }
}
