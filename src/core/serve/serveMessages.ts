import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError, ProtocolErrorCode, type Implementation, type Tool } from '@modelcontextprotocol/server';
import { describeUnansweredAsk } from '../calls/callPolicy';
import type { ICallDecider } from '../permissions/types';
import { EXPOSURE_DECIDER } from './ServeExposure';
import type { AuditClient } from '../permissions/AuditLog';
import type { HarnessTool } from '../tools/types';

/** What `serve` tells its clients it is. */
export const INSTRUCTIONS =
  'MCP Harness: tools to read, search (and, when allowed, change) the files of this workspace, and with the gateway ' +
  'the tools of every MCP server configured for it, named mcp__<server>__<tool>.';

/**
 * Tools reach the pipeline only when offered (see `ServeCatalog.offersTool`): the exposure rules
 * decided. A PreToolUse hook that asks for a person is answered no: a gateway has nobody to ask.
 */
export const EXPOSURE_POLICY: ICallDecider = {
  decide: async (call) =>
    call.hook?.decision === 'ask' ? { outcome: 'deny', decider: { by: 'hook', hook: call.hook.hook }, reason: describeUnansweredAsk(call.hook) } : { outcome: 'allow', decider: EXPOSURE_DECIDER },
};

/** Unknown and denied look the same to a client: what it may not see does not exist for it. */
export function unknownItem(kind: 'resource' | 'prompt', name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown ${kind} "${name}"`);
}

/** What the listener knows of a client before any MCP message: how it is connected. */
export type ServeConnectionInfo = Pick<AuditClient, 'transport' | 'remoteAddress' | 'sessionId' | 'user'>;

/** A tool as `tools/list` offers it. */
export function toMcpTool(tool: HarnessTool): Tool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  };
}

/** The client a 2026-07-28 request names in its `_meta` (for requests the SDK answers itself, such as `subscriptions/listen`). */
export function clientFromRequestMeta(params: unknown, connection: ServeConnectionInfo): AuditClient {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const info = meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const protocolVersion = meta?.[PROTOCOL_VERSION_META_KEY];
  return {
    ...connection,
    ...(info ? { name: info.name, version: info.version } : {}),
    ...(typeof protocolVersion === 'string' ? { protocolVersion } : {}),
  };
}

/** The `resourceSubscriptions` of a `subscriptions/listen` request, if it is one. */
export function listenedResources(message: unknown): { id: string | number; uris: string[] } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined;
  if (m?.method !== 'subscriptions/listen' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return undefined;
  const uris = m.params?.notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  const strings = uris.filter((u): u is string => typeof u === 'string');
  return strings.length > 0 ? { id: m.id, uris: strings } : undefined;
}
