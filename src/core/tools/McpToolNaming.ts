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
