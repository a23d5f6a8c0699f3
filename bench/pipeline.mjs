#!/usr/bin/env node
// The call pipeline's own CPU per call, with no process and no pipe: a CallPipeline wired as the
// harness wires it (a registry, the hook runner with no hooks, the harness's defaults, secret
// masking), whose connection answers at once. Far steadier than the stdio rows on a busy machine,
// so it is the figure to compare builds by; rounds of each build are interleaved in one run.
//
//   node bench/pipeline.mjs [path/to/core.js ...] [--calls=N] [--rounds=N] [--listen]
//
// Without a path it measures dist/core.js. `--listen` passes an onEvent listener (as the chat
// and the gateway do). Prints one line per build: median, min and max CPU us per call.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const opt = (name, fallback) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const CALLS = opt('calls', 50_000);
const ROUNDS = opt('rounds', 7);
const LISTEN = argv.includes('--listen');
const paths = argv.filter((a) => !a.startsWith('--'));
const builds = paths.length > 0 ? paths.map((p) => resolve(p)) : [fileURLToPath(new URL('../dist/core.js', import.meta.url))];
const require = createRequire(import.meta.url);

const ECHO = { name: 'echo', description: 'Echoes the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };

function pipelineOf(core) {
  const { CallPipeline, HookRunner, ToolRegistry } = require(core);
  const registry = new ToolRegistry();
  registry.setServerTools('fix', [ECHO]);
  const connection = {
    definition: {},
    state: { kind: 'running' },
    whenSettled: async () => undefined,
    describeUnavailable: () => 'not running',
    callTool: async (_name, args) => ({ content: [{ type: 'text', text: args.text }] }),
  };
  const pipeline = new CallPipeline({
    registry,
    connection: () => connection,
    servers: () => ['fix'],
    defaults: () => ({ toolTimeoutMs: undefined, maxTotalTimeoutMs: undefined, maxOutputChars: undefined, maxOutputCharsPerTool: undefined }),
    hooks: new HookRunner({}),
    mask: (text) => text,
  });
  const options = LISTEN ? { onEvent: () => undefined } : {};
  return async (text) => {
    const outcome = await pipeline.callTool({ name: 'mcp__fix__echo', arguments: { text } }, options);
    if (outcome.isError) throw new Error(outcome.text);
  };
}

async function measure(call) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call(`hello ${i}`);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / CALLS;
}

const calls = builds.map(pipelineOf);
for (const call of calls) await measure(call); // warm up: compile, optimise
const runs = calls.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (let i = 0; i < calls.length; i++) {
    const k = (i + r) % calls.length;
    runs[k].push(await measure(calls[k]));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
builds.forEach((build, i) => {
  const xs = runs[i];
  console.log(`${build}: ${median(xs).toFixed(2)} CPU us/call (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)}; ${ROUNDS} rounds x ${CALLS}${LISTEN ? ', with a listener' : ''})`);
});
