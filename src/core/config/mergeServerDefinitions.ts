import type { McpServerDefinition } from './types';

/**
 * Merges groups of definitions given in precedence order: the first definition of a name wins and
 * later ones with the same name are dropped. Order is that of first appearance. Pure.
 */
export function mergeServerDefinitions(
  groups: readonly (readonly McpServerDefinition[])[],
): McpServerDefinition[] {
  const byName = new Map<string, McpServerDefinition>();
  for (const group of groups) {
    for (const definition of group) {
      if (!byName.has(definition.name)) {
        byName.set(definition.name, definition);
      }
    }
  }
  return [...byName.values()];
}
