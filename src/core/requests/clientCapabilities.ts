import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { UI_CLIENT_CAPABILITY, UI_EXTENSION_ID } from '../apps/appResource';
import type { IMcpClientHandlers } from '../mcp/McpClientHandlers';

/**
 * The capabilities a client declares: exactly what its handlers answer. One object serves every
 * revision: a 2025-era server reads it from `initialize`, a 2026-07-28 server from each request's
 * `_meta`, and each ignores the parts its revision does not know (`elicitation.url` and
 * `sampling.tools` came with 2025-11-25). A 2025-11-25 server may also send sampling and
 * elicitation requests as tasks (`tasks.requests`): the host runs them as tasks of its own, which
 * the server can list, poll and cancel (`tasks.list`, `tasks.cancel`).
 */
export function clientCapabilities(handlers: IMcpClientHandlers): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.roots) capabilities.roots = { listChanged: true };
  if (handlers.elicit) capabilities.elicitation = { form: { applyDefaults: true }, ...(handlers.elicitUrl ? { url: {} } : {}) };
  if (handlers.sample) capabilities.sampling = handlers.samplingTools ? { tools: {} } : {};
  // MCP Apps: a host that renders them says which HTML it takes, so servers offer their UI tools.
  if (handlers.apps) capabilities.extensions = { ...capabilities.extensions, [UI_EXTENSION_ID]: UI_CLIENT_CAPABILITY };
  if (handlers.sample || handlers.elicit) {
    capabilities.tasks = {
      list: {},
      cancel: {},
      requests: { ...(handlers.sample ? { sampling: { createMessage: {} } } : {}), ...(handlers.elicit ? { elicitation: { create: {} } } : {}) },
    };
  }
  return capabilities;
}
