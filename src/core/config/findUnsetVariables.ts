import { parseVariableTemplate } from './parseVariableTemplate';
import { lookupEnv } from './resolveVariables';
import { serverTemplateFields } from './serverTemplateFields';
import type { McpServerDefinition } from './types';

/**
 * Names of environment variables that `def` uses without a default and that are not set in
 * `env`, each once, in config order. For a `doctor` report before anything is started.
 */
export function findUnsetVariables(
  def: McpServerDefinition,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const names = new Set<string>();
  for (const field of serverTemplateFields(def)) {
    for (const part of parseVariableTemplate(field.text)) {
      if (part.kind === 'variable' && part.ref.kind === 'env' && part.ref.default === undefined) {
        if (lookupEnv(env, part.ref.name) === undefined) {
          names.add(part.ref.name);
        }
      }
    }
  }
  return [...names];
}
