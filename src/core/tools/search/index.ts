/** Tool search: the budget that turns it on, the `search_tools` tool, and the index behind it. */
export { ToolSearchIndex, TOOL_SEARCH_WEIGHTS } from './ToolSearchIndex';
export type { ToolSearchField, ToolSearchOptions } from './ToolSearchIndex';
export { ToolSearchCache } from './ToolSearchCache';
export { ToolSearchTokenizer } from './ToolSearchTokenizer';
export type { ToolSearchTextOptions } from './ToolSearchTokenizer';
export { WordSegmenter, SEGMENTER_VOCABULARY } from './WordSegmenter';
export { SEARCH_TOOLS_NAME, SEARCH_TOOLS_SPEC, DEFAULT_SEARCH_LIMIT, formatSearchResult, summarizeDescription } from './searchToolsSpec';
export { DEFAULT_MAX_TOOLS, DEFAULT_MAX_SCHEMA_SHARE, DEFAULT_CONTEXT_WINDOW, estimateTokens, estimateSchemaTokens, exceedsToolBudget, toModelToolSpec } from './toolBudget';
export type { ToolSearchBudget } from './toolBudget';
