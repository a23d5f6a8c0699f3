// "Demo model (offline, scripted)": a tiny model of our own that speaks the OpenAI-compatible Chat
// Completions API on 127.0.0.1, so the chat shows its whole loop (message, tool call, permission
// card, result, answer) without a key or a network. It understands a few phrases and picks the
// matching tool from the tools the request offers; anything else gets a list of what it can do.
import http from 'node:http';
import { CompletionStream, modelList, readJson, roughTokens, sendError } from './chatCompletionsWire.mjs';

/** What the demo workspace's empty chat offers as clickable suggestions (demo/.vscode/settings.json). */
export const DEMO_SUGGESTIONS = ['echo hello world', 'add 2 and 3', 'what files are in this workspace?', 'remember that the build uses esbuild', 'what do you remember?'];

/** The model id, which is also what the chat's model picker shows. */
export const DEMO_MODEL_ID = 'Demo model (offline, scripted)';
/** The port the demo workspace's settings point at (demo/.vscode/settings.json). */
export const DEMO_MODEL_PORT = 47123;

const HELP = [
  `I am the **${DEMO_MODEL_ID}**: a scripted stand-in that runs on your machine, so you can try the chat without an API key.`,
  'I understand:',
  '- `echo hello world` (the *everything* server\'s echo tool)',
  '- `add 2 and 3` (its get-sum tool)',
  '- `what files are in this workspace?` (the *filesystem* server)',
  '- `remember that the build uses esbuild` (the *memory* server), then `what do you remember?`',
  '- `write hello to notes.txt` (the *filesystem* server: the card shows the change first)',
  '',
  'Each tool call asks for your permission first. Set `mcpHarness.chat.provider` to use a real model.',
].join('\n');

/**
 * Starts the demo model. Resolves with its base URL (`http://127.0.0.1:PORT/v1`) and `close()`.
 * `delayMs` paces the streamed words so the answer visibly streams.
 */
export function startDemoModel({ port = DEMO_MODEL_PORT, host = '127.0.0.1', delayMs = 12 } = {}) {
  const server = http.createServer((req, res) => {
    handle(req, res, delayMs).catch((error) => {
      if (!res.headersSent) sendError(res, error.status ?? 500, error.message);
      else res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({
        url: `http://${host}:${actual}/v1`,
        port: actual,
        close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
      });
    });
  });
}

async function handle(req, res, delayMs) {
  const path = new URL(req.url, 'http://localhost').pathname.replace(/\/+$/, '');
  if (req.method === 'GET' && path === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(modelList([DEMO_MODEL_ID])));
    return;
  }
  if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendError(res, 404, `no route ${req.method} ${path}`);
  const request = await readJson(req);
  if (!Array.isArray(request.messages)) return sendError(res, 400, 'messages must be an array');
  const reply = decide(request.messages, request.tools ?? []);
  const usage = { prompt_tokens: roughTokens(request.messages) + roughTokens(request.tools), completion_tokens: roughTokens(reply) };
  if (!request.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(wholeCompletion(request, reply, usage)));
    return;
  }
  const stream = new CompletionStream(res, request);
  if (reply.call) {
    if (reply.text) stream.writeText(reply.text);
    stream.writeToolCall({ id: `call_${Math.random().toString(36).slice(2, 10)}`, name: reply.call.name, args: reply.call.args });
    stream.end('tool_calls', usage);
    return;
  }
  for (const word of reply.text.split(/(?<= )/)) {
    if (stream.closed) return;
    stream.writeText(word);
    await new Promise((r) => setTimeout(r, delayMs));
  }
  stream.end('stop', usage);
}

/**
 * The script: answers the last user message, or, after tool results, reports them.
 * @returns {{ text: string, call?: { name: string, args: object } }}
 */
