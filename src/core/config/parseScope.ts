import type { JsonLocator } from './JsonLocator';
import { appendJsonPath, JsonPathSegment } from './jsonPath';
import type { McpConfigError, McpConfigSource, McpInputDefinition } from './types';

/** Where the entries being parsed live: shared by every entry of one file (or host-supplied map). */
export interface McpParseScope {
  readonly file: string;
  readonly source: McpConfigSource;
  readonly workspaceFolder?: string;
  /** Dotted path of the enclosing value, e.g. `mcpServers` or `mcpHarness.servers`. */
  readonly path: string;
  /** The same location as segments in the parsed document, for finding line/column. */
  readonly segments: readonly JsonPathSegment[];
  /** Absent when there is no text to point into (host-supplied entries). */
  readonly locator?: JsonLocator;
  /** `inputs` of the file, attached to each definition. */
  readonly inputs: readonly McpInputDefinition[];
}

/** Which part of a property a config error points at. */
export type McpErrorAnchor = 'key' | 'value';

/** Builds a config error for the value at `relative` below the scope's path. */
export function scopeError(
  scope: McpParseScope,
  relative: readonly JsonPathSegment[],
  message: string,
  options: { server?: string; anchor?: McpErrorAnchor } = {},
): McpConfigError {
  const segments = [...scope.segments, ...relative];
  const position =
    options.anchor === 'key' ? scope.locator?.keyPosition(segments) : scope.locator?.valuePosition(segments);
  return {
    file: scope.file,
    jsonPath: appendJsonPath(scope.path, ...relative),
    ...(position ? { line: position.line, column: position.column } : {}),
    message,
    ...(options.server !== undefined ? { server: options.server } : {}),
  };
}

/** A scope for the value at `relative` below `scope`. */
export function childScope(scope: McpParseScope, ...relative: readonly JsonPathSegment[]): McpParseScope {
  return { ...scope, path: appendJsonPath(scope.path, ...relative), segments: [...scope.segments, ...relative] };
}
