import type { HarnessTool } from '../types';
import { ToolSearchIndex, type ToolSearchOptions } from './ToolSearchIndex';

/**
 * One index kept in step with the tool list each search is given, so repeated searches cost only
 * the query, and a server's `list_changed` re-indexes only the tools that changed.
 */
export class ToolSearchCache {
  private readonly _index: ToolSearchIndex;

  constructor(options: ToolSearchOptions = {}) {
    this._index = new ToolSearchIndex([], options);
  }

  /** Tool documents indexed so far; a tool is indexed again only when it changes. */
  get documentsIndexed(): number {
    return this._index.documentsIndexed;
  }

  /** Ranks `tools` for `query`, best first. */
  search(tools: readonly HarnessTool[], query: string, options: { readonly limit?: number } = {}): HarnessTool[] {
    this._index.update(tools);
    return this._index.search(query, options);
  }
}
