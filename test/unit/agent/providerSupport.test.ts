import { describe, expect, it } from 'vitest';
import { LOOPBACK_PLACEHOLDER_KEY, abortedError, connectionError, defaultSleep, missingKeyError, hostOf, httpError, isLoopbackUrl, isRetryable, resolveApiKey, retryAfterMs, withRetries } from '../../../src/core/agent/providers/providerSupport';
import { ModelProviderError } from '../../../src/core/agent/types';

const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name] ?? null });

describe('provider support', () => {
  it('knows loopback base URLs', () => {
    for (const url of ['http://localhost:11434/v1', 'http://127.0.0.1:1234', 'http://127.3.4.5', 'http://[::1]:8080/v1', 'http://api.localhost']) expect(isLoopbackUrl(url)).toBe(true);
    for (const url of ['https://api.openai.com/v1', 'http://10.0.0.1', 'http://128.0.0.1', 'not a url', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'http://a127.0.0.1', 'http://x.localhostx']) expect(isLoopbackUrl(url)).toBe(false);
    expect(isLoopbackUrl('http://127.0.0.10:80')).toBe(true);
    expect(isLoopbackUrl('http://127.100.200.254')).toBe(true);
  });

  it('resolves the key: stored, then environment, then a loopback placeholder', () => {
    const env = { OPENAI_API_KEY: 'from-env' };
    expect(resolveApiKey({ stored: 'stored', envVar: 'OPENAI_API_KEY', baseUrl: 'https://api.openai.com', env })).toBe('stored');
    expect(resolveApiKey({ envVar: 'OPENAI_API_KEY', baseUrl: 'https://api.openai.com', env })).toBe('from-env');
    expect(resolveApiKey({ envVar: 'ANTHROPIC_API_KEY', baseUrl: 'https://api.anthropic.com', env })).toBeUndefined();
    expect(resolveApiKey({ envVar: 'ANTHROPIC_API_KEY', baseUrl: 'http://127.0.0.1:9', env })).toBe(LOOPBACK_PLACEHOLDER_KEY);
    expect(resolveApiKey({ stored: '', envVar: 'OPENAI_API_KEY', baseUrl: 'http://localhost:1', env: {} })).toBe(LOOPBACK_PLACEHOLDER_KEY);
  });

  it('reads retry-after in seconds, as a date, and retry-after-ms', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
    expect(retryAfterMs(headers({ 'retry-after-ms': '750', 'retry-after': '9' }))).toBe(750);
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': '-3' }))).toBe(0);
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it('retries 408, 429 and 5xx only', () => {
    expect([408, 429, 500, 503, 529].every(isRetryable)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryable)).toBe(false);
  });

  it('classifies HTTP failures', () => {
    expect(httpError({ status: 403, message: 'x' }, 'h', 1)).toMatchObject({ kind: 'auth', message: 'API key rejected by h' });
    expect(httpError({ status: 429, message: 'x', headers: headers({ 'retry-after': '4' }) }, 'h', 1)).toMatchObject({ kind: 'rate_limit', message: 'h is limiting requests (HTTP 429). Wait a moment and try again.', details: { retryAfterMs: 4000 } });
    expect(httpError({ status: 502, message: 'bad gateway' }, 'h', 1).message).toBe('h failed with HTTP 502: bad gateway');
    expect(httpError({ status: 422, message: 'bad' }, 'h', 1).kind).toBe('bad_request');
  });

  it('caps waits and stops retrying at the attempt bound', async () => {
    const waits: number[] = [];
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        throw { status: 503, headers: headers({ 'retry-after': '120' }), message: 'busy' };
      },
      { host: 'h', signal: new AbortController().signal, maxAttempts: 2, maxDelayMs: 10_000, sleep: async (ms) => void waits.push(ms), classify: (e) => e as never },
    ).catch((e: unknown) => e);
    expect(attempts).toBe(2);
    expect(waits).toEqual([10_000]);
    expect(error).toBeInstanceOf(ModelProviderError);
    const once = await withRetries(async () => { throw { status: 500, message: 'x' }; }, { host: 'h', signal: new AbortController().signal, maxAttempts: 0, classify: (e) => e as never }).catch((e: unknown) => e);
    expect(once).toMatchObject({ kind: 'server', message: 'h failed with HTTP 500: x' });
  });

  it('words connection, abort and missing-key errors with their host', () => {
    const nested = new Error('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    expect(connectionError('h:1', nested, false)).toMatchObject({ kind: 'connection', message: 'Could not reach h:1: connect ECONNREFUSED 127.0.0.1:9', details: { host: 'h:1' } });
    expect(connectionError('h:1', new Error('terminated'), true)).toMatchObject({ message: 'The connection to h:1 dropped before the answer was complete (terminated); the partial answer is kept.', details: { host: 'h:1' } });
    expect(connectionError('h', new Error('outer', { cause: new Error('') }), false).message).toBe('Could not reach h: outer');
    expect(connectionError('h', 'plain', false).message).toBe('Could not reach h: plain');
    expect(abortedError('h')).toMatchObject({ kind: 'aborted', message: 'Stopped.', details: { host: 'h' } });
    expect(missingKeyError('h', 'X_KEY')).toMatchObject({ kind: 'auth', message: 'No API key for h: set one (or X_KEY in the environment).', details: { host: 'h' } });
  });

  it('sleeps for real by default and stops on abort', async () => {
    await expect(defaultSleep(1, new AbortController().signal)).resolves.toBeUndefined();
    const stop = new AbortController();
    const waiting = defaultSleep(60_000, stop.signal);
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('names the host of a URL', () => {
    expect(hostOf('http://127.0.0.1:8080/v1')).toBe('127.0.0.1:8080');
    expect(hostOf('https://api.anthropic.com')).toBe('api.anthropic.com');
    expect(hostOf('nonsense')).toBe('nonsense');
  });
});
