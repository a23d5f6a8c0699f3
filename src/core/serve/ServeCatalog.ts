import type { ListResourceTemplatesResult, Prompt, Resource } from '@modelcontextprotocol/server';
import { isAppOnlyTool } from '../apps/appResource';
import { Emitter, type Event } from '../base/event';
import { Disposable } from '../base/lifecycle';
import type { McpHarness } from '../McpHarness';
import { mcpToolCandidateName, sanitizeToolNamePart } from '../tools/McpToolNaming';
import type { HarnessTool } from '../tools/types';
import type { ServeExposure } from './ServeExposure';

/** A resource template as listed (the package's `ResourceTemplate` export is a registration helper). */
type ResourceTemplate = ListResourceTemplatesResult['resourceTemplates'][number];

/** Scheme of the resource URIs the gateway hands out: `mcp-harness://<server>/<original uri>`, both parts URI-encoded. */
export const GATEWAY_RESOURCE_SCHEME = 'mcp-harness:';

/** A configured server's resource as the gateway offers it. */
export interface GatewayResource {
  readonly exposed: Resource;
  readonly server: string;
  readonly uri: string;
}

/** A configured server's prompt as the gateway offers it. */
export interface GatewayPrompt {
  readonly exposed: Prompt;
  readonly server: string;
  readonly prompt: string;
}

export type CatalogListKind = 'tools' | 'resources' | 'prompts';

/**
 * What a serve session may see and call, computed from the harness and the exposure rules and
 * kept current: `onDidChange` fires for a list only when what it offers changed.
 */
export class ServeCatalog extends Disposable {
  private readonly _onDidChange = this._register(new Emitter<CatalogListKind>());
  readonly onDidChange: Event<CatalogListKind> = this._onDidChange.event;

  private _tools: readonly HarnessTool[] = [];
  private _resources = new Map<string, GatewayResource>();
  private _prompts = new Map<string, GatewayPrompt>();
  private _templates: ResourceTemplate[] = [];
  private _appOnly = new Set<string>();
  private _fingerprints: Record<CatalogListKind, string> = { tools: '', resources: '', prompts: '' };

  constructor(
    private readonly _harness: McpHarness,
    private readonly _exposure: ServeExposure,
  ) {
    super();
    this._refresh(false);
    this._register(_harness.onDidChange(() => this._refresh(true)));
  }

  tools(): readonly HarnessTool[] {
    return this._tools;
  }

  resources(): GatewayResource[] {
    return [...this._resources.values()];
  }

  /** Servers' resource templates; a URI made from one reads through {@link resolveResource}. */
  resourceTemplates(): readonly ResourceTemplate[] {
    return this._templates;
  }

  prompts(): GatewayPrompt[] {
    return [...this._prompts.values()];
  }

  /**
   * Whether a tool is offered (the pipeline asks this at look-up and again before it calls). A
   * tool only an MCP App may call (`_meta.ui.visibility: ["app"]`) never is: the gateway's clients
   * are agents, not an app's host.
   */
  offersTool(tool: HarnessTool): boolean {
    return this._exposure.allowsTool(tool) && !this._appOnly.has(tool.name);
  }

  /**
   * The server and original URI behind an offered resource URI (also ones a template produced).
   * Whether it may be read is the exposure policy's decision, made in the pipeline.
   */
  resolveResource(uri: string): { server: string; uri: string } | undefined {
    const listed = this._resources.get(uri);
    if (listed) return listed;
    const parsed = parseGatewayUri(uri);
    return parsed && this._harness.snapshot(parsed.server) ? parsed : undefined;
  }

  resolvePrompt(name: string): GatewayPrompt | undefined {
    return this._prompts.get(name);
  }

  /** The exposed names of the tools only apps may call, as the servers list them now. */
  private _appOnlyNames(tools: readonly HarnessTool[]): Set<string> {
    const names = new Set<string>();
    const listed = new Map(this._harness.snapshots().map((s) => [s.name, s.tools]));
    for (const tool of tools) {
      const definition = tool.server === undefined ? undefined : listed.get(tool.server)?.find((t) => t.name === tool.originalName);
      if (definition && isAppOnlyTool(definition)) names.add(tool.name);
    }
    return names;
  }

