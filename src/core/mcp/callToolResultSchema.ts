import { specTypeSchemas, type CallToolResult, type StandardSchemaV1 } from '@modelcontextprotocol/client';

/** Keys of other result families: a body that carries one and no `content` is not a tool result. */
const FOREIGN_FAMILY_KEYS = ['task', 'inputRequests', 'requestState'] as const;

/**
 * What the answer to a 2025-era `tools/call` is checked against, given to the SDK's `request()`.
 * Without a schema the SDK works one out for the method on every request, by validating
 * `undefined` against it and formatting the failure: a stdio echo call took about 20 us more CPU
 * so, far more than checking the answer. The check is the SDK's own `CallToolResult` schema,
 * with the 2025 wire's ruling on a result without `content`: it gains `content: []`, unless it
 * carries another result family's key (a task, a request for input), which no tool result may
 * stand in for.
 */
export const CALL_TOOL_RESULT_SCHEMA: StandardSchemaV1<unknown, CallToolResult> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-harness',
    validate(value) {
      if (typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { content?: unknown }).content === undefined) {
        const foreign = FOREIGN_FAMILY_KEYS.find((key) => key in value);
        if (foreign) return { issues: [{ message: `content is required when the body carries '${foreign}'` }] };
      }
      return specTypeSchemas.CallToolResult['~standard'].validate(value) as StandardSchemaV1.Result<CallToolResult>;
    },
  },
};
