#!/usr/bin/env node
// Agent figures from the built library (dist/core.js): schema tokens per model request with and
// without tool search for 500 tools from 20 servers (counted with gpt-tokenizer, o200k_base), and
// the loop's own latency against a real MCP server and a loopback fake model that speaks the
// Chat Completions streaming format: model's finished tool call -> tools/call on the wire, and
// MCP result -> next model request. Then, through the real loop and a scripted model on
// loopback: the tool schemas each request carries with 500 tools (before and after one
// search_tools call), and a 1 MiB result from a real stdio server: the tokens each request sends,
// and whether the model reaches a line near its end through read_result.
//
//   node bench/agent.mjs [--turns=N] [--json]
//
// Prints figures and, as its last line, one JSON object. A measurement, not a test: exit 0 either way.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer';

const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const argv = process.argv.slice(2);
const jsonOnly = argv.includes('--json');
const TURNS = Number(argv.find((a) => a.startsWith('--turns='))?.split('=')[1] ?? 200);
const COUNTING = fileURLToPath(new URL('../test/fixtures/servers/counting.mjs', import.meta.url));
const print = (line) => jsonOnly || console.log(line);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const r3 = (x) => Math.round(x * 1000) / 1000;

// ---- 1. Schema tokens: 500 tools from 20 servers ----
const verbs = ['list', 'get', 'create', 'update', 'delete', 'search', 'read', 'write', 'sync', 'export', 'import', 'archive', 'restore', 'validate', 'render', 'query', 'move', 'copy', 'tag', 'share', 'lock', 'merge', 'review', 'deploy', 'watch'];
const nouns = ['issues', 'pull_requests', 'files', 'folders', 'pages', 'users', 'teams', 'projects', 'events', 'tickets', 'messages', 'channels', 'records', 'tables', 'buckets', 'objects', 'builds', 'releases', 'branches', 'comments'];
const params = ['id', 'name', 'path', 'query', 'limit', 'cursor', 'owner', 'repo', 'state', 'labels', 'assignee', 'since', 'until', 'format', 'recursive', 'dry_run', 'body', 'title', 'tags', 'visibility'];
function syntheticTools() {
  const tools = [];
  for (let s = 0; s < 20; s++) {
    for (let i = 0; i < 25; i++) {
      const verb = verbs[i];
      const noun = nouns[(s + i) % nouns.length];
      const count = 2 + ((s * 7 + i) % 5);
      const properties = {};
      for (let p = 0; p < count; p++) {
        const name = params[(s * 3 + i + p * 5) % params.length];
        properties[name] = { type: p % 3 === 0 ? 'integer' : 'string', description: `The ${name.replace('_', ' ')} of the ${noun.replace('_', ' ')} to ${verb}.` };
      }
      tools.push({
        name: `mcp__service${s}__${verb}_${noun}`,
        server: `service${s}`,
        originalName: `${verb}_${noun}`,
        description: `${verb[0].toUpperCase()}${verb.slice(1)}s ${noun.replace('_', ' ')} in service ${s}. Returns JSON with the affected ${noun.replace('_', ' ')} and a cursor when there are more.`,
        inputSchema: { type: 'object', properties, required: [Object.keys(properties)[0]] },
      });
    }
  }
  return tools;
}
/** Tokens of a tool list as a Chat Completions request carries it. */
const toolTokens = (specs) => countTokens(JSON.stringify(specs.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } }))));

const tools = syntheticTools();
const allSpecs = tools.map(core.toModelToolSpec);
const without = toolTokens(allSpecs);
const searchOnly = toolTokens([core.SEARCH_TOOLS_SPEC]);
const found = new core.ToolSearchIndex(tools).search('create issues', { limit: core.DEFAULT_SEARCH_LIMIT });
const withFound = toolTokens([core.SEARCH_TOOLS_SPEC, ...found.map(core.toModelToolSpec)]);
const estimate = core.estimateSchemaTokens(tools);
print(`schema tokens per request, 500 tools / 20 servers (gpt-tokenizer o200k_base):`);
print(`  without tool search           ${without}`);
print(`  with tool search, first step  ${searchOnly}   (search_tools only)`);
print(`  with tool search, after a hit ${withFound}   (search_tools + ${found.length} found tools)`);
print(`  the loop's cheap estimate of all schemas: ${estimate} (chars/4)`);

