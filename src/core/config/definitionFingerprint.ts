import type { McpServerDefinition } from './types';

/**
 * A stable string of every field that affects how a server runs (everything but `origin`), with
 * object keys sorted. Equal fingerprints mean a running server need not restart after a reload.
 */
export function definitionFingerprint(def: McpServerDefinition): string {
  const { origin: _origin, ...rest } = def;
  return JSON.stringify(sortKeys(rest));
}

function sortKeys(value: unknown): unknown {
  // Stryker disable next-line ConditionalExpression,BlockStatement: an array sorted as an object of indexes compares the same
  if (Array.isArray(value)) {
    return value.map(sortKeys);
  }
  // Stryker disable next-line ConditionalExpression: definitions hold no null
  if (typeof value === 'object' && value !== null) {
    // Undefined members need no filtering: JSON leaves them out.
    const entries = Object.entries(value);
    // Stryker disable next-line EqualityOperator,ConditionalExpression: keys of one object are distinct, and sorting needs only `<`
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
