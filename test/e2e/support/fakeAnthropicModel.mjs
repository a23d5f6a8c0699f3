// A fake model on 127.0.0.1 speaking Anthropic's Messages API with streaming (server-sent events:
// message_start, content_block_start/delta/stop, message_delta, message_stop) and its model list.
// It answers every message with "Anthropic echo: <text>" and keeps every request body, so a
// scenario can tell which of two configured endpoints a message went to.
import http from 'node:http';
import { readJson } from '../../../demo/model/chatCompletionsWire.mjs';

export const FAKE_ANTHROPIC_MODEL_ID = 'fake-anthropic-model';

/** Starts it on a free loopback port; the base URL goes into `mcpHarness.chat.anthropic.baseUrl`. */
export async function startFakeAnthropicModel({ id = FAKE_ANTHROPIC_MODEL_ID } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    handle(req, res, requests, id).catch((error) => {
      if (res.headersSent) return res.end();
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: error.message } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

async function handle(req, res, requests, id) {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'GET' && path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    const model = { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' };
    return res.end(JSON.stringify({ data: [model], has_more: false, first_id: id, last_id: id }));
  }
  if (req.method !== 'POST' || path !== '/v1/messages') {
    res.writeHead(404, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `${req.method} ${path}` } }));
  }
  const body = await readJson(req);
  requests.push(body);
  const last = body.messages.at(-1);
  const text = typeof last.content === 'string' ? last.content : last.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', { message: { id: `msg_${requests.length}`, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, usage: { input_tokens: 100 + body.messages.length, output_tokens: 1 } } });
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  for (const piece of ['Anthropic echo: ', text]) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } });
  event('message_stop', {});
  res.end();
}
