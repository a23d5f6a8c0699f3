import { applyEdits, modify, parseTree, type FormattingOptions, type ParseError } from 'jsonc-parser';
import { findExcessNesting, MAX_CONFIG_NESTING } from './jsonNesting';
import type { McpConfigSource } from './types';

/** The key that holds the server map in each file format. */
export function serversKeyFor(source: McpConfigSource): 'mcpServers' | 'servers' {
  return source === 'claude' || source === 'claude-code' || source === 'claude-desktop' || source === 'cursor' ? 'mcpServers' : 'servers';
}

/**
 * Adds (or replaces) one server entry in a config file's text, keeping its comments and
 * formatting. An empty text becomes a new file.
 * @throws Error when the text is nested too deep to edit (see {@link isEditableConfigText}).
 */
export function setServerInConfigText(text: string, source: McpConfigSource, name: string, entry: Record<string, unknown>): string {
  assertNotTooDeep(text);
  const base = text.trim() === '' ? '{}' : text;
  const key = serversKeyFor(source);
  const edits = modify(base, [key, name], entry, { formattingOptions: detectFormatting(base) });
  const result = applyEdits(base, edits);
  return text.trim() === '' && !result.endsWith('\n') ? result + '\n' : result;
}

/**
 * Removes one server entry, keeping everything else as it was. Unknown names leave the text unchanged.
 * @throws Error when the text is nested too deep to edit.
 */
export function removeServerFromConfigText(text: string, source: McpConfigSource, name: string): string {
  assertNotTooDeep(text);
  const edits = modify(text, [serversKeyFor(source), name], undefined, { formattingOptions: detectFormatting(text) });
  return applyEdits(text, edits);
}

/** The editing parser recurses once per level: refuse what would exhaust the stack. */
function assertNotTooDeep(text: string): void {
  if (findExcessNesting(text) !== undefined) {
    throw new Error(`cannot edit a config nested deeper than ${MAX_CONFIG_NESTING} levels`);
  }
}

/** Indentation and line endings as the file already uses them (defaults: two spaces, \n). */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text)?.[1];
  if (indented?.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  const size = indented ? Math.min(indented.length, 8) : 2;
  return { insertSpaces: true, tabSize: size, eol };
}

/**
 * Whether the text parses as a JSON object (comments and trailing commas allowed) that the edit
 * functions above can safely work on (not nested too deep for the recursive parser).
 */
export function isEditableConfigText(text: string): boolean {
  if (text.trim() === '') return true;
  if (findExcessNesting(text) !== undefined) return false;
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true });
  return errors.length === 0 && tree?.type === 'object';
}
