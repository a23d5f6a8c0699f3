import * as path from 'node:path';
import { DISCOVERY_AGENTS } from './discoveryLocations';
import type { McpConfigOrigin, McpDiscoverySource, McpServerDefinition } from './types';

/**
 * An origin for people: `<file>:<line>` (a file under `home` as `~/...`), prefixed with the agent
 * that writes it for other agents' files (`Claude Desktop ~/.config/Claude/...:3`), or the label
 * of host-supplied entries (`settings.json`, `extension acme.tools`).
 */
export function describeOrigin(origin: McpConfigOrigin, home?: string): string {
  let file = origin.file;
  if (home && path.isAbsolute(file)) {
    const relative = path.relative(home, file);
    if (relative && !relative.startsWith('..') && !path.isAbsolute(relative)) file = `~/${relative.split(path.sep).join('/')}`;
  }
  const where = origin.line !== undefined ? `${file}:${origin.line}` : file;
  const agent = DISCOVERY_AGENTS[origin.source as McpDiscoverySource];
  return agent ? `${agent} ${where}` : where;
}

/**
 * The entry to write for a definition in another file (importing it): its launch as written,
 * variables untouched, in the shape every format reads (`type` only for HTTP and SSE).
 */
export function serverEntryFor(def: McpServerDefinition): Record<string, unknown> {
  const entry: Record<string, unknown> = {};
  if (def.type === 'stdio' || (def.type === undefined && def.command !== undefined)) {
    entry.command = def.command;
    if (def.args.length) entry.args = [...def.args];
    if (Object.keys(def.env).length) entry.env = { ...def.env };
    if (def.envFile !== undefined) entry.envFile = def.envFile;
    if (def.cwd !== undefined) entry.cwd = def.cwd;
  } else {
    entry.type = def.type;
    entry.url = def.url;
    if (Object.keys(def.headers).length) entry.headers = { ...def.headers };
    if (def.oauth) entry.oauth = { ...def.oauth };
  }
  if (def.disabled) entry.disabled = true;
  if (def.startupTimeoutMs !== undefined) entry.startupTimeoutMs = def.startupTimeoutMs;
  if (def.toolTimeoutMs !== undefined) entry.toolTimeoutMs = def.toolTimeoutMs;
  return entry;
}
