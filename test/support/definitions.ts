import type { McpLaunchResolution, McpResolvedLaunch } from '../../src/core/config/launchTypes';
import type { McpServerDefinition } from '../../src/core/config/types';

/**
 * A server definition as the configuration parser makes it, written out: tests of connections
 * need no parser (importing it costs every mutant of the code under test its load time).
 */
export function definition(name: string, entry: Partial<McpServerDefinition> = {}): McpServerDefinition {
  return {
    name,
    type: entry.url === undefined ? 'stdio' : 'http',
    args: [],
    env: {},
    headers: {},
    disabled: false,
    inputs: [],
    origin: { source: 'vscode', file: '/w/.vscode/mcp.json', jsonPath: `servers.${name}`, line: 2 },
    ...entry,
  };
}

/** The launch of a definition that uses no variables. */
export async function launchOf(def: McpServerDefinition): Promise<McpLaunchResolution> {
  const launch: McpResolvedLaunch = { type: def.type!, command: def.command, args: [...def.args], env: { ...def.env }, cwd: def.cwd, url: def.url, headers: { ...def.headers }, oauth: def.oauth };
  return { ok: true, value: launch };
}
