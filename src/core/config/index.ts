/** Reading MCP server configuration, and resolving it into launch parameters at start time. */
export type * from './types';
export type { IMcpInputResolver, McpLaunchResolution, McpResolvedLaunch, McpVariableContext } from './launchTypes';
export { loadMcpConfig } from './loadMcpConfig';
export type { McpConfigLoadOptions, McpUserServers } from './loadMcpConfig';
export { parseMcpConfigText } from './parseMcpConfigText';
export { mergeServerDefinitions } from './mergeServerDefinitions';
export { formatConfigError } from './formatConfigError';
export { formatJsonPath } from './jsonPath';
export { resolveServerLaunch } from './resolveServerLaunch';
export { findUnsetVariables } from './findUnsetVariables';
export { parseDotenv } from './parseDotenv';
export { definitionFingerprint } from './definitionFingerprint';
export { setServerInConfigText, removeServerFromConfigText, serversKeyFor, isEditableConfigText } from './editConfigText';
export { describeLaunch, redactArgs, redactEnv, redactHeaders, redactUrl, looksSecret } from './describeDefinition';
export { splitCommandLine } from './splitCommandLine';
export { parseServeConfigText, loadServeConfig } from './parseServeConfig';
export type { McpServeConfig, McpServeConfigLoadResult, McpServeConfigParseResult, McpServeEntry, McpServeSource } from './parseServeConfig';
export { McpSecretMask, SECRET_MASK, maskUrlPasswords } from './McpSecretMask';
