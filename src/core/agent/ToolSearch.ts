import MiniSearch from 'minisearch';
import type { HarnessTool } from '../tools/types';
import type { ModelToolSpec } from './types';

/** Name of the tool the model gets instead of every schema when the enabled tools exceed the budget. */
export const SEARCH_TOOLS_NAME = 'search_tools';

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
export const DEFAULT_SEARCH_LIMIT = 8;

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

/** The `search_tools` tool as the model sees it. */
export const SEARCH_TOOLS_SPEC: ModelToolSpec = {
  name: SEARCH_TOOLS_NAME,
  description:
    'Finds tools by keywords. Not every available tool is listed: search with a few words about the task (e.g. "create github issue", "read file") and the best matches, with their schemas, can be called from the next step on.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Keywords describing what the tool should do.' },
      limit: { type: 'integer', minimum: 1, maximum: 25, description: `How many tools to return (default ${DEFAULT_SEARCH_LIMIT}).` },
    },
    required: ['query'],
  },
};

interface IndexedTool {
  readonly id: number;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly params: string;
}

/** Splits identifiers into words: `mcp__github__listIssues` -> `mcp github list issues`. */
function words(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-./]+/g, ' ');
}

function parameterNames(schema: Readonly<Record<string, unknown>>): string {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return '';
  return Object.keys(properties).map(words).join(' ');
}

/**
 * A full-text index of tools over their names, titles, descriptions and parameter names. Matches
 * on whole words, prefixes and near misses, names weighing most.
 */
export class ToolSearchIndex {
  private readonly _search = new MiniSearch<IndexedTool>({
    fields: ['name', 'title', 'description', 'params'],
    storeFields: [],
    searchOptions: { boost: { name: 3, title: 2, params: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });

  constructor(private readonly _tools: readonly HarnessTool[]) {
    this._search.addAll(
      _tools.map((tool, id) => ({ id, name: words(tool.name), title: tool.title ?? '', description: tool.description, params: parameterNames(tool.inputSchema) })),
    );
  }

  /** The tools best matching `query`, best first; none for an empty query. */
  search(query: string, options: { readonly limit?: number } = {}): HarnessTool[] {
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
    const text = words(query).trim();
    if (!text) return [];
    return this._search
      .search(text)
      .slice(0, limit)
      .map((hit) => this._tools[hit.id as number]!);
  }
}

function indexKey(tools: readonly HarnessTool[]): string {
  return tools.map((t) => `${t.name}\u0000${t.title ?? ''}\u0000${t.description.length}\u0000${parameterNames(t.inputSchema)}`).join('\u0001');
}

/**
 * Keeps the index of the last tool set, so repeated searches over unchanged tools cost only the
 * query; a changed set (a server added, a tool renamed) is indexed again.
 */
export class ToolSearchCache {
  private _key = '';
  private _index: ToolSearchIndex | undefined;

  /** Ranks `tools` for `query`, best first. */
  search(tools: readonly HarnessTool[], query: string, options: { readonly limit?: number } = {}): HarnessTool[] {
    const key = indexKey(tools);
    if (this._index === undefined || this._key !== key) {
      this._index = new ToolSearchIndex(tools);
      this._key = key;
    }
    return this._index.search(query, options);
  }
}
