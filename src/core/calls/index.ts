/** The one pipeline every tool call, resource read and prompt goes through. */
export type * from './types';
export { CallPipeline } from './CallPipeline';
export type { CallPipelineOptions, ICallConnection } from './CallPipeline';
export { ServerRequests, ServerRequestError, checkPromptArguments } from './ServerRequests';
export type { IServerRequestPolicy, ServerRequestOptions, ServerRequestTarget } from './ServerRequests';
export { ResourceSubscriptions } from './ResourceSubscriptions';
export type { ResourceUpdate } from './ResourceSubscriptions';
export { callTimeouts, describeDenial, describeUnansweredAsk, CALLER_DECIDES, DEFAULT_TOOL_TIMEOUT_MS, DEFAULT_MAX_TOTAL_TIMEOUT_MS } from './callPolicy';
export type { CallTimeoutDefaults } from './callPolicy';
