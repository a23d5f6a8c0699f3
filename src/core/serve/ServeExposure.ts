import type { ServerRequestTarget } from '../calls/ServerRequests';
import { findMatchingPattern, patternCoversServer } from '../permissions/toolPattern';
import type { PermissionDecision } from '../permissions/types';
import type { HarnessTool } from '../tools/types';

/** The exposure rules decided what a client may call. */
export const EXPOSURE_DECIDER = { by: 'rule', rule: 'serve exposure' } as const;

/**
 * Which tools, resources and prompts `serve` offers. Defaults: the read-only built-in tools, and
 * with the gateway every configured server's tools, resources and prompts. `expose` adds tools,
 * `deny` removes tools, resources and prompts and always wins. Patterns are bound to servers and
 * match identities, never exposed names (see `matchToolPattern`): a denied tool is denied under
 * every name it has, and a pattern that covers a whole server (`mcp__srv`, `mcp__srv__*`) denies
 * its resources and prompts too.
 */
export class ServeExposure {
  constructor(readonly options: { readonly expose: readonly string[]; readonly deny: readonly string[]; readonly gateway: boolean }) {}

  /** Whether a tool is offered. */
  allowsTool(tool: HarnessTool): boolean {
    if (this._denied(tool.server, tool.originalName)) return false;
    if (tool.server !== undefined) return this.options.gateway;
    return tool.annotations?.readOnlyHint === true || findMatchingPattern(this.options.expose, { name: tool.originalName }) !== undefined;
  }

  /** Whether a server's resource (by its name, when listed) or prompt is offered. */
  allowsServerItem(server: string, name: string | undefined): boolean {
    if (!this.options.gateway || this.deniesServer(server)) return false;
    return name === undefined || !this._denied(server, name);
  }

  /** Whether a deny pattern covers everything of `server`. */
  deniesServer(server: string): boolean {
    return this.options.deny.some((p) => patternCoversServer(p, server));
  }

  /** The policy for resource reads and prompts relayed by the gateway. */
  decide(target: ServerRequestTarget): PermissionDecision {
    const name = target.name;
    return this.allowsServerItem(target.server, name)
      ? { outcome: 'allow', decider: EXPOSURE_DECIDER }
      : { outcome: 'deny', decider: EXPOSURE_DECIDER, reason: 'not offered' };
  }

  private _denied(server: string | undefined, name: string): boolean {
    return findMatchingPattern(this.options.deny, server === undefined ? { name } : { server, name }) !== undefined;
  }
}
