/** What servers ask of the host: elicitation (forms, pages) and sampling, bounded and checked. */
export { ServerAsks, SAMPLING_REJECTED_CODE, DEFAULT_ASK_TIMEOUT_MS } from './ServerAsks';
export type { ServerAsksOptions, SamplingModel } from './ServerAsks';
export { ServerAskQueue, ServerAskRefused, DEFAULT_MAX_PENDING_PER_SERVER } from './ServerAskQueue';
export { parseElicitationForm, validateElicitationValues, parseFieldInput } from './elicitationForm';
export type { ElicitField, ElicitForm, ElicitOption, ElicitValue } from './elicitationForm';
export { clientCapabilities } from './clientCapabilities';
export * from './types';
export { UrlElicitationRetry, requiredPages, URL_ELICITATION_REQUIRED } from './UrlElicitationRetry';
export type { IRequiredPages } from './UrlElicitationRetry';
