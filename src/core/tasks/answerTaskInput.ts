import type { CreateMessageRequest, ElicitRequest } from '@modelcontextprotocol/client';
import { McpCallError } from '../mcp/McpCallError';
import type { IMcpClientHandlers } from '../mcp/McpClientHandlers';
import type { McpTaskInputRequest } from './taskTypes';

/**
 * The client's answer to one request a 2026-07-28 task waits on, from the same handlers that
 * answer a server's requests (the elicitation card, the sampling rules, the roots). A request the
 * host cannot answer fails the follow with the reason.
 */
export async function answerTaskInput(handlers: IMcpClientHandlers, server: string, request: McpTaskInputRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
  const params = request.params ?? {};
  switch (request.method) {
    case 'elicitation/create':
      if (handlers.elicit) return { ...(await handlers.elicit(server, { mode: 'form', ...params } as ElicitRequest['params'], signal)) };
      return { action: 'decline' };
    case 'sampling/createMessage':
      if (handlers.sample) return { ...(await handlers.sample(server, params as CreateMessageRequest['params'], signal)) };
      break;
    case 'roots/list':
      if (handlers.roots) return { roots: [...handlers.roots()] };
      break;
  }
  throw new McpCallError('protocol', `the task waits for "${request.method}", which this host does not answer`);
}