// ---- 2. Loop latency with a real server and a loopback fake model ----
const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const marks = { modelDone: 0, wireOut: 0, resultIn: 0, nextRequest: 0 };
let step = 0;
const modelServer = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (step % 2 === 1) marks.nextRequest = performance.now();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (step++ % 2 === 0) {
      res.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: `call_${step}`, type: 'function', function: { name: 'mcp__count__echo', arguments: '' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"text":"hi"}' } }] }));
      marks.modelDone = performance.now();
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    } else {
      res.end(`${chunk({ role: 'assistant', content: 'ok' }, 'stop')}data: [DONE]\n\n`);
    }
  });
});
await new Promise((r) => modelServer.listen(0, '127.0.0.1', r));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-bench-agent-'));
fs.writeFileSync(path.join(tmp, '.mcp.json'), JSON.stringify({ mcpServers: { count: { command: process.execPath, args: [COUNTING, `--count-file=${path.join(tmp, 'calls.log')}`] } } }));
const harness = await core.createHarness({ workspaceFolder: tmp, traceEnabled: () => true });
harness.onDidLog((entry) => {
  if (entry.level !== 'trace') return;
  if (entry.message.startsWith('→') && entry.message.includes('"method":"tools/call"')) marks.wireOut = performance.now();
  else if (entry.message.startsWith('←') && entry.message.includes('"result"') && entry.message.includes('"content"')) marks.resultIn = performance.now();
});
const provider = new core.OpenAiCompatibleProvider({ baseUrl: `http://127.0.0.1:${modelServer.address().port}/v1`, apiKey: core.LOOPBACK_PLACEHOLDER_KEY, model: 'fake' });
const gate = new core.PermissionGate({ prompter: { ask: async () => ({ choice: 'deny' }) }, rules: () => ({ allow: ['mcp__count__*'] }) });
const agent = new core.McpAgent({ tools: () => harness.tools(), call: (request, options) => harness.call(request, options), provider, gate });
const toWire = [];
const toModel = [];
try {
  for (let i = 0; i < TURNS + 10; i++) {
    const result = await agent.runTurn([], 'echo hi', { signal: new AbortController().signal });
    if (result.reason !== 'done') throw new Error(`turn ended with ${result.reason}`);
    if (i < 10) continue; // warm-up
    toWire.push(marks.wireOut - marks.modelDone);
    toModel.push(marks.nextRequest - marks.resultIn);
  }
} finally {
  await harness.dispose();
  modelServer.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
// ---- 3. Through the loop: schema tokens per request with 500 tools, one search ----
/** The scripted model: each request gets the next step; a step sees the request body. */
const script = [];
const seen = [];
const scripted = http.createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => (raw += c));
  req.on('end', () => {
    const body = JSON.parse(raw);
    seen.push(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const step = script.shift();
    const out = step ? step(body) : { text: 'done' };
    if (out.call) {
      res.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: `call_${seen.length}`, type: 'function', function: { name: out.call[0], arguments: JSON.stringify(out.call[1]) } }] }));
      res.end(`${chunk({}, 'tool_calls')}data: [DONE]\n\n`);
    } else res.end(`${chunk({ role: 'assistant', content: out.text }, 'stop')}data: [DONE]\n\n`);
  });
});
await new Promise((r) => scripted.listen(0, '127.0.0.1', r));
const scriptedProvider = new core.OpenAiCompatibleProvider({ baseUrl: `http://127.0.0.1:${scripted.address().port}/v1`, apiKey: core.LOOPBACK_PLACEHOLDER_KEY, model: 'fake', maxAttempts: 1 });
const allowAll = { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
const harnessTools = tools.map((t) => ({ ...t, pin: 'bench' }));
const searchAgent = new core.McpAgent({ tools: () => harnessTools, call: async () => { throw new Error('not called'); }, provider: scriptedProvider, gate: allowAll });
script.push(() => ({ call: ['search_tools', { query: 'create issues' }] }), () => ({ text: 'found them' }));
seen.length = 0;
await searchAgent.runTurn([], 'open an issue', { signal: new AbortController().signal });
const loopSchemaTokens = seen.map((b) => countTokens(JSON.stringify(b.tools ?? [])));
print(`schema tokens per request through the loop, 500 tools (the request's "tools" field, o200k_base):`);
print(`  request 1 (search_tools only)               ${loopSchemaTokens[0]}`);
print(`  request 2 (after one search: + ${seen[1].tools.length - 1} found tools) ${loopSchemaTokens[1]}   (target <= 3,000)`);

// ---- 4. A 1 MiB tool result: what the model is sent, and reaching a line near its end ----
const bigTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-bench-big-'));
const BIG = fileURLToPath(new URL('../test/fixtures/servers/bigResult.mjs', import.meta.url));
fs.writeFileSync(path.join(bigTmp, '.mcp.json'), JSON.stringify({ mcpServers: { big: { command: process.execPath, args: [BIG] } } }));
const bigHarness = await core.createHarness({ workspaceFolder: bigTmp });
const results = new core.DiskToolResultStore(path.join(bigTmp, 'results'));
let reached = false;
let handle = '';
let fullTokens = 0;
const lastTool = (body) => body.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '';
try {
  const bigAgent = new core.McpAgent({ tools: () => bigHarness.tools(), call: (r, o) => bigHarness.call(r, o), provider: scriptedProvider, gate: allowAll, conversationId: 'bench', results });
  script.push(
    () => ({ call: ['mcp__big__report', {}] }),
    (body) => {
      handle = /"(r-[0-9a-f]{8})"/.exec(lastTool(body))?.[1] ?? '';
      return { call: ['read_result', { handle, search: 'the answer is' }] };
    },
    (body) => {
      const line = Number(/line ([\d,]+) \(offset/.exec(lastTool(body))?.[1]?.replace(/,/g, '') ?? 1);
      return { call: ['read_result', { handle, startLine: line, endLine: line + 2 }] };
    },
    (body) => {
      reached = lastTool(body).includes('the answer is 4242');
      return { text: reached ? 'The answer is 4242.' : 'not found' };
    },
  );
  seen.length = 0;
  await bigAgent.runTurn([], 'find the answer in the report', { signal: new AbortController().signal });
  const whole = await results.read('bench', handle);
  fullTokens = whole ? countTokens(whole) : 0;
} finally {
  await bigHarness.dispose();
  fs.rmSync(bigTmp, { recursive: true, force: true });
}
const requestTokens = seen.map((b) => countTokens(JSON.stringify(b.messages)));
const bigMessageTokens = requestTokens.map((t, i) => (i === 0 ? t : t - requestTokens[i - 1]));
print(`a 1 MiB tool result (real stdio server, scripted model over loopback; message tokens, o200k_base):`);
print(`  the whole result would be                   ${fullTokens} tokens`);
print(`  tokens of messages per request              ${requestTokens.join(', ')}`);
print(`  added by each step                          ${bigMessageTokens.join(', ')}`);
print(`  model reached the line near the end (13,103 of 13,108) through read_result: ${reached ? 'yes' : 'NO'} in ${seen.length} requests`);
scripted.close();

print(`loop latency over ${TURNS} turns (real stdio server, loopback fake model; target < 5 ms each):`);
print(`  model's finished tool call -> tools/call on the wire   median ${r3(median(toWire))} ms, p95 ${r3(pct(toWire, 0.95))} ms`);
print(`  MCP result -> next model request                        median ${r3(median(toModel))} ms, p95 ${r3(pct(toModel, 0.95))} ms`);
console.log(
  JSON.stringify({
    schemaTokens: { without, searchOnly, withFound, found: found.length, estimate, loop: loopSchemaTokens },
    largeResult: { wholeTokens: fullTokens, messageTokensPerRequest: requestTokens, reachedLineNearEnd: reached, requests: seen.length },
    latencyMs: { toWireMedian: r3(median(toWire)), toWireP95: r3(pct(toWire, 0.95)), toModelMedian: r3(median(toModel)), toModelP95: r3(pct(toModel, 0.95)), turns: TURNS },
  }),
);
