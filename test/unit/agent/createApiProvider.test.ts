import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/core/agent/providers/AnthropicProvider';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, createApiProvider } from '../../../src/core/agent/providers/createApiProvider';
import { OpenAiCompatibleProvider } from '../../../src/core/agent/providers/OpenAiCompatibleProvider';
import { FakeModelServer, openAiChunk, sse } from '../../support/fakeModelServer';

describe('createApiProvider', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  beforeAll(async () => (baseUrl = await server.start()));
  afterAll(() => server.stop());

  it('builds each kind with defaults', () => {
    const openai = createApiProvider({ kind: 'openai', env: {} });
    expect(openai).toBeInstanceOf(OpenAiCompatibleProvider);
    expect((openai as OpenAiCompatibleProvider).baseUrl).toBe('https://api.openai.com/v1');
    expect(openai.label).toBe(`${DEFAULT_OPENAI_MODEL} (api.openai.com)`);
    const anthropic = createApiProvider({ kind: 'anthropic', baseUrl: '', model: '', env: {} });
    expect(anthropic).toBeInstanceOf(AnthropicProvider);
    expect(anthropic.label).toBe(`${DEFAULT_ANTHROPIC_MODEL} (api.anthropic.com)`);
  });

  it('uses the stored key over the environment one', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'a' }, 'stop')], [null, '[DONE]']]), sse([[null, openAiChunk({ content: 'b' }, 'stop')], [null, '[DONE]']]));
    const request = { system: '', messages: [{ role: 'user' as const, content: 'x' }], tools: [] };
    for await (const _ of createApiProvider({ kind: 'openai', baseUrl: `${baseUrl}/v1`, model: 'm', storedKey: 'stored', env: { OPENAI_API_KEY: 'env' } }).stream(request, new AbortController().signal));
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer stored');
    for await (const _ of createApiProvider({ kind: 'openai', baseUrl: `${baseUrl}/v1`, model: 'm', env: { OPENAI_API_KEY: 'env' } }).stream(request, new AbortController().signal));
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer env');
  });
});
