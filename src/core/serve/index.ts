/** MCP Harness as an MCP server: its tools (and with the gateway, every configured server's) for other clients. */
export { HarnessMcpServer } from './HarnessMcpServer';
export type { HarnessMcpServerOptions, HarnessServeSession, ServeConnectionInfo } from './HarnessMcpServer';
export { ServeHttpListener, SERVE_HTTP_PATH } from './ServeHttpListener';
export type { ServeHttpOptions } from './ServeHttpListener';
export { ServeOAuth } from './ServeOAuth';
export type { ServeOAuthOptions, ServeCaller, ServeTokenRefusal } from './ServeOAuth';
export { ServeHttpSessions, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT_MS } from './ServeHttpSessions';
export { serveStdio } from './serveStdio';
export { ServeExposure, EXPOSURE_DECIDER } from './ServeExposure';
export { ServeCatalog, gatewayUri, parseGatewayUri, GATEWAY_RESOURCE_SCHEME } from './ServeCatalog';
export { serveLaunch, mcpServersEntry } from './serveLaunch';
export type { ServeLaunch } from './serveLaunch';
