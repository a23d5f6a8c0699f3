import { matchWildcard } from '../base/matchWildcard';

/**
 * Rule patterns over exposed tool names: `*` matches any run of characters (including none), every
 * other character matches itself. A pattern matches the whole name, case-sensitively, in time
 * linear in both (patterns may come from a workspace's settings).
 */
export function matchToolPattern(pattern: string, name: string): boolean {
  return matchWildcard(pattern, name);
}

/** The first pattern of `patterns` that matches `name`, if any. */
export function findMatchingPattern(patterns: readonly string[] | undefined, name: string): string | undefined {
  return patterns?.find((p) => matchToolPattern(p, name));
}