  private _refresh(notify: boolean): void {
    const all = this._harness.tools();
    this._appOnly = this._appOnlyNames(all);
    this._tools = all.filter((t) => this.offersTool(t));
    const resources = new Map<string, GatewayResource>();
    const prompts = new Map<string, GatewayPrompt>();
    const templates: ResourceTemplate[] = [];
    if (this._exposure.options.gateway) {
      for (const snapshot of this._harness.snapshots()) {
        if (snapshot.state.kind !== 'running' && snapshot.state.kind !== 'reconnecting') continue;
        if (!this._exposure.allowsServerItem(snapshot.name, undefined)) continue;
        for (const r of snapshot.resources) {
          const name = resourceName(snapshot.name, r.name);
          if (!this._exposure.allowsServerItem(snapshot.name, r.name)) continue;
          const uri = gatewayUri(snapshot.name, r.uri);
          resources.set(uri, { exposed: { ...r, uri, name, title: r.title ?? r.name }, server: snapshot.name, uri: r.uri });
        }
        for (const t of snapshot.resourceTemplates) {
          const name = resourceName(snapshot.name, t.name);
          if (this._exposure.allowsServerItem(snapshot.name, t.name)) templates.push({ ...t, name, title: t.title ?? t.name, uriTemplate: gatewayUriTemplate(snapshot.name, t.uriTemplate) });
        }
        for (const p of snapshot.prompts) {
          let name = mcpToolCandidateName({ server: snapshot.name, tool: p.name });
          for (let n = 2; prompts.has(name); n++) name = mcpToolCandidateName({ server: snapshot.name, tool: p.name }, n);
          if (!this._exposure.allowsServerItem(snapshot.name, p.name)) continue;
          prompts.set(name, { exposed: { ...p, name, title: p.title ?? p.name }, server: snapshot.name, prompt: p.name });
        }
      }
    }
    this._resources = resources;
    this._prompts = prompts;
    this._templates = templates;
    const next: Record<CatalogListKind, string> = {
      tools: JSON.stringify(this._tools.map(({ pin: _pin, ...t }) => t)),
      resources: JSON.stringify([[...resources.values()].map((r) => r.exposed), templates]),
      prompts: JSON.stringify([...prompts.values()].map((p) => p.exposed)),
    };
    const previous = this._fingerprints;
    this._fingerprints = next;
    if (!notify) return;
    for (const kind of ['tools', 'resources', 'prompts'] as const) {
      if (previous[kind] !== next[kind]) this._onDidChange.fire(kind);
    }
  }
}

/** Name a resource is matched and listed by: `mcp__<server>__<resource name>`. */
function resourceName(server: string, name: string): string {
  return `mcp__${sanitizeToolNamePart(server)}__${name}`;
}

export function gatewayUri(server: string, uri: string): string {
  return `${GATEWAY_RESOURCE_SCHEME}//${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/**
 * A server's URI template under the gateway scheme: the literal parts encoded as in
 * {@link gatewayUri}, the `{...}` expressions kept, so an expanded URI decodes to what the server's
 * own template would have produced (simple `{var}` expansion percent-encodes reserved characters).
 */
export function gatewayUriTemplate(server: string, template: string): string {
  const inner = template
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith('{') && part.endsWith('}') ? part : encodeURIComponent(part)))
    .join('');
  return `${GATEWAY_RESOURCE_SCHEME}//${encodeURIComponent(server)}/${inner}`;
}

/** Undoes {@link gatewayUri}; both parts are encoded, so the first `/` after the server is the split. */
export function parseGatewayUri(uri: string): { server: string; uri: string } | undefined {
  const prefix = `${GATEWAY_RESOURCE_SCHEME}//`;
  if (!uri.startsWith(prefix)) return undefined;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}
