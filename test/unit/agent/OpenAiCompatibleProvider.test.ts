import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleProvider } from '../../../src/core/agent/providers/OpenAiCompatibleProvider';
import { ModelProviderError, type ModelRequest, type ModelStreamEvent } from '../../../src/core/agent/types';
import { collect, FakeModelServer, jsonError, openAiChunk, openAiUsage, sse } from '../../support/fakeModelServer';

const request: ModelRequest = {
  system: 'Be brief.',
  messages: [
    { role: 'user', content: 'Echo hi and add 1+2' },
    { role: 'assistant', content: 'Sure.', toolCalls: [{ id: 'call_0', name: 'mcp__fx__echo', arguments: '{"text":"hi"}' }, { id: 'call_x', name: 'mcp__fx__add', arguments: '{bad' }] },
    { role: 'tool', toolCallId: 'call_0', toolName: 'mcp__fx__echo', content: '<tool_output tool="mcp__fx__echo">\nhi\n</tool_output>', isError: false },
    { role: 'tool', toolCallId: 'call_x', toolName: 'mcp__fx__add', content: 'bad arguments', isError: true },
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Again' },
  ],
  tools: [{ name: 'mcp__fx__echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
};

describe('OpenAiCompatibleProvider against a loopback Chat Completions server', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  let host = '';
  const sleeps: number[] = [];
  const make = (extra: Partial<ConstructorParameters<typeof OpenAiCompatibleProvider>[0]> = {}) =>
    new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, apiKey: 'sk-test', model: 'gpt-test', sleep: async (ms) => void sleeps.push(ms), ...extra });
  beforeAll(async () => {
    baseUrl = await server.start();
    host = new URL(baseUrl).host;
  });
  afterAll(() => server.stop());

  it('sends the system prompt, conversation and tools, and parses text, interleaved tool calls and usage', async () => {
    server.enqueue(
      sse([
        [null, openAiChunk({ role: 'assistant', content: 'Let me ' })],
        [null, openAiChunk({ content: 'check.' })],
        [null, openAiChunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'mcp__fx__echo', arguments: '' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'mcp__fx__add', arguments: '{"a":' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 0, function: { arguments: '{"te' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 1, function: { arguments: '1,"b":2}' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 0, function: { arguments: 'xt":"hi"}' } }] })],
        [null, openAiChunk({}, 'tool_calls')],
        [null, openAiUsage(120, 33)],
        [null, '[DONE]'],
      ]),
    );
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', delta: 'Let me ' },
      { type: 'text', delta: 'check.' },
      { type: 'tool_call', call: { id: 'call_a', name: 'mcp__fx__echo', arguments: '{"text":"hi"}' } },
      { type: 'tool_call', call: { id: 'call_b', name: 'mcp__fx__add', arguments: '{"a":1,"b":2}' } },
      { type: 'usage', inputTokens: 120, outputTokens: 33 },
      { type: 'end', reason: 'tool_calls' },
    ]);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Echo hi and add 1+2' },
      {
        role: 'assistant',
        content: 'Sure.',
        tool_calls: [
          { id: 'call_0', type: 'function', function: { name: 'mcp__fx__echo', arguments: '{"text":"hi"}' } },
          { id: 'call_x', type: 'function', function: { name: 'mcp__fx__add', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_0', content: '<tool_output tool="mcp__fx__echo">\nhi\n</tool_output>' },
      { role: 'tool', tool_call_id: 'call_x', content: 'bad arguments' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'Again' },
    ]);
    expect(sent.body.tools).toEqual([{ type: 'function', function: { name: 'mcp__fx__echo', description: 'Echoes', parameters: { type: 'object', properties: { text: { type: 'string' } } } } }]);
  });

  it('ends with stop or length, sends no tools when there are none, and honours model and token limits', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'Hi' }, 'stop')], [null, '[DONE]']]), sse([[null, openAiChunk({ content: 'Long' }, 'length')], [null, '[DONE]']]));
    const first = await collect(make().stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: [], model: 'other-model', maxOutputTokens: 50 }, new AbortController().signal));
    expect(first.events).toEqual([{ type: 'text', delta: 'Hi' }, { type: 'end', reason: 'stop' }]);
    const sent = server.requests.at(-1)!.body;
    expect(sent.tools).toBeUndefined();
    expect(sent.model).toBe('other-model');
    expect(sent.max_completion_tokens).toBe(50);
    expect(sent.messages).toEqual([{ role: 'user', content: 'x' }]);
    const second = await collect(make().stream(request, new AbortController().signal));
    expect(second.events.at(-1)).toEqual({ type: 'end', reason: 'length' });
  });

  it('keeps malformed tool arguments as they came, for the loop to answer', async () => {
    server.enqueue(sse([[null, openAiChunk({ tool_calls: [{ index: 0, id: 'call_m', type: 'function', function: { name: 'mcp__fx__echo', arguments: '{"text": "unterminated' } }] })], [null, openAiChunk({}, 'tool_calls')], [null, '[DONE]']]));
    const { events } = await collect(make().stream(request, new AbortController().signal));
    expect(events[0]).toEqual({ type: 'tool_call', call: { id: 'call_m', name: 'mcp__fx__echo', arguments: '{"text": "unterminated' } });
  });

  it('joins split names, ignores repeated ones, names calls without an id, and maps other finish reasons', async () => {
    server.enqueue(
      sse([
        [null, openAiChunk({ tool_calls: [{ index: 0, type: 'function', function: { name: 'mcp__fx__', arguments: '{}' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 0, function: { name: 'echo' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 1, id: 'call_r', function: { name: 'mcp__fx__add', arguments: '{"a":' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 1, function: { name: 'mcp__fx__add', arguments: '1}' } }] })],
        [null, openAiChunk({}, 'stop')],
        [null, '[DONE]'],
      ]),
      sse([[null, openAiChunk({ content: 'x' }, 'content_filter')], [null, '[DONE]']]),
    );
    const { events } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([
      { type: 'tool_call', call: { id: 'call_0', name: 'mcp__fx__echo', arguments: '{}' } },
      { type: 'tool_call', call: { id: 'call_r', name: 'mcp__fx__add', arguments: '{"a":1}' } },
      { type: 'end', reason: 'tool_calls' },
    ]);
    const filtered = await collect(make().stream(request, new AbortController().signal));
    expect(filtered.events.at(-1)).toEqual({ type: 'end', reason: 'other' });
  });

  it('orders calls by index whatever order their fragments come in, and maps function_call', async () => {
    server.enqueue(
      sse([
        [null, openAiChunk({ tool_calls: [{ index: 2, id: 'call_c', type: 'function', function: { name: 'mcp__fx__c', arguments: '{}' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'mcp__fx__a', arguments: '{}' } }] })],
        [null, openAiChunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'mcp__fx__b', arguments: '{}' } }] })],
        [null, openAiChunk({}, 'function_call')],
        [null, '[DONE]'],
      ]),
    );
    const { events } = await collect(make().stream(request, new AbortController().signal));
    expect(events.map((e) => (e.type === 'tool_call' ? e.call.id : e.type))).toEqual(['call_a', 'call_b', 'call_c', 'end']);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'tool_calls' });
  });

  it('drops a trailing slash of the base URL and labels itself', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'ok' }, 'stop')], [null, '[DONE]']]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1///`, apiKey: 'k', model: 'm', label: 'Local', contextWindow: 8000 });
    expect(provider.baseUrl).toBe(`${baseUrl}/v1`);
    expect(provider.label).toBe('Local');
    expect(await provider.models()).toEqual([{ id: 'm', label: 'm', contextWindow: 8000 }]);
    await collect(provider.stream(request, new AbortController().signal));
    expect(server.requests.at(-1)!.path).toBe('/v1/chat/completions');
  });

  it('caps a long retry-after at 30 s by default', async () => {
    sleeps.length = 0;
    server.enqueue(jsonError(503, { error: { message: 'later' } }, { 'retry-after': '3600' }), sse([[null, openAiChunk({ content: 'ok' }, 'stop')], [null, '[DONE]']]));
    await collect(make().stream(request, new AbortController().signal));
    expect(sleeps).toEqual([30_000]);
  });

  it('stops when aborted during a wait that ignores the signal', async () => {
    const stopper = new AbortController();
    server.enqueue(jsonError(500, { error: { message: 'x' } }));
    const before = server.requests.length;
    const { error } = await collect(make({ sleep: async () => void stopper.abort() }).stream(request, stopper.signal));
    expect(error).toMatchObject({ kind: 'aborted' });
    expect(server.requests.length - before).toBe(1);
  });

  it('reports 401 and 403 as "API key rejected by <host>" without retrying', async () => {
    for (const status of [401, 403]) {
      server.enqueue(jsonError(status, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
      const before = server.requests.length;
      const { error } = await collect(make().stream(request, new AbortController().signal));
      expect(error).toBeInstanceOf(ModelProviderError);
      expect(error!.kind).toBe('auth');
      expect(error!.message).toBe(`API key rejected by ${host}`);
      expect(error!.details).toMatchObject({ host, status });
      expect(server.requests.length - before).toBe(1);
    }
  });

  it('retries 429 after the retry-after it was given, then succeeds', async () => {
    sleeps.length = 0;
    server.enqueue(jsonError(429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '2' }), sse([[null, openAiChunk({ content: 'ok' }, 'stop')], [null, '[DONE]']]));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events[0]).toEqual({ type: 'text', delta: 'ok' });
    expect(sleeps).toEqual([2000]);
  });

  it('gives up on 5xx after the bounded attempts with backoff, with a clear error', async () => {
    sleeps.length = 0;
    const before = server.requests.length;
    server.enqueue(...Array.from({ length: 3 }, () => jsonError(500, { error: { message: 'upstream broke' } })));
    const { error } = await collect(make({ maxAttempts: 3 }).stream(request, new AbortController().signal));
    expect(server.requests.length - before).toBe(3);
    expect(sleeps).toEqual([500, 1000]);
    expect(error!.kind).toBe('server');
    expect(error!.message).toBe(`${host} failed with HTTP 500 after 3 attempts: upstream broke`);
  });

  it('reports a lasting 429 as rate_limit, honouring retry-after-ms', async () => {
    sleeps.length = 0;
    server.enqueue(jsonError(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1500' }), jsonError(429, { error: { message: 'slow down' } }, { 'retry-after-ms': '1500' }));
    const { error } = await collect(make({ maxAttempts: 2 }).stream(request, new AbortController().signal));
    expect(sleeps).toEqual([1500]);
    expect(error).toMatchObject({ kind: 'rate_limit', message: `${host} is limiting requests (HTTP 429) after 2 attempts. Wait a moment and try again.` });
  });

  it('reports other 4xx as bad_request with the API message', async () => {
    server.enqueue(jsonError(404, { error: { message: 'The model `nope` does not exist' } }));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'bad_request', message: `${host} rejected the request (HTTP 404): The model \`nope\` does not exist` });
  });

  it('keeps the partial text and reports a connection dropped mid-stream', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'Half an ' })], [null, openAiChunk({ content: 'answer' })]], { dropAfter: true }));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([{ type: 'text', delta: 'Half an ' }, { type: 'text', delta: 'answer' }]);
    expect(error!.kind).toBe('connection');
    expect(error!.message).toContain(`The connection to ${host} dropped before the answer was complete`);
  });

  it('treats a stream that ends without a finish reason as dropped', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'cut' })]]));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([{ type: 'text', delta: 'cut' }]);
    expect(error!.kind).toBe('connection');
    expect(error!.message).toBe(`The connection to ${host} dropped before the answer was complete (the stream ended without a finish reason); the partial answer is kept.`);
  });

  it('reports an error payload inside the stream after the partial text', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'Part' })], [null, { error: { message: 'The server is overloaded', type: 'server_error' } }]]));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([{ type: 'text', delta: 'Part' }]);
    expect(error).toMatchObject({ kind: 'server', details: { host } });
    expect(error!.message).toContain(host);
  });

  it('says tool_calls when the server says so, even with no call parsed', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'hmm' }, 'tool_calls')], [null, '[DONE]']]));
    const { events } = await collect(make().stream(request, new AbortController().signal));
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'tool_calls' });
  });

  it('stops promptly on abort and closes the request', async () => {
    const stop = new AbortController();
    server.enqueue(sse([[null, openAiChunk({ content: 'Wait' })]], { end: false }));
    const stream = make().stream(request, stop.signal);
    const events: ModelStreamEvent[] = [];
    let error: unknown;
    try {
      for await (const e of stream) {
        events.push(e);
        stop.abort();
      }
    } catch (err) {
      error = err;
    }
    expect(events).toEqual([{ type: 'text', delta: 'Wait' }]);
    expect(error).toMatchObject({ kind: 'aborted' });
    await server.closed.at(-1);
  });

  it('cannot reach a closed port: a connection error, not retried', async () => {
    const dead = new FakeModelServer();
    const url = await dead.start();
    await dead.stop();
    const { error } = await collect(new OpenAiCompatibleProvider({ baseUrl: url, apiKey: 'k', model: 'm' }).stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'connection' });
    expect(error!.message).toMatch(new RegExp(`^Could not reach ${new URL(url).host.replace('.', '\\.')}: `));
  });

  it('needs no key on loopback: it sends a placeholder', async () => {
    server.enqueue(sse([[null, openAiChunk({ content: 'ok' }, 'stop')], [null, '[DONE]']]));
    const { error } = await collect(new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, model: 'm' }).stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer no-key-needed-on-loopback');
  });

  it('needs a key for a remote base URL and says which', async () => {
    const provider = new OpenAiCompatibleProvider({ baseUrl: 'https://api.openai.com/v1', model: 'gpt' });
    const { error } = await collect(provider.stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'auth', message: 'No API key for api.openai.com: set one (or OPENAI_API_KEY in the environment).' });
    expect(provider.label).toBe('gpt (api.openai.com)');
    expect(await provider.models()).toEqual([{ id: 'gpt', label: 'gpt' }]);
  });
});
