import type { HarnessTool } from '../types';
import type { ModelToolSpec } from '../types';

/** Name of the tool the model gets instead of every schema when the enabled tools exceed the budget. */
export const SEARCH_TOOLS_NAME = 'search_tools';

export const DEFAULT_SEARCH_LIMIT = 8;

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

const SUMMARY_CHARS = 160;

/**
 * A tool's description on one line: its first line, whitespace collapsed; past 160 characters, cut
 * after the last sentence that fits (when that keeps at least 40) or else at a word, with an ellipsis.
 */
export function summarizeDescription(description: string): string {
  const line = (description.split(/\r?\n/).find((l) => l.trim()) ?? '').replace(/\s+/g, ' ').trim();
  if (!line) return '(no description)';
  if (line.length <= SUMMARY_CHARS) return line;
  const head = line.slice(0, SUMMARY_CHARS);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentenceEnd >= 40) return head.slice(0, sentenceEnd + 1);
  const wordEnd = head.lastIndexOf(' ');
  return `${(wordEnd >= 40 ? head.slice(0, wordEnd) : head.slice(0, SUMMARY_CHARS - 1)).trimEnd()}\u2026`;
}

/**
 * What `search_tools` answers: for each tool, best first, its name, its server and a one-line
 * description, then its input schema, so the model can choose before it calls.
 */
export function formatSearchResult(query: string, tools: readonly HarnessTool[]): string {
  if (tools.length === 0) return `No tool matches "${query}". Try other words.`;
  const blocks = tools.map((tool, i) => {
    const origin = tool.server === undefined ? 'built-in' : `server "${tool.server}"`;
    return `${i + 1}. ${tool.name} (${origin}): ${summarizeDescription(tool.description)}\n   input: ${JSON.stringify(tool.inputSchema)}`;
  });
  const count = tools.length === 1 ? '1 tool matches' : `${tools.length} tools match`;
  return `${count} "${query}", best first. They can be called from the next step on.\n\n${blocks.join('\n')}`;
}