export function decide(messages, tools) {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return afterTools(messages, tools);
  const text = contentText(last?.content).trim();
  let m;
  if ((m = /^\s*(?:please\s+)?(?:remember|note|keep in mind)\s+(?:that\s+)?(.+)$/is.exec(text))) {
    const fact = m[1].trim().replace(/[.!]+$/, '');
    return callOrExplain(tools, /(^|__)create_entities$/, 'create_entities', () => ({
      entities: [{ name: fact.slice(0, 60), entityType: 'fact', observations: [fact] }],
    }));
  }
  if ((m = /^\s*(?:please\s+)?write\s+(.+?)\s+(?:to|into|in)\s+(?:the\s+file\s+)?([\w./-]+)\s*$/is.exec(text))) {
    const [said, file] = [m[1].replace(/^(["'])(.*)\1$/s, '$2'), m[2]];
    return callOrExplain(tools, /(^|__)write_file$/, 'write_file', () => ({ path: file, content: `${said}\n` }));
  }
  if (/what do you (remember|know)|\brecall\b|what did i (tell|ask) you|\bmemor(y|ies)\b/i.test(text)) {
    return callOrExplain(tools, /(^|__)read_graph$/, 'read_graph', () => ({}));
  }
  if (/^\s*ls\b/i.test(text) || /\b(list|show|what|which|ls)\b.*\b(files?|folders?|director(?:y|ies)|workspace|demo)\b/i.test(text)) {
    return callOrExplain(tools, /(^|__)list_allowed_directories$/, 'list_allowed_directories', () => ({}));
  }
  if ((m = /^\s*(?:please\s+|can you\s+)?(?:echo|say|repeat)\s*:?\s+(.+?)\s*$/is.exec(text))) {
    const said = m[1].replace(/^(["'])(.*)\1$/s, '$2');
    return callOrExplain(tools, /(^|__)echo$/, 'echo', (tool) => ({ [firstProperty(tool, 'string') ?? 'message']: said }));
  }
  const sum =
    /(?:add|sum|plus|what is|what's|calculate|compute)\D*?(-?\d+(?:\.\d+)?)\s*(?:and|\+|plus|,|to)?\s*(-?\d+(?:\.\d+)?)/i.exec(text) ??
    /^\s*(-?\d+(?:\.\d+)?)\s*(?:\+|plus)\s*(-?\d+(?:\.\d+)?)\s*[=?]*\s*$/i.exec(text);
  if (sum) {
    const [a, b] = [Number(sum[1]), Number(sum[2])];
    return callOrExplain(tools, /(^|__)(get-sum|add|sum)$/, 'get-sum', (tool) => {
      const [x = 'a', y = 'b'] = properties(tool, 'number');
      return { [x]: a, [y]: b };
    });
  }
  return { text: HELP };
}

/** After tool results: a follow-up call (list the allowed folder) or the answer. */
function afterTools(messages, tools) {
  const results = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === 'tool'; i--) results.unshift(messages[i]);
  const call = findCall(messages, results[0]?.tool_call_id);
  const output = results.map((r) => unwrap(contentText(r.content))).join('\n\n');
  const failed = results.some((r) => /<tool_output[^>]*error="true"/.test(contentText(r.content)));
  if (failed) return { text: `The tool call did not run or failed:\n\n> ${output.replace(/\n/g, '\n> ')}\n\nAsk again when you want me to retry.` };
  if (call && /(^|__)list_allowed_directories$/.test(call.function?.name ?? '')) {
    const dir = output.split('\n').map((l) => l.trim()).find((l) => l.startsWith('/') || /^[A-Za-z]:\\/.test(l));
    const list = tools.find((t) => /(^|__)list_directory$/.test(t.function?.name ?? ''));
    if (dir && list) return { text: '', call: { name: list.function.name, args: { path: dir } } };
  }
  if (call && /(^|__)read_graph$/.test(call.function?.name ?? '')) return { text: recalled(output) };
  const name = call?.function?.name ?? 'the tool';
  return { text: `\`${name}\` returned:\n\n\`\`\`\n${output}\n\`\`\`\n\nThat was a real MCP call, made after you allowed it.` };
}

/** The memory server's graph as a list of what it holds (or the raw output when it is not one). */
function recalled(output) {
  let graph;
  try {
    graph = JSON.parse(output);
  } catch {
    return `\`read_graph\` returned:\n\n\`\`\`\n${output}\n\`\`\`\n\nThat was a real MCP call, made after you allowed it.`;
  }
  const facts = (graph.entities ?? []).flatMap((e) => (e.observations?.length ? e.observations : [e.name]));
  if (!facts.length) return 'I do not remember anything yet. Tell me something: `remember that the build uses esbuild`.';
  return `I remember (from the *memory* server's graph):\n\n${facts.map((f) => `- ${f}`).join('\n')}`;
}

function callOrExplain(tools, pattern, label, args) {
  const tool = tools.find((t) => pattern.test(t.function?.name ?? ''));
  if (!tool) {
    return { text: `I would use the *${label}* tool, but no enabled tool has that name. Check that its server runs and that the tool is checked in the **MCP Servers** view.` };
  }
  return { text: '', call: { name: tool.function.name, args: args(tool.function) } };
}

function findCall(messages, id) {
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id === id) return c;
  return undefined;
}

function properties(fn, type) {
  const props = fn.parameters?.properties ?? {};
  return Object.keys(props).filter((k) => props[k]?.type === type || (type === 'number' && props[k]?.type === 'integer'));
}

function firstProperty(fn, type) {
  return properties(fn, type)[0];
}

/** The text between the `<tool_output>` delimiters the chat puts around tool results. */
function unwrap(text) {
  const m = /<tool_output[^>]*>\n?([\s\S]*?)\n?<\/tool_output>/.exec(text);
  return (m ? m[1] : text).trim();
}

function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : p?.text ?? '')).join('');
  return '';
}

function wholeCompletion(request, reply, usage) {
  const message = reply.call
    ? { role: 'assistant', content: reply.text || null, tool_calls: [{ id: `call_${Date.now()}`, type: 'function', function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } }] }
    : { role: 'assistant', content: reply.text };
  return {
    id: `chatcmpl-${Date.now()}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: request.model ?? DEMO_MODEL_ID,
    choices: [{ index: 0, message, finish_reason: reply.call ? 'tool_calls' : 'stop' }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

// `node demo/model/demoModel.mjs [PORT]` runs it on its own.
if (import.meta.url === `file://${process.argv[1]}`) {
  const model = await startDemoModel({ port: process.argv[2] ? Number(process.argv[2]) : DEMO_MODEL_PORT });
  console.log(`${DEMO_MODEL_ID} at ${model.url}`);
}

/**
 * For `npm start`: runs the demo model on its fixed port, or says why not (another copy may already
 * be serving it, which works as well). Resolves with a stop function.
 */
export async function startDemoModelForWorkspace(log = console.log) {
  try {
    const model = await startDemoModel();
    log(`${DEMO_MODEL_ID} answering at ${model.url} (the demo workspace's chat uses it).`);
    return model.close;
  } catch (error) {
    log(`${DEMO_MODEL_ID} not started on port ${DEMO_MODEL_PORT}: ${error.code ?? error.message}. The chat reaches it only if another copy serves that port.`);
    return async () => {};
  }
}
