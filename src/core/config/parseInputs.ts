import { isJsonObject, kindOf, validateInputEntry } from './configSchema';
import { McpParseScope, scopeError } from './parseScope';
import type { McpConfigError, McpInputDefinition } from './types';

/** Inputs of one file plus the problems found in them. */
export interface McpInputsParseResult {
  readonly inputs: readonly McpInputDefinition[];
  readonly errors: readonly McpConfigError[];
}

/**
 * Parses a VS Code style `inputs` array. `scope` points at the array (path `inputs`). Invalid
 * entries are reported and left out; the valid ones are still returned.
 */
export function parseInputs(raw: unknown, scope: McpParseScope): McpInputsParseResult {
  if (raw === undefined) {
    return { inputs: [], errors: [] };
  }
  if (!Array.isArray(raw)) {
    return { inputs: [], errors: [scopeError(scope, [], `expected array, got ${kindOf(raw)}`)] };
  }
  const inputs: McpInputDefinition[] = [];
  const errors: McpConfigError[] = [];
  const seen = new Set<string>();
  raw.forEach((item: unknown, index) => {
    // Stryker disable next-line ConditionalExpression,BlockStatement: the schema reports a non-object in the same words
    if (!isJsonObject(item)) {
      errors.push(scopeError(scope, [index], `expected object, got ${kindOf(item)}`));
      return;
    }
    const { value, issues } = validateInputEntry(item);
    errors.push(...issues.map((issue) => scopeError(scope, [index, ...issue.path], issue.message)));
    if (!value || issues.length > 0) {
      return;
    }
    if (seen.has(value.id)) {
      errors.push(scopeError(scope, [index, 'id'], `duplicate input id "${value.id}"`));
      return;
    }
    seen.add(value.id);
    inputs.push({
      id: value.id,
      type: value.type,
      ...(value.description !== undefined ? { description: value.description } : {}),
      ...(value.password !== undefined ? { password: value.password } : {}),
      ...(value.default !== undefined ? { default: value.default } : {}),
      ...(value.options !== undefined ? { options: value.options } : {}),
    });
  });
  return { inputs, errors };
}
