import type { BuiltinTool } from '../types';
import { createEditFileTool } from './editFile';
import { createGlobSearchTool } from './globSearch';
import { createGrepSearchTool } from './grepSearch';
import { createListDirectoryTool } from './listDirectory';
import { createReadFileTool } from './readFile';
import { createRunCommandTool, type RunCommandOptions } from './runCommand';
import { createWriteFileTool } from './writeFile';
import { WorkspaceRoots } from './WorkspaceRoots';

/** Options of {@link createBuiltinTools}. */
export interface BuiltinToolsOptions {
  /** Folders the tools may touch (absolute). Relative paths resolve against the first. */
  readonly roots: readonly string[];
  /** Options of `run_command`. */
  readonly runCommand?: RunCommandOptions;
}

/** Names of the built-in tools, in listing order. */
export const BUILTIN_TOOL_NAMES = ['read_file', 'list_directory', 'glob_search', 'grep_search', 'write_file', 'edit_file', 'run_command'] as const;

/**
 * The harness's own tools, confined to `roots`. Nothing is registered: a host that wants them
 * passes each to `harness.registerBuiltin`.
 */
export function createBuiltinTools(options: BuiltinToolsOptions): BuiltinTool[] {
  const roots = new WorkspaceRoots(options.roots);
  return [
    createReadFileTool(roots),
    createListDirectoryTool(roots),
    createGlobSearchTool(roots),
    createGrepSearchTool(roots),
    createWriteFileTool(roots),
    createEditFileTool(roots),
    createRunCommandTool(roots, options.runCommand),
  ];
}
