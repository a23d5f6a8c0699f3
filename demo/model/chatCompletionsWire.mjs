// The OpenAI Chat Completions streaming wire format (server side), as the real API sends it:
// `data: {chat.completion.chunk}` lines, tool calls as deltas with an index, then `data: [DONE]`.
// Shared by the offline demo model and the fake model of the end-to-end tests.

/** Reads and parses a JSON request body (up to `limit` bytes). */
export function readJson(req, limit = 10_000_000) {
  return new Promise((resolve, reject) => {
    let size = 0;
    const parts = [];
    req.on('data', (c) => {
      size += c.length;
      if (size > limit) reject(Object.assign(new Error('request body too large'), { status: 413 }));
      else parts.push(c);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        reject(Object.assign(new Error('request body is not JSON'), { status: 400 }));
      }
    });
    req.on('error', reject);
  });
}

/** Sends an OpenAI-style error object. */
export function sendError(res, status, message, type = 'invalid_request_error') {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, type, param: null, code: null } }));
}

/** `GET /v1/models` body for these model ids. */
export function modelList(ids) {
  return { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'mcp-harness' })) };
}

/**
 * A streamed completion. `write*` methods emit chunks; `end()` closes with a finish reason, the usage
 * chunk (when the request asked with `stream_options.include_usage`) and `[DONE]`.
 */
export class CompletionStream {
  #res;
  #id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  #model;
  #includeUsage;
  #started = false;
  #toolIndex = 0;
  #closed = false;

  constructor(res, request) {
    this.#res = res;
    this.#model = request.model ?? 'unknown';
    this.#includeUsage = Boolean(request.stream_options?.include_usage);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.on('close', () => { this.#closed = true; });
  }

  /** True once the client has gone (e.g. it aborted). */
  get closed() {
    return this.#closed;
  }

  writeText(text) {
    this.#chunk({ ...this.#role(), content: text }, null);
  }

  /** One tool call: its name first, then its arguments in `fragments` pieces. */
  writeToolCall({ id, name, args, fragments = 3 }) {
    const index = this.#toolIndex++;
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    this.#chunk({ ...this.#role(), tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }, null);
    const size = Math.max(1, Math.ceil(text.length / fragments));
    for (let i = 0; i < text.length; i += size) this.#chunk({ tool_calls: [{ index, function: { arguments: text.slice(i, i + size) } }] }, null);
  }

  end(finishReason, usage) {
    if (this.#closed) return;
    this.#chunk({}, finishReason);
    if (this.#includeUsage && usage) {
      this.#send({ id: this.#id, object: 'chat.completion.chunk', created: now(), model: this.#model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
    }
    this.#res.write('data: [DONE]\n\n');
    this.#res.end();
  }

  #role() {
    if (this.#started) return {};
    this.#started = true;
    return { role: 'assistant' };
  }

  #chunk(delta, finishReason) {
    this.#send({ id: this.#id, object: 'chat.completion.chunk', created: now(), model: this.#model, choices: [{ index: 0, delta, finish_reason: finishReason }] });
  }

  #send(body) {
    if (!this.#closed) this.#res.write(`data: ${JSON.stringify(body)}\n\n`);
  }
}

/** A rough token count for usage figures (four characters a token). */
export function roughTokens(value) {
  return Math.ceil(JSON.stringify(value ?? '').length / 4);
}

function now() {
  return Math.floor(Date.now() / 1000);
}
