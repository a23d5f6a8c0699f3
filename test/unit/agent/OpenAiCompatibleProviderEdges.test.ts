import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL } from '../../../src/core/agent/providers/createApiProvider';
import { OpenAiCompatibleProvider } from '../../../src/core/agent/providers/OpenAiCompatibleProvider';
import { withRetries } from '../../../src/core/agent/providers/providerSupport';
import type { ModelRequest } from '../../../src/core/agent/types';
import { collect, FakeModelServer, jsonError, openAiChunk, openAiUsage, sse, stopBeforeTheAnswer } from '../../support/fakeModelServer';

// Chat Completions answers that servers other than OpenAI's give: chunks without a delta or a
// function, usage before the finish, a finish reason repeated as null, errors without a message.

const request: ModelRequest = { system: '', messages: [{ role: 'user', content: 'x' }], tools: [] };
const raw = (choice: Record<string, unknown>) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, ...choice }] });

describe('OpenAiCompatibleProvider, less common answers', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  let host = '';
  const make = () => new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, apiKey: 'k', model: 'm', sleep: async () => {} });
  beforeAll(async () => {
    baseUrl = await server.start();
    host = new URL(baseUrl).host;
  });
  afterAll(() => server.stop());

  it('reads chunks without a delta, tool call parts without a function, usage before the finish, and a null finish after it', async () => {
    server.enqueue(
      sse([
        [null, raw({ finish_reason: null })],
        [null, openAiChunk({ tool_calls: [{ index: 0, id: 'call_z', type: 'function' }] })],
        [null, openAiChunk({ tool_calls: [{ index: 0, function: { name: 'mcp__fx__echo', arguments: '{}' } }] })],
        [null, openAiUsage(7, 2)],
        [null, openAiChunk({}, 'tool_calls')],
        [null, openAiChunk({}, null)],
        [null, '[DONE]'],
      ]),
    );
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'tool_call', call: { id: 'call_z', name: 'mcp__fx__echo', arguments: '{}' } },
      { type: 'usage', inputTokens: 7, outputTokens: 2 },
      { type: 'end', reason: 'tool_calls' },
    ]);
  });

  it('maps function_call to tool_calls even with no call parsed', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'hmm' }, 'function_call')], [null, '[DONE]']]));
    expect((await collect(make().stream(request, new AbortController().signal))).events.at(-1)).toEqual({ type: 'end', reason: 'tool_calls' });
  });

  it('words an error payload inside the stream, naming the host', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'Part' })], [null, { error: { message: 'The server is overloaded', type: 'server_error' } }]]));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error!.message).toBe(`${host} reported an error: The server is overloaded`);
  });

  it('uses the SDK message for an error body without a message', async () => {
    server.enqueue(jsonError(404, { error: { type: 'not_found' } }));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error!.kind).toBe('bad_request');
    expect(error!.message).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')} rejected the request \\(HTTP 404\\): 404 `));
    expect(error!.message).not.toContain('undefined');
  });

  it('stops when aborted before the answer starts', async () => {
    expect(await stopBeforeTheAnswer(server, (signal) => make().stream(request, signal))).toMatchObject({ kind: 'aborted', message: 'Stopped.' });
  });

  it('goes through the fetch it is given', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'ok' }, 'stop')], [null, '[DONE]']]));
    const used: string[] = [];
    const provider = new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, apiKey: 'k', model: 'm', fetch: (input, init) => (used.push(String(input)), fetch(input, init)) });
    expect((await collect(provider.stream(request, new AbortController().signal))).error).toBeUndefined();
    expect(used).toEqual([`${baseUrl}/v1/chat/completions`]);
  });

  it('lists at most 100 models for the picker, by id', async () => {
    const data = Array.from({ length: 101 }, (_, i) => ({ id: `m${i}`, object: 'model', created: 1, owned_by: 'me' }));
    server.enqueue((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data })));
    const models = await make().availableModels();
    expect(models).toHaveLength(100);
    expect(models.slice(0, 2)).toEqual([{ id: 'm0', label: 'm0' }, { id: 'm1', label: 'm1' }]);
    expect(server.requests.at(-1)!.path).toBe('/v1/models');
  });

  it("takes OpenAI's four image types", () => {
    expect(new OpenAiCompatibleProvider({ model: 'g' }).imageTypes()).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  });

  it('names the default models', () => {
    expect([DEFAULT_OPENAI_MODEL, DEFAULT_ANTHROPIC_MODEL]).toEqual(['gpt-5.4-mini', 'claude-sonnet-5-5']);
  });
});

describe('withRetries', () => {
  it('makes no further attempt when stopped during a wait that ignores the signal', async () => {
    const stop = new AbortController();
    let attempts = 0;
    const error = await withRetries(
      async () => {
        attempts++;
        throw { status: 503, message: 'busy' };
      },
      { host: 'h', signal: stop.signal, sleep: async () => void stop.abort(), classify: (e) => e as never },
    ).catch((e: unknown) => e);
    expect(attempts).toBe(1);
    expect(error).toMatchObject({ kind: 'aborted', message: 'Stopped.' });
  });
});
