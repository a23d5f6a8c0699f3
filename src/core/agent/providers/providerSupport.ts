import { setTimeout as delay } from 'node:timers/promises';
import { ModelProviderError } from '../types';
import { errorCauses, errorMessage } from '../../base/errors';

/** Waits `ms`, rejecting when `signal` aborts. Injected so tests need not wait. */
export type SleepFn = (ms: number, signal: AbortSignal) => Promise<void>;

export const defaultSleep: SleepFn = (ms, signal) => delay(ms, undefined, { signal });

/** Retry policy for 429 and 5xx answers. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  readonly maxAttempts?: number;
  /** First backoff when the server gives no `retry-after` (default 500 ms, doubled each time). */
  readonly baseDelayMs?: number;
  /** Longest single wait, `retry-after` included (default 30 s). */
  readonly maxDelayMs?: number;
  readonly sleep?: SleepFn;
}

export const DEFAULT_MAX_ATTEMPTS = 4;

/** What the loopback check and the placeholder key are for: local servers (Ollama, LM Studio, vLLM) need no key. */
export const LOOPBACK_PLACEHOLDER_KEY = 'no-key-needed-on-loopback';

/** Whether `url` points at this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}

/** `host[:port]` of a base URL, for messages. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The key to use: the one the host stored, else the environment variable, else a placeholder for
 * loopback base URLs; `undefined` when a key is needed and none is set.
 */
export function resolveApiKey(options: { readonly stored?: string; readonly envVar: 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY'; readonly baseUrl: string; readonly env?: Readonly<Record<string, string | undefined>> }): string | undefined {
  const fromEnv = (options.env ?? process.env)[options.envVar];
  if (options.stored) return options.stored;
  if (fromEnv) return fromEnv;
  return isLoopbackUrl(options.baseUrl) ? LOOPBACK_PLACEHOLDER_KEY : undefined;
}

/** Milliseconds a `retry-after` (seconds or an HTTP date) or `retry-after-ms` header asks for. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** An HTTP failure as both SDKs report it. */
export interface HttpFailure {
  readonly status: number;
  readonly headers?: { get(name: string): string | null };
  readonly message: string;
}

/** Whether an HTTP status is worth another attempt. */
export function isRetryable(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** The error a user sees for an HTTP failure. */
export function httpError(failure: HttpFailure, host: string, attempts: number): ModelProviderError {
  const { status } = failure;
  const details = { host, status, ...(failure.headers ? { retryAfterMs: retryAfterMs(failure.headers) } : {}) };
  if (status === 401 || status === 403) return new ModelProviderError(`API key rejected by ${host}`, 'auth', details);
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  if (status === 429) return new ModelProviderError(`${host} is limiting requests (HTTP 429)${tries}. Wait a moment and try again.`, 'rate_limit', details);
  if (status >= 500) return new ModelProviderError(`${host} failed with HTTP ${status}${tries}: ${failure.message}`, 'server', details);
  return new ModelProviderError(`${host} rejected the request (HTTP ${status}): ${failure.message}`, 'bad_request', details);
}

/**
 * Opens a stream, retrying 429 and 5xx answers with backoff that honours `retry-after`.
 * `classify` turns an SDK error into an `HttpFailure` (retryable or not) or a final error.
 */
export async function withRetries<T>(
  open: () => Promise<T>,
  options: RetryOptions & { readonly host: string; readonly signal: AbortSignal; classify(err: unknown): HttpFailure | ModelProviderError },
): Promise<T> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      const failure = options.classify(err);
      if (failure instanceof ModelProviderError) throw failure;
      if (!isRetryable(failure.status) || attempt >= maxAttempts) throw httpError(failure, options.host, attempt);
      const wait = Math.min(options.maxDelayMs ?? 30_000, retryAfterMs(failure.headers) ?? (options.baseDelayMs ?? 500) * 2 ** (attempt - 1));
      try {
        await sleep(wait, options.signal);
      } catch {
        throw abortedError(options.host);
      }
      if (options.signal.aborted) throw abortedError(options.host);
    }
  }
}

export function abortedError(host: string): ModelProviderError {
  return new ModelProviderError('Stopped.', 'aborted', { host });
}

export function connectionError(host: string, cause: unknown, midStream: boolean): ModelProviderError {
  // fetch failures put the real reason (ECONNREFUSED, a reset) one cause down.
  const reason = [...errorCauses(cause)][1]?.message || errorMessage(cause);
  return midStream
    ? new ModelProviderError(`The connection to ${host} dropped before the answer was complete (${reason}); the partial answer is kept.`, 'connection', { host })
    : new ModelProviderError(`Could not reach ${host}: ${reason}`, 'connection', { host });
}

export function missingKeyError(host: string, envVar: string): ModelProviderError {
  return new ModelProviderError(`No API key for ${host}: set one (or ${envVar} in the environment).`, 'auth', { host });
}
