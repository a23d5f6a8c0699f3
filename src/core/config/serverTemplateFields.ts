import { appendJsonPath } from './jsonPath';
import type { McpServerDefinition } from './types';

/** One string of a definition that may contain variables, named as in the config. */
export interface McpTemplateField {
  /** e.g. `args[1]`, `env.GITHUB_TOKEN`, `headers.Authorization`. */
  readonly label: string;
  readonly text: string;
}

/** True when the fields a process needs (command, args, env, envFile, cwd) matter for `def`. */
export function usesProcessFields(def: McpServerDefinition): boolean {
  return def.type !== 'http' && def.type !== 'sse';
}

/** True when the fields a remote connection needs (url, headers) matter for `def`. */
export function usesRemoteFields(def: McpServerDefinition): boolean {
  return def.type !== 'stdio';
}

/**
 * The strings of `def` that are substituted at start, in config order. Only the fields of its
 * transport count (an http server's stray `env` is never resolved); with no known transport, all.
 */
export function serverTemplateFields(def: McpServerDefinition): McpTemplateField[] {
  const fields: McpTemplateField[] = [];
  const add = (label: string, text: string | undefined) => {
    if (text !== undefined) {
      fields.push({ label, text });
    }
  };
  if (usesProcessFields(def)) {
    add('command', def.command);
    def.args.forEach((arg, index) => add(appendJsonPath('args', index), arg));
    Object.entries(def.env).forEach(([key, value]) => add(appendJsonPath('env', key), value));
    add('envFile', def.envFile);
    add('cwd', def.cwd);
  }
  if (usesRemoteFields(def)) {
    add('url', def.url);
    Object.entries(def.headers).forEach(([key, value]) => add(appendJsonPath('headers', key), value));
    add('oauth.clientSecret', def.oauth?.clientSecret);
    add('oauth.privateKey', def.oauth?.privateKey);
    add('oauth.assertion', def.oauth?.assertion);
    add('oauth.idp.clientSecret', def.oauth?.idp?.clientSecret);
    add('oauth.idp.idToken', def.oauth?.idp?.idToken);
  }
  return fields;
}
