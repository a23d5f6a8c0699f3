import { createHash } from 'node:crypto';

/** Longest name a model provider accepts for a tool. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Prefix of every exposed MCP tool name: `mcp__<server>__<tool>`. */
export const MCP_TOOL_NAME_PREFIX = 'mcp__';

/** A tool as its server knows it: the pair an exposed name routes back to. */
export interface McpToolRef {
  readonly server: string;
  readonly tool: string;
}

const HASH_LENGTH = 6;
const UNSAFE_CHARS = /[^A-Za-z0-9_-]/gu;

/** Replaces every character outside `[A-Za-z0-9_-]` (a whole code point, not a code unit) with `_`. */
export function sanitizeToolNamePart(part: string): string {
  return part.replace(UNSAFE_CHARS, '_');
}

/**
 * Orders refs by server, then tool, comparing UTF-16 code units so that the result never depends
 * on the locale.
 */
export function compareToolRefs(a: McpToolRef, b: McpToolRef): number {
  // Stryker disable next-line EqualityOperator: `<` and `<=` agree on values known to differ
  if (a.server !== b.server) return a.server < b.server ? -1 : 1;
  // Stryker disable next-line EqualityOperator: as above
  if (a.tool !== b.tool) return a.tool < b.tool ? -1 : 1;
  return 0;
}

/**
 * The exposed name of `ref` before collisions are settled, or its `n`-th variant (`n >= 2`) when
 * that name is taken. Names longer than {@link MAX_TOOL_NAME_LENGTH} are shortened and given a
 * hash of the full, unsanitized pair, so the same pair always gets the same name.
 */
export function mcpToolCandidateName(ref: McpToolRef, n = 1): string {
  return capName(uncappedName(ref), ref, n);
}

function uncappedName(ref: McpToolRef): string {
  return `${MCP_TOOL_NAME_PREFIX}${sanitizeToolNamePart(ref.server)}__${sanitizeToolNamePart(ref.tool)}`;
}

function capName(full: string, ref: McpToolRef, n: number): string {
  const suffix = n > 1 ? `_${n}` : '';
  if (full.length + suffix.length <= MAX_TOOL_NAME_LENGTH) return full + suffix;
  const hash = `_${hashToolRef(ref)}`;
  return full.slice(0, MAX_TOOL_NAME_LENGTH - hash.length - suffix.length) + hash + suffix;
}

function hashToolRef(ref: McpToolRef): string {
  // JSON keeps the pair unambiguous: ("a_", "b") and ("a", "_b") hash differently.
  return createHash('sha256').update(JSON.stringify([ref.server, ref.tool])).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * Settles the names of the refs that lost their candidate name: each, in {@link compareToolRefs}
 * order, takes the first free `_2`, `_3`, ... variant. `isTaken` must report built-in names and
 * every name assigned so far; `assign` is called once per loser and must make its name taken.
 */
export function assignSuffixedNames(
  losers: McpToolRef[],
  isTaken: (name: string) => boolean,
  assign: (ref: McpToolRef, name: string) => void,
): void {
  // Stryker disable next-line CallExpression,MethodExpression: callers pass each name's losers sorted, and losers of different names never compete for a variant; sorting here keeps that a local guarantee
  losers.sort(compareToolRefs);
  // Unhashed variants depend only on the uncapped name, so refs sharing it resume where the
  // previous one stopped: a hundred losers of one name cost a hundred tries, not five thousand.
  // Stryker disable all: the resume point only saves tries; starting lower finds the same free name
  const lastUnhashed = new Map<string, number>();
  for (const ref of losers) {
    const full = uncappedName(ref);
    let n = (lastUnhashed.get(full) ?? 1) + 1;
    // Stryker restore all
    let name = capName(full, ref, n);
    while (isTaken(name)) name = capName(full, ref, ++n);
    // Stryker disable next-line all: as above
    if (full.length + `_${n}`.length <= MAX_TOOL_NAME_LENGTH) lastUnhashed.set(full, n);
    assign(ref, name);
  }
}

/**
 * Computes the whole table from exposed name to the MCP tool it routes to. The result depends only
 * on the inputs as sets, never on their order:
 * 1. every ref gets its candidate name ({@link mcpToolCandidateName});
 * 2. a candidate shared by several refs goes to the first of them in {@link compareToolRefs}
 *    order, unless a built-in has that name (built-ins always win);
 * 3. the others get the first free `_2`, `_3`, ... variant, again in that order.
 *
 * Duplicate refs are counted once.
 */
export function computeMcpToolNames(
  builtinNames: Iterable<string>,
  refs: Iterable<McpToolRef>,
): Map<string, McpToolRef> {
  const builtins = new Set(builtinNames);
  const groups = new Map<string, McpToolRef[]>();
  const seen = new Set<string>();
  for (const ref of refs) {
    const key = JSON.stringify([ref.server, ref.tool]);
    if (seen.has(key)) continue;
    seen.add(key);
    const candidate = mcpToolCandidateName(ref);
    const group = groups.get(candidate);
    if (group) group.push({ server: ref.server, tool: ref.tool });
    else groups.set(candidate, [{ server: ref.server, tool: ref.tool }]);
  }

  const table = new Map<string, McpToolRef>();
  const losers: McpToolRef[] = [];
  for (const [candidate, group] of groups) {
    group.sort(compareToolRefs);
    // A built-in owning the candidate leaves no winner in the group.
    const winners = builtins.has(candidate) ? 0 : 1;
    if (winners === 1) table.set(candidate, group[0]);
    losers.push(...group.slice(winners));
  }
  assignSuffixedNames(
    losers,
    (name) => builtins.has(name) || table.has(name),
    (ref, name) => table.set(name, ref),
  );
  return table;
}
