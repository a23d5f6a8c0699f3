import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../../src/core/agent/providers/AnthropicProvider';
import type { ModelRequest, ModelStreamEvent } from '../../../src/core/agent/types';
import { collect, FakeModelServer, jsonError, sse } from '../../support/fakeModelServer';

const request: ModelRequest = {
  system: 'Be brief.',
  messages: [
    { role: 'user', content: 'Echo hi and add' },
    { role: 'assistant', content: 'Sure.', toolCalls: [{ id: 'toolu_0', name: 'mcp__fx__echo', arguments: '{"text":"hi"}' }, { id: 'toolu_1', name: 'mcp__fx__add', arguments: '{bad' }] },
    { role: 'tool', toolCallId: 'toolu_0', toolName: 'mcp__fx__echo', content: 'hi', isError: false },
    { role: 'tool', toolCallId: 'toolu_1', toolName: 'mcp__fx__add', content: 'bad arguments', isError: true },
    { role: 'user', content: 'Again' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'toolu_2', name: 'mcp__fx__echo', arguments: '' }] },
    { role: 'tool', toolCallId: 'toolu_2', toolName: 'mcp__fx__echo', content: '', isError: false },
    { role: 'assistant', content: 'Done.' },
  ],
  tools: [{ name: 'mcp__fx__echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
};

const messageStart = (input: number) => ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: input, output_tokens: 1 } } }] as [string, unknown];
const textBlock = (index: number, ...parts: string[]): Array<[string, unknown]> => [
  ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }],
  ...parts.map((text): [string, unknown] => ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }]),
  ['content_block_stop', { type: 'content_block_stop', index }],
];
const toolStart = (index: number, id: string, name: string): [string, unknown] => ['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } }];
const json = (index: number, partial_json: string): [string, unknown] => ['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }];
const stop = (index: number): [string, unknown] => ['content_block_stop', { type: 'content_block_stop', index }];
const messageEnd = (reason: string, output: number): Array<[string, unknown]> => [
  ['message_delta', { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: output } }],
  ['message_stop', { type: 'message_stop' }],
];

describe('AnthropicProvider against a loopback Messages server', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  let host = '';
  const sleeps: number[] = [];
  const make = (extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) =>
    new AnthropicProvider({ baseUrl, apiKey: 'sk-ant-test', model: 'claude-test', sleep: async (ms) => void sleeps.push(ms), ...extra });
  beforeAll(async () => {
    baseUrl = await server.start();
    host = new URL(baseUrl).host;
  });
  afterAll(() => server.stop());

  it('sends system, tools and tool results as Messages blocks, and parses text, tool_use fragments and usage', async () => {
    server.enqueue(
      sse([
        messageStart(250),
        ['ping', { type: 'ping' }],
        ...textBlock(0, 'Checking', ' both.'),
        toolStart(1, 'toolu_a', 'mcp__fx__echo'),
        json(1, ''),
        json(1, '{"text"'),
        json(1, ': "hi"}'),
        stop(1),
        toolStart(2, 'toolu_b', 'mcp__fx__add'),
        json(2, '{"a": 1, '),
        json(2, '"b": 2}'),
        stop(2),
        ...messageEnd('tool_use', 77),
      ]),
    );
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: 'text', delta: 'Checking' },
      { type: 'text', delta: ' both.' },
      { type: 'tool_call', call: { id: 'toolu_a', name: 'mcp__fx__echo', arguments: '{"text": "hi"}' } },
      { type: 'tool_call', call: { id: 'toolu_b', name: 'mcp__fx__add', arguments: '{"a": 1, "b": 2}' } },
      { type: 'usage', inputTokens: 250, outputTokens: 77 },
      { type: 'end', reason: 'tool_calls' },
    ]);
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    // The SDK decides the header (x-api-key or a bearer authorization); either way it carries our key.
    expect(String(sent.headers['x-api-key'] ?? sent.headers.authorization)).toContain('sk-ant-test');
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.body).toMatchObject({ model: 'claude-test', max_tokens: 8192, stream: true, system: 'Be brief.' });
    expect(sent.body.tools).toEqual([{ name: 'mcp__fx__echo', description: 'Echoes', input_schema: { type: 'object', properties: { text: { type: 'string' } } } }]);
    expect(sent.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Echo hi and add' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'toolu_0', name: 'mcp__fx__echo', input: { text: 'hi' } },
          { type: 'tool_use', id: 'toolu_1', name: 'mcp__fx__add', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_0', content: 'hi' },
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'bad arguments', is_error: true },
          { type: 'text', text: 'Again' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'mcp__fx__echo', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: '' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
  });

  it('ends with stop or length and honours model and token limits', async () => {
    server.enqueue(sse([messageStart(5), ...textBlock(0, 'Hi'), ...messageEnd('end_turn', 2)]), sse([messageStart(5), ...textBlock(0, 'Lo'), ...messageEnd('max_tokens', 9)]));
    const first = await collect(make().stream({ system: '', messages: [{ role: 'user', content: 'x' }], tools: [], model: 'claude-other', maxOutputTokens: 64 }, new AbortController().signal));
    expect(first.events).toEqual([{ type: 'text', delta: 'Hi' }, { type: 'usage', inputTokens: 5, outputTokens: 2 }, { type: 'end', reason: 'stop' }]);
    const sent = server.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: 'claude-other', max_tokens: 64 });
    expect(sent.system).toBeUndefined();
    expect(sent.tools).toBeUndefined();
    const second = await collect(make({ maxOutputTokens: 100 }).stream(request, new AbortController().signal));
    expect(second.events.at(-1)).toEqual({ type: 'end', reason: 'length' });
    expect(server.requests.at(-1)!.body.max_tokens).toBe(100);
  });

  it('takes input tokens from message_delta when given, and maps stop_sequence and other reasons', async () => {
    server.enqueue(
      sse([messageStart(5), ...textBlock(0, 'a'), ['message_delta', { type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' }, usage: { input_tokens: 6, output_tokens: 3 } }], ['message_stop', { type: 'message_stop' }]]),
      sse([messageStart(5), ...textBlock(0, 'b'), ...messageEnd('refusal', 1)]),
    );
    const first = await collect(make().stream(request, new AbortController().signal));
    expect(first.events.slice(-2)).toEqual([{ type: 'usage', inputTokens: 6, outputTokens: 3 }, { type: 'end', reason: 'stop' }]);
    const second = await collect(make().stream(request, new AbortController().signal));
    expect(second.events.at(-1)).toEqual({ type: 'end', reason: 'other' });
  });

  it('drops a trailing slash of the base URL and labels itself', () => {
    const provider = new AnthropicProvider({ baseUrl: 'http://127.0.0.1:9/', model: 'claude-x' });
    expect(provider.baseUrl).toBe('http://127.0.0.1:9');
    expect(provider.label).toBe('claude-x (127.0.0.1:9)');
    expect(new AnthropicProvider({ model: 'm', label: 'Mine' }).label).toBe('Mine');
  });

  it('keeps malformed tool input as it came', async () => {
    server.enqueue(sse([messageStart(1), toolStart(0, 'toolu_m', 'mcp__fx__echo'), json(0, '{"text": '), stop(0), ...messageEnd('tool_use', 3)]));
    const { events } = await collect(make().stream(request, new AbortController().signal));
    expect(events[0]).toEqual({ type: 'tool_call', call: { id: 'toolu_m', name: 'mcp__fx__echo', arguments: '{"text": ' } });
  });

  it('reports 401 as "API key rejected by <host>"', async () => {
    server.enqueue(jsonError(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'auth', message: `API key rejected by ${host}`, details: { host, status: 401 } });
  });

  it('retries 529 overloaded and 429 honouring retry-after, then succeeds', async () => {
    sleeps.length = 0;
    server.enqueue(
      jsonError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      jsonError(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }, { 'retry-after': '3' }),
      sse([messageStart(1), ...textBlock(0, 'ok'), ...messageEnd('end_turn', 1)]),
    );
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(events[0]).toEqual({ type: 'text', delta: 'ok' });
    expect(sleeps).toEqual([500, 3000]);
  });

  it('gives up on 500 after the bounded attempts with the API message', async () => {
    sleeps.length = 0;
    server.enqueue(...Array.from({ length: 4 }, () => jsonError(500, { type: 'error', error: { type: 'api_error', message: 'Internal error' } })));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(sleeps).toEqual([500, 1000, 2000]);
    expect(error).toMatchObject({ kind: 'server', message: `${host} failed with HTTP 500 after 4 attempts: Internal error` });
  });

  it('reports an error event inside the stream after the partial text', async () => {
    server.enqueue(sse([messageStart(1), ...textBlock(0, 'Part'), ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]]));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([{ type: 'text', delta: 'Part' }]);
    expect(error!.kind).toBe('server');
    expect(error!.message).toContain('Overloaded');
  });

  it('keeps the partial text when the connection drops mid-stream', async () => {
    server.enqueue(sse([messageStart(1), ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }], ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half' } }]], { dropAfter: true }));
    const { events, error } = await collect(make().stream(request, new AbortController().signal));
    expect(events).toEqual([{ type: 'text', delta: 'Half' }]);
    expect(error!.kind).toBe('connection');
    expect(error!.message).toContain('the partial answer is kept');
  });

  it('treats a stream without message_stop as dropped', async () => {
    server.enqueue(sse([messageStart(1), ...textBlock(0, 'cut')]));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error!.kind).toBe('connection');
  });

  it('stops on abort during a retry wait', async () => {
    const stopper = new AbortController();
    server.enqueue(jsonError(503, { type: 'error', error: { type: 'api_error', message: 'busy' } }));
    const provider = make({ sleep: async (_ms, signal) => { stopper.abort(); if (signal.aborted) throw new Error('aborted'); } });
    const { error } = await collect(provider.stream(request, stopper.signal));
    expect(error).toMatchObject({ kind: 'aborted' });
  });

  it('stops on abort mid-stream', async () => {
    const stopper = new AbortController();
    server.enqueue(sse([messageStart(1), ...textBlock(0, 'Wait')], { end: false }));
    const events: ModelStreamEvent[] = [];
    let error: unknown;
    try {
      for await (const e of make().stream(request, stopper.signal)) {
        events.push(e);
        stopper.abort();
      }
    } catch (err) {
      error = err;
    }
    expect(events).toEqual([{ type: 'text', delta: 'Wait' }]);
    expect(error).toMatchObject({ kind: 'aborted' });
    await server.closed.at(-1);
  });

  it('needs no key on loopback', async () => {
    server.enqueue(sse([messageStart(1), ...textBlock(0, 'ok'), ...messageEnd('end_turn', 1)]));
    const { error } = await collect(new AnthropicProvider({ baseUrl, model: 'm' }).stream(request, new AbortController().signal));
    expect(error).toBeUndefined();
    expect(String(server.requests.at(-1)!.headers['x-api-key'] ?? server.requests.at(-1)!.headers.authorization)).toContain('no-key-needed-on-loopback');
  });

  it('lists the endpoint\'s models for the picker', async () => {
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ data: [{ type: 'model', id: 'claude-a', display_name: 'Claude A', created_at: '2026-01-01T00:00:00Z' }, { type: 'model', id: 'claude-b', display_name: '', created_at: '2026-01-01T00:00:00Z' }], has_more: false, first_id: 'claude-a', last_id: 'claude-b' }),
      );
    });
    expect(await make().availableModels()).toEqual([{ id: 'claude-a', label: 'Claude A' }, { id: 'claude-b', label: 'claude-b' }]);
    expect(server.requests.at(-1)!.path).toMatch(/^\/v1\/models/);
  });

  it('needs a key for a remote base URL', async () => {
    const provider = new AnthropicProvider({ model: 'claude' });
    const { error } = await collect(provider.stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'auth', message: 'No API key for api.anthropic.com: set one (or ANTHROPIC_API_KEY in the environment).' });
    expect(await new AnthropicProvider({ model: 'c', contextWindow: 200_000 }).models()).toEqual([{ id: 'c', label: 'c', contextWindow: 200_000 }]);
  });
});
