import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider, toAnthropicMessages } from '../../../src/core/agent/providers/AnthropicProvider';
import { createApiProvider } from '../../../src/core/agent/providers/createApiProvider';
import type { ModelRequest } from '../../../src/core/agent/types';
import { collect, FakeModelServer, jsonError, sse, stopBeforeTheAnswer } from '../../support/fakeModelServer';

// The Messages API's less common answers: usage given in part or not at all, errors without the
// usual body, a closed port, an abort before the answer starts, and what the conversation sends.

const request: ModelRequest = { system: '', messages: [{ role: 'user', content: 'x' }], tools: [] };
const start = (usage?: Record<string, number>): [string, unknown] => ['message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, ...(usage ? { usage } : {}) } }];
const text = (t: string): Array<[string, unknown]> => [
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
];
const end = (usage?: Record<string, number>): Array<[string, unknown]> => [
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, ...(usage ? { usage } : {}) }],
  ['message_stop', { type: 'message_stop' }],
];

describe('AnthropicProvider, less common answers', () => {
  const server = new FakeModelServer();
  let baseUrl = '';
  let host = '';
  const make = () => new AnthropicProvider({ baseUrl, apiKey: 'k', model: 'c', sleep: async () => {} });
  beforeAll(async () => {
    baseUrl = await server.start();
    host = new URL(baseUrl).host;
  });
  afterAll(() => server.stop());

  it('reports usage with only the counts it was given, and none when given none', async () => {
    server.enqueue(sse([start({ input_tokens: 5 }), ...text('a'), ...end()]), sse([start({ output_tokens: 3 }), ...text('b'), ...end()]), sse([start(), ...text('c'), ...end()]));
    const inputOnly = await collect(make().stream(request, new AbortController().signal));
    expect(inputOnly.events.slice(1)).toEqual([{ type: 'usage', inputTokens: 5, outputTokens: undefined }, { type: 'end', reason: 'stop' }]);
    const outputOnly = await collect(make().stream(request, new AbortController().signal));
    expect(outputOnly.events.slice(1)).toEqual([{ type: 'usage', inputTokens: undefined, outputTokens: 3 }, { type: 'end', reason: 'stop' }]);
    const none = await collect(make().stream(request, new AbortController().signal));
    expect(none).toEqual({ events: [{ type: 'text', delta: 'c' }, { type: 'end', reason: 'stop' }] });
  });

  it('says why a stream without message_stop counts as dropped', async () => {
    server.enqueue(sse([start({ input_tokens: 1 }), ...text('cut')]));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error!.message).toBe(`The connection to ${host} dropped before the answer was complete (the stream ended before message_stop); the partial answer is kept.`);
  });

  it('words an error event inside the stream, naming the host', async () => {
    server.enqueue(sse([start({ input_tokens: 1 }), ...text('Part'), ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]]));
    const { error } = await collect(make().stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'server', message: `${host} reported an error mid-answer: Overloaded`, details: { host } });
  });

  it('takes the message of an error body without an error object, and the SDK message of one without any', async () => {
    server.enqueue(jsonError(404, { message: 'no such model' }), jsonError(404, { error: { type: 'not_found_error' } }));
    const flat = await collect(make().stream(request, new AbortController().signal));
    expect(flat.error).toMatchObject({ kind: 'bad_request', message: `${host} rejected the request (HTTP 404): no such model` });
    const bare = await collect(make().stream(request, new AbortController().signal));
    expect(bare.error!.message).toMatch(new RegExp(`^${host.replace(/\./g, '\\.')} rejected the request \\(HTTP 404\\): 404 `));
  });

  it('cannot reach a closed port: a connection error', async () => {
    const dead = new FakeModelServer();
    const url = await dead.start();
    await dead.stop();
    const { error } = await collect(new AnthropicProvider({ baseUrl: url, apiKey: 'k', model: 'm' }).stream(request, new AbortController().signal));
    expect(error).toMatchObject({ kind: 'connection' });
    expect(error!.message.startsWith(`Could not reach ${new URL(url).host}: `)).toBe(true);
  });

  it('stops when aborted before the answer starts', async () => {
    expect(await stopBeforeTheAnswer(server, (signal) => make().stream(request, signal))).toMatchObject({ kind: 'aborted', message: 'Stopped.' });
  });

  it('goes through the fetch it is given, and drops every trailing slash of the base URL', async () => {
    server.enqueue(sse([start({ input_tokens: 1 }), ...text('ok'), ...end()]));
    const used: string[] = [];
    const provider = new AnthropicProvider({ baseUrl: `${baseUrl}///`, apiKey: 'k', model: 'c', fetch: (input, init) => (used.push(String(input)), fetch(input, init)) });
    expect(provider.baseUrl).toBe(baseUrl);
    expect((await collect(provider.stream(request, new AbortController().signal))).error).toBeUndefined();
    expect(used).toEqual([`${baseUrl}/v1/messages`]);
  });

  it('lists at most 100 models for the picker', async () => {
    const data = Array.from({ length: 101 }, (_, i) => ({ type: 'model', id: `m${i}`, display_name: `M ${i}`, created_at: '2026-01-01T00:00:00Z' }));
    server.enqueue((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data, has_more: false, first_id: 'm0', last_id: 'm100' })));
    const models = await make().availableModels();
    expect(models).toHaveLength(100);
    expect(models.at(-1)).toEqual({ id: 'm99', label: 'M 99' });
  });

  it('built by createApiProvider, sends the ANTHROPIC_API_KEY of the environment it is given', async () => {
    server.enqueue(sse([start({ input_tokens: 1 }), ...text('ok'), ...end()]));
    await collect(createApiProvider({ kind: 'anthropic', baseUrl, model: 'c', env: { ANTHROPIC_API_KEY: 'env-key' } }).stream(request, new AbortController().signal));
    const headers = server.requests.at(-1)!.headers;
    expect(String(headers['x-api-key'] ?? headers.authorization)).toContain('env-key');
  });
});

describe('toAnthropicMessages', () => {
  it('sends tool input that is no JSON object as an empty object', () => {
    const calls = ['null', '[1,2]', '5', '"s"', '{"a":1}'].map((args, i) => ({ id: `t${i}`, name: 'mcp__fx__echo', arguments: args }));
    const [assistant] = toAnthropicMessages([{ role: 'assistant', content: '', toolCalls: calls }]);
    expect((assistant!.content as Array<{ input: unknown }>).map((b) => b.input)).toEqual([{}, {}, {}, {}, { a: 1 }]);
  });

  it('sends no message for a turn with nothing in it', () => {
    expect(toAnthropicMessages([{ role: 'user', content: '' }, { role: 'assistant', content: '' }, { role: 'user', content: 'hi' }])).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });
});
