/**
 * Rule patterns over exposed tool names: `*` matches any run of characters (including none), every
 * other character matches itself. A pattern matches the whole name, case-sensitively.
 */
export function matchToolPattern(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`).test(name);
}

/** The first pattern of `patterns` that matches `name`, if any. */
export function findMatchingPattern(patterns: readonly string[] | undefined, name: string): string | undefined {
  return patterns?.find((p) => matchToolPattern(p, name));
}
