/** One step of a JSON path: an object key or an array index. */
export type JsonPathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Appends segments to a dotted JSON path: identifiers join with dots, other keys use brackets and
 * quotes, indexes use brackets. `appendJsonPath('servers', 'my server', 'args', 1)` is
 * `servers["my server"].args[1]`.
 */
export function appendJsonPath(prefix: string, ...segments: readonly JsonPathSegment[]): string {
  let result = prefix;
  for (const segment of segments) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a number is no identifier, so the quoted form is the same `[1]`
    if (typeof segment === 'number') {
      result += `[${segment}]`;
    } else if (IDENTIFIER.test(segment)) {
      result += result === '' ? segment : `.${segment}`;
    } else {
      result += `[${JSON.stringify(segment)}]`;
    }
  }
  return result;
}

/** Formats segments as a dotted JSON path, e.g. `mcpServers.github.args[1]`. */
export function formatJsonPath(segments: readonly JsonPathSegment[]): string {
  return appendJsonPath('', ...segments);
}
