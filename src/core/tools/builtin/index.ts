/** Built-in tools: files, search and shell commands confined to the workspace roots. */
export { createBuiltinTools, BUILTIN_TOOL_NAMES } from './createBuiltinTools';
export type { BuiltinToolsOptions } from './createBuiltinTools';
export type { RunCommandOptions } from './runCommand';
export { WorkspaceRoots, WorkspacePathError } from './WorkspaceRoots';
export type { WorkspacePath } from './WorkspaceRoots';
