import MiniSearch from 'minisearch';
import type { HarnessTool } from '../types';
import { ToolSearchTokenizer, type ToolSearchTextOptions } from './ToolSearchTokenizer';
import { DEFAULT_SEARCH_LIMIT } from './searchToolsSpec';

/** The fields a tool is indexed under. */
export type ToolSearchField = 'name' | 'title' | 'server' | 'description' | 'params' | 'paramDescriptions';

/**
 * How much a match in each field weighs. Chosen on one half of a public tool-retrieval benchmark
 * (see README, "Tool search"); the ranking was flat around these values. `title` weighs as `name`
 * does (the benchmark's tools have none).
 */
export const TOOL_SEARCH_WEIGHTS: Readonly<Record<ToolSearchField, number>> = {
  name: 2,
  title: 2,
  server: 1,
  description: 1,
  params: 0.5,
  paramDescriptions: 0.3,
};

export interface ToolSearchOptions {
  readonly text?: ToolSearchTextOptions;
  /** Replaces some of {@link TOOL_SEARCH_WEIGHTS}. */
  readonly weights?: Partial<Record<ToolSearchField, number>>;
  /** Query terms this long or longer also match words they begin (default 5). */
  readonly prefixMinLength?: number;
  /** Query terms this long or longer also match words one edit away (default 7). */
  readonly fuzzyMinLength?: number;
}

type ToolDocument = { readonly id: string } & Readonly<Record<ToolSearchField, string | undefined>>;

interface Entry {
  tool: HarnessTool;
  readonly document: ToolDocument;
}

const FIELDS: readonly ToolSearchField[] = ['name', 'title', 'server', 'description', 'params', 'paramDescriptions'];

/**
 * A BM25 index of tools (minisearch) over their names, titles, servers, descriptions and
 * parameters, kept in step with a changing tool list one tool at a time: {@link update} indexes
 * only the tools that are new or changed and removes those that are gone. Rankings are
 * deterministic: equal scores keep the order of the tool list.
 */
export class ToolSearchIndex {
  private readonly _tokenizer: ToolSearchTokenizer;
  private readonly _search: MiniSearch<ToolDocument>;
  private readonly _entries = new Map<string, Entry>();
  private readonly _position = new Map<string, number>();
  private readonly _searchOptions;
  private _indexed = 0;

  constructor(tools: readonly HarnessTool[] = [], options: ToolSearchOptions = {}) {
    this._tokenizer = new ToolSearchTokenizer(options.text);
    this._search = new MiniSearch<ToolDocument>({
      fields: [...FIELDS],
      tokenize: (text) => this._tokenizer.documentTerms(text),
      processTerm: (term) => term,
    });
    const prefixMin = options.prefixMinLength ?? 5;
    const fuzzyMin = options.fuzzyMinLength ?? 7;
    this._searchOptions = {
      boost: { ...TOOL_SEARCH_WEIGHTS, ...options.weights },
      combineWith: 'OR',
      tokenize: (text: string) => this._tokenizer.queryTerms(text),
      processTerm: (term: string) => term,
      prefix: (term: string) => term.length >= prefixMin,
      fuzzy: (term: string) => (term.length >= fuzzyMin ? 1 : false),
    } as const;
    this.update(tools);
  }

  /** Tools in the index. */
  get size(): number {
    return this._entries.size;
  }

  /** Tool documents indexed since this index was made (a changed tool counts again). */
  get documentsIndexed(): number {
    return this._indexed;
  }

  /** Brings the index in line with `tools`: adds new ones, re-indexes changed ones, drops the rest. */
  update(tools: readonly HarnessTool[]): void {
    this._position.clear();
    for (const tool of tools) {
      if (this._position.has(tool.name)) continue; // a name is one tool; the first wins
      this._position.set(tool.name, this._position.size);
      const entry = this._entries.get(tool.name);
      if (entry !== undefined && (sameSource(entry.tool, tool) || sameDocument(entry.document, toDocument(tool)))) {
        entry.tool = tool;
        continue;
      }
      if (entry !== undefined) this._search.remove(entry.document);
      const document = toDocument(tool);
      this._search.add(document);
      this._indexed++;
      this._entries.set(tool.name, { tool, document });
    }
    for (const [name, entry] of this._entries) {
      if (this._position.has(name)) continue;
      this._search.remove(entry.document);
      this._entries.delete(name);
    }
  }

  /** The tools best matching `query`, best first; none for an empty query or no match. */
  search(query: string, options: { readonly limit?: number } = {}): HarnessTool[] {
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT));
    const hits = this._search.search(query, this._searchOptions).map((hit) => ({
      name: hit.id as string,
      // Scores agree to ten digits whichever order the tools were added in; the rest is float noise.
      score: Number(hit.score.toPrecision(10)),
    }));
    hits.sort((a, b) => b.score - a.score || this._position.get(a.name)! - this._position.get(b.name)!);
    return hits.slice(0, limit).map((hit) => this._entries.get(hit.name)!.tool);
  }
}

/** The same indexed texts and the same schema object: then the document is the same, without building it. */
function sameSource(a: HarnessTool, b: HarnessTool): boolean {
  // Stryker disable next-line ConditionalExpression: answering "changed" only costs building and comparing the document
  return a.originalName === b.originalName && a.server === b.server && a.title === b.title && a.description === b.description && a.inputSchema === b.inputSchema;
}

function sameDocument(a: ToolDocument, b: ToolDocument): boolean {
  return FIELDS.every((field) => a[field] === b[field]);
}

function toDocument(tool: HarnessTool): ToolDocument {
  const properties = tool.inputSchema.properties;
  const params = typeof properties === 'object' && properties !== null ? Object.entries(properties as Record<string, unknown>) : [];
  return {
    id: tool.name,
    name: tool.originalName,
    title: tool.title,
    server: tool.server,
    description: tool.description,
    params: params.map(([name]) => name).join(' '),
    paramDescriptions: params.map(([, schema]) => describe(schema)).join(' '),
  };
}

function describe(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const description = (schema as { description?: unknown }).description;
  return typeof description === 'string' ? description : '';
}
