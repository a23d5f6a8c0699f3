import type { IModelProvider } from '../types';
import { AnthropicProvider, DEFAULT_ANTHROPIC_BASE_URL } from './AnthropicProvider';
import { DEFAULT_OPENAI_BASE_URL, OpenAiCompatibleProvider } from './OpenAiCompatibleProvider';
import { resolveApiKey, type RetryOptions } from './providerSupport';

export const DEFAULT_OPENAI_MODEL = 'gpt-5.4-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';

/** What a host's settings say about an API provider; the key comes from its secret store. */
export interface ApiProviderSettings extends RetryOptions {
  readonly kind: 'openai' | 'anthropic';
  readonly baseUrl?: string;
  readonly model?: string;
  /** The key the host stored (never a setting); the environment variable is the fallback. */
  readonly storedKey?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly contextWindow?: number;
}

/**
 * Builds the provider for `settings`, resolving the key (stored, else `OPENAI_API_KEY` /
 * `ANTHROPIC_API_KEY`, else nothing needed on loopback). A missing key surfaces as an `auth`
 * error on the first request, which the host can answer with "Set API Key".
 */
export function createApiProvider(settings: ApiProviderSettings): IModelProvider {
  const { kind, storedKey, env, ...rest } = settings;
  if (kind === 'anthropic') {
    const baseUrl = settings.baseUrl || DEFAULT_ANTHROPIC_BASE_URL;
    return new AnthropicProvider({ ...rest, baseUrl, model: settings.model || DEFAULT_ANTHROPIC_MODEL, apiKey: resolveApiKey({ stored: storedKey, envVar: 'ANTHROPIC_API_KEY', baseUrl, env }) });
  }
  const baseUrl = settings.baseUrl || DEFAULT_OPENAI_BASE_URL;
  return new OpenAiCompatibleProvider({ ...rest, baseUrl, model: settings.model || DEFAULT_OPENAI_MODEL, apiKey: resolveApiKey({ stored: storedKey, envVar: 'OPENAI_API_KEY', baseUrl, env }) });
}
