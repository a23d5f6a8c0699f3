// A fake model on 127.0.0.1 speaking the OpenAI Chat Completions streaming format (the same chunk
// writer as the demo model). Scripted for the chat scenarios:
//   "count ..."   -> one call of the tool named *__count
//   "slow ..."    -> one call of *__slow_count
//   "notes ..."   -> one call of *__notes
//   "bulk N"      -> N parallel calls of *__count in one step
//   "twins ..."   -> two calls of *__count in one step that share one call id (a model's mistake)
//   "job N"       -> one call of *__slow_compute for N seconds (the task fixture's tool)
//   after results -> "Result: ..." with the tool outputs, or "Not run: ..." when a call failed
//   anything else -> "Echo: <text>"
// It keeps every request body, so a scenario can check what the model was sent.
import http from 'node:http';
import { CompletionStream, modelList, readJson, sendError } from '../../../demo/model/chatCompletionsWire.mjs';

export const FAKE_MODEL_ID = 'fake-e2e-model';

/** Starts it on a free loopback port; `id` is the model its list offers. */
export async function startFakeModel({ id = FAKE_MODEL_ID } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    handle(req, res, requests, id).catch((error) => (res.headersSent ? res.end() : sendError(res, 500, error.message)));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  return {
    baseUrl,
    /** The workspace settings that point the chat at it. */
    chatSettings: { 'mcpHarness.chat.provider': 'openai', 'mcpHarness.chat.openai.baseUrl': baseUrl, 'mcpHarness.chat.openai.model': id },
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

async function handle(req, res, requests, id) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'GET' && path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(modelList([id])));
  }
  if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendError(res, 404, 'not found');
  const body = await readJson(req);
  requests.push(body);
  const stream = new CompletionStream(res, body);
  const usage = { prompt_tokens: 100 + body.messages.length, completion_tokens: 7 };
  const messages = body.messages;
  const last = messages[messages.length - 1];
  const tool = (suffix) => (body.tools ?? []).map((t) => t.function.name).find((n) => n.endsWith(suffix));
  if (last.role === 'tool') {
    const results = [];
    for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--) results.unshift(messages[i]);
    const failed = results.some((r) => /error="true"/.test(r.content));
    const text = results.map((r) => /<tool_output[^>]*>\n?([\s\S]*?)\n?<\/tool_output>/.exec(r.content)?.[1] ?? r.content).join('; ');
    stream.writeText(failed ? `Not run: ${text}` : `Result: ${text}`);
    return stream.end('stop', usage);
  }
  const text = typeof last.content === 'string' ? last.content : '';
  const bulk = /^bulk (\d+)/.exec(text);
  const name = /^count/.test(text) ? tool('__count') : /^slow/.test(text) ? tool('__slow_count') : /^notes/.test(text) ? tool('__notes') : bulk ? tool('__count') : undefined;
  const job = /^job (\d+)/.exec(text);
  if (job && tool('__slow_compute')) {
    stream.writeToolCall({ id: `call_${requests.length}_job`, name: tool('__slow_compute'), args: { seconds: Number(job[1]), label: 'job' } });
    return stream.end('tool_calls', usage);
  }
  if (/^twins/.test(text) && tool('__count')) {
    for (let i = 0; i < 2; i++) stream.writeToolCall({ id: 'call_twin', name: tool('__count'), args: { note: `${text} #${i + 1}` } });
    return stream.end('tool_calls', usage);
  }
  if (name) {
    const n = bulk ? Number(bulk[1]) : 1;
    for (let i = 0; i < n; i++) stream.writeToolCall({ id: `call_${requests.length}_${i}`, name, args: { note: text } });
    return stream.end('tool_calls', usage);
  }
  stream.writeText('Echo:\n\n');
  stream.writeText(text);
  stream.end('stop', usage);
}
