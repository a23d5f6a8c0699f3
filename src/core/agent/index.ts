/** The agent: loop, tool search, direct commands and model providers. */
export type * from './types';
export { ModelProviderError } from './types';
export { McpAgent, DEFAULT_MAX_STEPS, DEFAULT_SYSTEM_PROMPT } from './McpAgent';
export type { McpAgentOptions, AgentTurnOptions, AgentTurnResult, AgentEndReason } from './McpAgent';
export { ModelToolCalls, toolMessage } from './ModelToolCalls';
export type { AgentCallTool, ToolResultMessage, ModelToolCallsOptions } from './ModelToolCalls';
export * from '../tools/search';
export { TOOL_OUTPUT_NOTE, wrapToolOutput } from './toolOutput';
export { DirectCommands, parseDirectCommand, DIRECT_COMMANDS_HELP } from './DirectCommands';
export type { DirectCommand, DirectCommandsOptions } from './DirectCommands';
export { OpenAiCompatibleProvider, DEFAULT_OPENAI_BASE_URL, toOpenAiMessages } from './providers/OpenAiCompatibleProvider';
export type { OpenAiCompatibleProviderOptions } from './providers/OpenAiCompatibleProvider';
export { AnthropicProvider, DEFAULT_ANTHROPIC_BASE_URL, toAnthropicMessages } from './providers/AnthropicProvider';
export type { AnthropicProviderOptions } from './providers/AnthropicProvider';
export { isLoopbackUrl, hostOf, resolveApiKey, retryAfterMs, LOOPBACK_PLACEHOLDER_KEY, DEFAULT_MAX_ATTEMPTS } from './providers/providerSupport';
export type { RetryOptions, SleepFn } from './providers/providerSupport';
export { createApiProvider, DEFAULT_OPENAI_MODEL, DEFAULT_ANTHROPIC_MODEL } from './providers/createApiProvider';
export type { ApiProviderSettings } from './providers/createApiProvider';
