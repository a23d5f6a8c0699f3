import { isJsonObject, kindOf } from './configSchema';
import { McpParseScope, scopeError } from './parseScope';
import { parseServerEntry } from './parseServerEntry';
import type { McpConfigError, McpServerDefinition } from './types';

/** Definitions and problems from one server map. */
export interface McpServerMapParseResult {
  readonly servers: readonly McpServerDefinition[];
  readonly errors: readonly McpConfigError[];
}

/**
 * Parses a `servers`/`mcpServers` object (`scope` points at it), in key order. A bad entry never
 * stops the others; a map that is not an object yields only an error at its path.
 */
export function parseServerMap(raw: unknown, scope: McpParseScope): McpServerMapParseResult {
  if (!isJsonObject(raw)) {
    return { servers: [], errors: [scopeError(scope, [], `expected object, got ${kindOf(raw)}`)] };
  }
  const servers: McpServerDefinition[] = [];
  const errors: McpConfigError[] = [];
  for (const [name, entry] of Object.entries(raw)) {
    const result = parseServerEntry(name, entry, scope);
    if (result.definition) {
      servers.push(result.definition);
    }
    errors.push(...result.errors);
  }
  return { servers, errors };
}
