import type { McpConfigOrigin, McpServerDefinition } from './types';

/**
 * What makes two definitions the same server: the same command, arguments, folder and environment
 * (stdio), or the same URL and headers (HTTP, SSE). Undefined for an entry with a problem, which
 * is never merged with anything.
 */
export function launchKey(def: McpServerDefinition): string | undefined {
  if (def.problem !== undefined || def.type === undefined) return undefined;
  if (def.type === 'stdio') return JSON.stringify(['stdio', def.command, def.args, def.cwd ?? null, sorted(def.env)]);
  return JSON.stringify(['url', def.url, sorted(def.headers)]);
}

/**
 * Whether a definition runs MCP Harness's own gateway (`mcp-harness serve --gateway`, as "Copy
 * Server Configuration" writes it into other agents' files): never imported back, so the harness
 * does not serve itself.
 */
export function isHarnessGateway(def: Pick<McpServerDefinition, 'command' | 'args'>): boolean {
  const args = def.args ?? [];
  const serve = args.indexOf('serve');
  return serve >= 0 && args.includes('--gateway') && [def.command ?? '', ...args.slice(0, serve)].some((part) => /mcp-harness/i.test(part));
}

/**
 * Folds definitions of the same server into the first one: later duplicates are dropped and their
 * origins listed in the first one's `origin.alsoIn`. Names are not compared. Pure.
 */
export function dedupeServers(defs: readonly McpServerDefinition[]): McpServerDefinition[] {
  return foldInto([], defs).all;
}

/**
 * Adds servers found elsewhere (other agents' files, extensions) after the configured ones: one
 * that duplicates a configured server (see {@link launchKey}) becomes another origin of it; one
 * whose name is taken by a different server is left out, as a later file's would be. Pure.
 */
export function mergeFoundServers(
  configured: readonly McpServerDefinition[],
  found: readonly McpServerDefinition[],
): McpServerDefinition[] {
  const names = new Set(configured.map((d) => d.name));
  const { all } = foldInto(configured, found, (def) => {
    if (names.has(def.name)) return false;
    names.add(def.name);
    return true;
  });
  return all;
}

function foldInto(
  base: readonly McpServerDefinition[],
  more: readonly McpServerDefinition[],
  admit: (def: McpServerDefinition) => boolean = () => true,
): { all: McpServerDefinition[] } {
  const all = [...base];
  const byKey = new Map<string, number>();
  all.forEach((def, index) => {
    const key = launchKey(def);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, index);
  });
  for (const def of more) {
    const key = launchKey(def);
    const index = key === undefined ? undefined : byKey.get(key);
    if (index !== undefined) {
      all[index] = withOrigins(all[index], [def.origin, ...(def.origin.alsoIn ?? [])]);
      continue;
    }
    if (!admit(def)) continue;
    if (key !== undefined) byKey.set(key, all.length);
    all.push(def);
  }
  return { all };
}

function withOrigins(def: McpServerDefinition, more: readonly McpConfigOrigin[]): McpServerDefinition {
  return { ...def, origin: { ...def.origin, alsoIn: [...(def.origin.alsoIn ?? []), ...more] } };
}

function sorted(map: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** How a server found elsewhere relates to the configured ones. */
export type McpFoundServerStatus =
  | { readonly kind: 'new' }
  /** The same command or URL is configured already, under this name. */
  | { readonly kind: 'configured'; readonly as: string }
  /** A different server has this name. */
  | { readonly kind: 'name-taken'; readonly by: McpServerDefinition };

/** Whether importing `def` would add a server, and if not, why. */
export function foundServerStatus(configured: readonly McpServerDefinition[], def: McpServerDefinition): McpFoundServerStatus {
  const key = launchKey(def);
  const same = key === undefined ? undefined : configured.find((c) => launchKey(c) === key);
  if (same) return { kind: 'configured', as: same.name };
  const taken = configured.find((c) => c.name === def.name);
  return taken ? { kind: 'name-taken', by: taken } : { kind: 'new' };
}
