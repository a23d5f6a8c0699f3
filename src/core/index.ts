/**
 * MCP Harness core: configuration, connections, tool registry. Editor-agnostic; the VS Code
 * extension and the CLI are thin shells over it.
 */
export { createHarness, McpHarness } from './McpHarness';
export type {
  HarnessOptions,
  HarnessServer,
  HarnessCallOptions,
  HarnessApplyResult,
  HarnessHookOptions,
} from './McpHarness';
export * from './hooks';
export * from './config';
export type { McpConfigDiff } from './mcp/McpServerManager';
export { McpServerManager } from './mcp/McpServerManager';
export { McpConnection } from './mcp/McpConnection';
export type { IMcpClientHandlers } from './mcp/McpClientHandlers';
export { describeReconnect, describeState, isServingState } from './mcp/McpServerSnapshot';
export type { IMcpClock, McpTransportLogSink } from './mcp/McpConnection';
export type { IMcpTransportFactory } from './mcp/McpTransportConnector';
export type { McpConnectionState, McpConnectionStateKind, McpLogEntry, McpServerSnapshot } from './mcp/McpServerSnapshot';
export { McpCallError } from './mcp/McpCallError';
export type { McpCallFailureKind } from './mcp/McpCallError';
export { ToolRegistry } from './tools/ToolRegistry';
export { formatToolResult, errorResult } from './tools/formatToolResult';
export type { BuiltinTool, HarnessTool, ToolAnnotations, ToolCallResult, ToolIdentity } from './tools/types';
export * from './calls';
export * from './skills/ServerSkills';
export * from './tasks';
export * from './skills/skillApproval';
export * from './tools/builtin';
export * from './serve';
export { Emitter, Event } from './base/event';
export { Disposable, DisposableStore, MutableDisposable, toDisposable } from './base/lifecycle';
export type { IDisposable } from './base/lifecycle';
export { HARNESS_VERSION } from './version';
export { diagnoseServer } from './diagnoseServer';
export { McpAuthRequiredError, McpScopeRequiredError } from './auth/types';
export type { IMcpAuthHost, IMcpConnectAuth, IMcpRedirectReceiver, IMcpSecretStore, IMcpServerAuth, McpConnectAuthOptions } from './auth/types';
export { McpServerAuth } from './auth/McpServerAuth';
export { McpOAuthProvider, oauthSecretKey } from './auth/McpOAuthProvider';
export { assertAllowedAuthUrl, assertBrowserUrl, isAllowedAuthUrl, McpAuthEndpointError, AUTH_REQUEST_TIMEOUT_MS, MAX_AUTH_RESPONSE_BYTES } from './auth/McpAuthFetchGuard';
export type { McpDiagnostic, DiagnoseOptions } from './diagnoseServer';
export * from './agent';
export * from './requests';
export * from './permissions';
