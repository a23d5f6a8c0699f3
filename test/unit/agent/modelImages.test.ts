import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/core/agent/providers/AnthropicProvider';
import { OpenAiCompatibleProvider } from '../../../src/core/agent/providers/OpenAiCompatibleProvider';
import { estimateMessages } from '../../../src/core/agent/contextEstimate';
import type { ModelRequest } from '../../../src/core/agent/types';
import { collect, FakeModelServer, openAiChunk, sse } from '../../support/fakeModelServer';

// Images a user's message carries (attached image resources) on each provider's wire.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const request: ModelRequest = {
  system: '',
  messages: [{ role: 'user', content: 'what is this?', images: [{ mimeType: 'image/png', data: PNG }, { mimeType: 'image/tiff', data: 'AAAA' }] }],
  tools: [],
};

describe('images with a message', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  beforeAll(async () => {
    baseUrl = await server.start();
  });
  afterAll(() => server.stop());

  it('go to Chat Completions as image_url data URLs after the text', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'a dot' })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, apiKey: 'k', model: 'gpt-test', imageInput: true });
    expect((await collect(provider.stream(request, new AbortController().signal))).error).toBeUndefined();
    expect(server.requests.at(-1)!.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } },
        ],
      },
    ]);
  });

  it('go to the Messages API as base64 image blocks, only of the types it takes', async () => {
    server.enqueue(
      sse([
        ['message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }],
        ['message_stop', { type: 'message_stop' }],
      ]),
    );
    const provider = new AnthropicProvider({ baseUrl, apiKey: 'k', model: 'c' });
    expect((await collect(provider.stream(request, new AbortController().signal))).error).toBeUndefined();
    expect(server.requests.at(-1)!.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
  });

  it('are taken by Anthropic models and OpenAI\'s own endpoint; another endpoint takes them only when told', () => {
    expect(new AnthropicProvider({ model: 'c' }).imageTypes()).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
    expect(new OpenAiCompatibleProvider({ model: 'g' }).imageTypes()).toContain('image/png');
    expect(new OpenAiCompatibleProvider({ model: 'g', baseUrl: 'http://127.0.0.1:11434/v1' }).imageTypes()).toEqual([]);
    expect(new OpenAiCompatibleProvider({ model: 'g', baseUrl: 'http://127.0.0.1:11434/v1', imageInput: true }).imageTypes()).toContain('image/webp');
    expect(new OpenAiCompatibleProvider({ model: 'g', imageInput: false }).imageTypes()).toEqual([]);
  });

  it('count in the context estimate as an image, not as their base64 text', () => {
    const plain = estimateMessages([{ role: 'user', content: 'what is this?' }]);
    expect(estimateMessages(request.messages) - plain).toBe(2 * 1600);
  });
});
