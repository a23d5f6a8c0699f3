import type { HarnessTool } from '../types';
import type { ModelToolSpec } from '../types';

/** When to switch to tool search. */
export interface ToolSearchBudget {
  /** More enabled tools than this switches to search (default 64). */
  readonly maxTools?: number;
  /** Schemas over this share of the context window switch to search (default 0.1). */
  readonly maxSchemaShare?: number;
  /** The model's context window in tokens (default 128,000 when the provider does not say). */
  readonly contextWindow?: number;
}

export const DEFAULT_MAX_TOOLS = 64;
export const DEFAULT_MAX_SCHEMA_SHARE = 0.1;
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** A cheap token estimate (about four characters a token for JSON and English). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The spec a model gets for a tool. */
export function toModelToolSpec(tool: HarnessTool): ModelToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

/** Estimated tokens of the schemas of `tools` as sent to a model. */
export function estimateSchemaTokens(tools: readonly HarnessTool[]): number {
  let total = 0;
  for (const tool of tools) total += estimateTokens(JSON.stringify(toModelToolSpec(tool)));
  return total;
}

/** Whether `tools` are too many or too large to send whole. */
export function exceedsToolBudget(tools: readonly HarnessTool[], budget: ToolSearchBudget = {}): boolean {
  if (tools.length > (budget.maxTools ?? DEFAULT_MAX_TOOLS)) return true;
  const limit = (budget.maxSchemaShare ?? DEFAULT_MAX_SCHEMA_SHARE) * (budget.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  return estimateSchemaTokens(tools) > limit;
}
