import * as path from 'node:path';
import type { McpConfigError } from './types';

/**
 * Formats a config error as `<file>:<line>:<col>: <jsonPath>: <message>`, leaving out the parts
 * that are absent. With `relativeTo`, an absolute file inside that folder is shown relative to it
 * (e.g. `.mcp.json: mcpServers.github.args[1]: expected string, got number`).
 */
export function formatConfigError(e: McpConfigError, relativeTo?: string): string {
  let location = displayFile(e.file, relativeTo);
  if (e.line !== undefined) {
    location += `:${e.line}`;
    if (e.column !== undefined) {
      location += `:${e.column}`;
    }
  }
  const parts = [location, e.jsonPath, e.message].filter((part): part is string => !!part);
  return parts.join(': ');
}

function displayFile(file: string, relativeTo: string | undefined): string {
  if (!relativeTo || !path.isAbsolute(file)) {
    return file;
  }
  const relative = path.relative(relativeTo, file);
  // Outside the folder a `../../` path is harder to read than the absolute one.
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`);
  if (relative === '' || outside || path.isAbsolute(relative)) {
    return file;
  }
  return relative;
}
