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
  if (Array.isArray(value)) {
    return value.map(sortKeys);
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
  }
  return value;
}
