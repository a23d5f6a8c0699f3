import type { ClientCapabilities } from '@modelcontextprotocol/client';
import type { IMcpClientHandlers } from '../mcp/McpClientHandlers';

/**
 * The capabilities a client declares: exactly what its handlers answer. One object serves every
 * revision: a 2025-era server reads it from `initialize`, a 2026-07-28 server from each request's
 * `_meta`, and each ignores the parts its revision does not know (`elicitation.url` and
 * `sampling.tools` came with 2025-11-25). Task-augmented sampling and elicitation are not declared:
 * the host answers those requests directly.
 */
export function clientCapabilities(handlers: IMcpClientHandlers): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (handlers.roots) capabilities.roots = { listChanged: true };
  if (handlers.elicit) capabilities.elicitation = { form: { applyDefaults: true }, ...(handlers.elicitUrl ? { url: {} } : {}) };
  if (handlers.sample) capabilities.sampling = handlers.samplingTools ? { tools: {} } : {};
  return capabilities;
}
