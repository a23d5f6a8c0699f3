import { redactSecrets } from '../permissions/redactSecrets';
import type { AuditClient } from '../permissions/AuditLog';
import type { HarnessTool, McpContentBlock } from '../tools/types';
import { hookToolName } from './hookMatcher';

/** Fields every hook's stdin carries (Claude Code's common input). */
export interface HookCommonInput {
  readonly session_id: string;
  /** Empty: conversations are not kept as transcript files here. */
  readonly transcript_path: string;
  readonly cwd: string;
  readonly permission_mode: 'default';
}

/**
 * A tool event's stdin: Claude Code's fields (`tool_name` is the hook name of the tool, see
 * `hookToolName`; `tool_input` the arguments), and ours under `mcp_harness`. Everything the
 * audit log would redact is redacted here too: hooks never see it.
 */
export function toolEventInput(
  event: 'PreToolUse' | 'PostToolUse',
  common: HookCommonInput,
  call: { readonly callId: string; readonly tool: HarnessTool; readonly arguments: unknown; readonly client?: AuditClient },
  response?: { readonly content: readonly McpContentBlock[]; readonly text: string; readonly isError: boolean; readonly structuredContent?: unknown },
): Record<string, unknown> {
  const { tool } = call;
  return {
    ...common,
    hook_event_name: event,
    tool_name: hookToolName(tool.server === undefined ? { name: tool.originalName } : { server: tool.server, name: tool.originalName }),
    tool_input: redactSecrets(call.arguments),
    ...(response ? { tool_response: redactSecrets(response.content.map(withoutData)) } : {}),
    tool_use_id: call.callId,
    mcp_harness: {
      server: tool.server ?? null,
      tool: tool.originalName,
      exposed_name: tool.name,
      ...(response ? { result: redactSecrets({ text: response.text, isError: response.isError, ...(response.structuredContent !== undefined ? { structuredContent: response.structuredContent } : {}) }) } : {}),
      ...(call.client ? { client: call.client } : {}),
    },
  };
}

/** Binary content is summarized: a hook reads what a call returned, not megabytes of base64. */
function withoutData(block: McpContentBlock): unknown {
  if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
    return { ...block, data: `[${Math.floor((block.data.length * 3) / 4)} bytes omitted]` };
  }
  if (block.type === 'resource' && 'blob' in block.resource && typeof block.resource.blob === 'string') {
    return { ...block, resource: { ...block.resource, blob: `[${Math.floor((block.resource.blob.length * 3) / 4)} bytes omitted]` } };
  }
  return block;
}

/**
 * A hook's `updatedInput` with the secrets it could not see put back: a value the hook left as
 * it received it (redacted) is the original value again. Anything the hook changed is its own.
 */
export function restoreRedacted(updated: unknown, original: unknown): unknown {
  return restore(updated, original, redactSecrets(original));
}

function restore(updated: unknown, original: unknown, seen: unknown): unknown {
  if (typeof updated !== 'object' || updated === null) return updated === seen ? original : updated;
  if (Array.isArray(updated)) {
    const o = Array.isArray(original) ? original : [];
    const s = Array.isArray(seen) ? seen : [];
    return updated.map((item, i) => restore(item, o[i], s[i]));
  }
  const o = asRecord(original);
  const s = asRecord(seen);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(updated)) out[key] = restore(value, Object.hasOwn(o, key) ? o[key] : undefined, Object.hasOwn(s, key) ? s[key] : undefined);
  return out;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
