import { getNodeValue, ParseError, parseTree, printParseErrorCode, stripComments } from 'jsonc-parser';
import { isJsonObject, kindOf } from './configSchema';
import { JsonLocator } from './JsonLocator';
import { findExcessNesting, MAX_CONFIG_NESTING } from './jsonNesting';
import { parseInputs } from './parseInputs';
import { childScope, McpParseScope } from './parseScope';
import { parseServerMap } from './parseServerMap';
import type { McpConfigLoadResult, McpConfigSource } from './types';
import { fail, ok, type Result } from '../base/result';

const EMPTY: McpConfigLoadResult = { servers: [], errors: [] };

/** A config file's text as a JSON object, or what to return instead (a syntax error, or nothing). */
export type McpConfigDocument = Result<{ readonly document: Record<string, unknown>; readonly locator: JsonLocator }, McpConfigLoadResult>;

/**
 * Parses a config file's text into its top-level object. A syntax error is reported with its
 * 1-based line and column; an empty (or comments-only) file is no error and no document.
 */
export function readConfigDocument(text: string, file: string): McpConfigDocument {
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1); // Editors do not count a byte order mark as a column.
  }
  // Checked before parsing: the parser and the walks over its tree recurse once per level.
  const tooDeep = findExcessNesting(text);
  if (tooDeep !== undefined) {
    const message = `nested deeper than ${MAX_CONFIG_NESTING} levels of objects and arrays`;
    return fail({ servers: [], errors: [{ file, ...new JsonLocator(text, undefined).positionAt(tooDeep), message }] });
  }
  const syntaxErrors: ParseError[] = [];
  const root = parseTree(text, syntaxErrors, { allowTrailingComma: true, disallowComments: false });
  const locator = new JsonLocator(text, root);
  if (syntaxErrors.length > 0) {
    if (stripComments(text).trim() === '') {
      return fail(EMPTY); // An empty (or comments-only) file configures nothing.
    }
    // Later syntax errors are usually knock-on effects of the first.
    const first = syntaxErrors[0];
    const message = `syntax error: ${printParseErrorCode(first.error)}`;
    return fail({ servers: [], errors: [{ file, ...locator.positionAt(first.offset), message }] });
  }
  const document: unknown = root ? getNodeValue(root) : undefined;
  if (!isJsonObject(document)) {
    const message = `expected object at top level, got ${kindOf(document)}`;
    return fail({ servers: [], errors: [{ file, ...locator.positionAt(root?.offset ?? 0), message }] });
  }
  return ok({ document, locator });
}

/**
 * Parses the text of one config file. Comments and trailing commas are accepted everywhere; a
 * real syntax error is reported with its 1-based line and column and the file contributes no
 * servers, as does a file nested deeper than {@link MAX_CONFIG_NESTING} levels. Never throws for
 * content problems. Pure, so the editor can re-parse an unsaved buffer.
 *
 * @param file absolute path, used in origins and errors
 * @param source decides the top-level key: `mcpServers` for `claude`, `servers` for `vscode` and
 *   `harness`; `explicit` and `user` files use whichever of the two is present.
 * @param workspaceFolder what `${workspaceFolder}` means for entries of this file
 */
export function parseMcpConfigText(
  text: string,
  file: string,
  source: McpConfigSource,
  workspaceFolder?: string,
): McpConfigLoadResult {
  const read = readConfigDocument(text, file);
  if (!read.ok) {
    return read.error;
  }
  const { document, locator } = read.value;
  const key = serversKey(source, document);
  if (key === undefined) {
    return source === 'explicit'
      ? { servers: [], errors: [{ file, message: 'expected a "mcpServers" or "servers" object at top level' }] }
      : EMPTY;
  }
  // Stryker disable next-line ArrayDeclaration: `inputs` is replaced before any definition is made
  const top: McpParseScope = { file, source, workspaceFolder, path: '', segments: [], locator, inputs: [] };
  if (!isJsonObject(document[key])) {
    return parseServerMap(document[key], childScope(top, key)); // Only the error; the rest is ignored.
  }
  const { inputs, errors: inputErrors } = parseInputs(document.inputs, childScope(top, 'inputs'));
  const result = parseServerMap(document[key], childScope({ ...top, inputs }, key));
  return { servers: result.servers, errors: [...inputErrors, ...result.errors] };
}

function serversKey(source: McpConfigSource, document: Record<string, unknown>): string | undefined {
  switch (source) {
    case 'claude':
    case 'claude-code':
    case 'claude-desktop':
    case 'cursor':
      return document.mcpServers !== undefined ? 'mcpServers' : undefined;
    case 'vscode':
    case 'harness':
    case 'vscode-user':
      return document.servers !== undefined ? 'servers' : undefined;
    case 'explicit':
    case 'user':
    case 'extension':
      return ['mcpServers', 'servers'].find((key) => document[key] !== undefined);
  }
}
