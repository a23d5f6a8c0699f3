#!/usr/bin/env node
// Tool search on a public benchmark, through the built library (dist/core.js): ToolBench's test
// queries (as StableToolBench republishes them) sampled to 319 queries over 600 tools in 39
// servers (../shared/benchmarks/toolbench-retrieval, its SOURCE.md says how). Each pseudo-server
// runs as a real stdio MCP server (test/fixtures/servers/catalog.mjs), all connected by one
// harness from a config file; every query goes through `harness.searchTools(query, {limit: 10})`.
// A hit at k: any gold tool among the first k. Beside it, in the same run: a plain BM25
// (minisearch defaults over exposed name + description), the ranker this one replaced, and an
// ablation that turns each text step off in turn.
//
//   node bench/search.mjs [--data=DIR] [--json]
//
// The tuning half (queries whose FNV-1a id hash is even) is the one the weights were chosen on;
// the other half was not looked at for that. Prints a table and, as its last line, one JSON
// object. A measurement, not a test: exit 0 whether or not targets are met (1 only if it broke).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';

const require = createRequire(import.meta.url);
const core = require('../dist/core.js');
const argv = process.argv.slice(2);
const jsonOnly = argv.includes('--json');
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = path.resolve(argv.find((a) => a.startsWith('--data='))?.slice('--data='.length) ?? path.join(ROOT, '..', 'shared', 'benchmarks', 'toolbench-retrieval'));
const CATALOG = path.join(ROOT, 'test', 'fixtures', 'servers', 'catalog.mjs');
const TARGETS = { recallAt5: 0.93, recallAt10: 0.97, medianMs: 2 };
const print = (line = '') => jsonOnly || console.log(line);
const progress = (line) => process.stderr.write(`[bench:search] ${line}\n`);
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor((xs.length - 1) / 2)];
const p95 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const r3 = (x) => Math.round(x * 1000) / 1000;

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read ${file} (pass --data=DIR for another copy of the benchmark): ${err.message}`);
  }
}

/** FNV-1a (32 bit): splits the queries into a tuning half (even) and the rest, fixed by id. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Share of queries with a gold tool among the first k of `rank(query)`, for k = 5 and 10. */
function recall(queries, rank) {
  let at5 = 0;
  let at10 = 0;
  for (const q of queries) {
    const keys = rank(q.query);
    if (q.gold.some((g) => keys.slice(0, 5).includes(g))) at5++;
    if (q.gold.some((g) => keys.slice(0, 10).includes(g))) at10++;
  }
  return { at5: r3(at5 / queries.length), at10: r3(at10 / queries.length) };
}

/** The benchmark's key for a harness tool: `server__tool`. */
const keyOf = (tool) => `${tool.server}__${tool.originalName}`;

/** Plain BM25: minisearch with its defaults over the exposed name and the description. */
function plainBm25(tools) {
  const search = new MiniSearch({ fields: ['name', 'description'], storeFields: [] });
  search.addAll(tools.map((t, id) => ({ id, name: t.name, description: t.description })));
  return (query) => search.search(query).slice(0, 10).map((hit) => keyOf(tools[hit.id]));
}

/** The ranker tool search had before: names weighed three times, prefixes and typos for every word. */
function previousRanker(tools) {
  const words = (text) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-./]+/g, ' ');
  const params = (schema) => (schema.properties && typeof schema.properties === 'object' ? Object.keys(schema.properties).map(words).join(' ') : '');
  const search = new MiniSearch({
    fields: ['name', 'title', 'description', 'params'],
    storeFields: [],
    searchOptions: { boost: { name: 3, title: 2, params: 1.5 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });
  search.addAll(tools.map((t, id) => ({ id, name: words(t.name), title: t.title ?? '', description: t.description, params: params(t.inputSchema) })));
  return (query) => {
    const text = words(query).trim();
    return text ? search.search(text).slice(0, 10).map((hit) => keyOf(tools[hit.id])) : [];
  };
}

function withIndex(tools, options) {
  const index = new core.ToolSearchIndex(tools, options);
  return (query) => index.search(query, { limit: 10 }).map(keyOf);
}

const FLAT = Object.fromEntries(Object.keys(core.TOOL_SEARCH_WEIGHTS).map((field) => [field, 1]));
const ABLATION = [
  ['all steps', {}],
  ['no stop words', { text: { stopWords: false } }],
  ['no stemming', { text: { stemming: false } }],
  ['no camelCase/digit splitting', { text: { identifiers: false } }],
  ['no joined-word splitting', { text: { segmentation: false } }],
  ['flat field weights', { weights: FLAT }],
  ['no prefix or typo matching', { prefixMinLength: Infinity, fuzzyMinLength: Infinity }],
  ['prefix and typos for every word', { prefixMinLength: 1, fuzzyMinLength: 1 }],
];

async function startHarness(toolsFile, servers, dir) {
  const config = path.join(dir, 'mcp.json');
  const entries = Object.fromEntries(servers.map((name) => [name, { command: process.execPath, args: [CATALOG, `--catalog=${toolsFile}`, `--server=${name}`] }]));
  fs.writeFileSync(config, JSON.stringify({ servers: entries }, null, 2));
  const started = performance.now();
  const harness = await core.createHarness({ configFiles: [config], reconnectDelaysMs: [], workspaceFolders: [dir] });
  const down = harness.servers().filter((s) => s.state !== 'running');
  if (down.length) throw new Error(`servers not running: ${down.map((s) => `${s.name} (${s.state}${s.error ? `: ${s.error}` : ''})`).join(', ')}`);
  return { harness, startMs: performance.now() - started };
}

function timeQueries(queries, search) {
  for (const q of queries) search(q.query); // warm-up: JIT, caches
  const ms = [];
  for (const q of queries) {
    const t0 = performance.now();
    search(q.query);
    ms.push(performance.now() - t0);
  }
  return { medianMs: r3(median(ms)), p95Ms: r3(p95(ms)) };
}

/** Index build time, and the cost of one server's tools changing in an index of all of them. */
function timeIndexing(tools) {
  const builds = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    new core.ToolSearchIndex(tools);
    builds.push(performance.now() - t0);
  }
  const counts = new Map();
  for (const t of tools) counts.set(t.server, (counts.get(t.server) ?? 0) + 1);
  const [server, count] = [...counts].sort((a, b) => b[1] - a[1])[0];
  const index = new core.ToolSearchIndex(tools);
  const changed = tools.map((t) => (t.server === server ? { ...t, description: `${t.description} (v2)` } : t));
  const before = index.documentsIndexed;
  const t0 = performance.now();
  index.update(changed);
  return { buildMs: r3(median(builds)), update: { server, tools: count, ms: r3(performance.now() - t0), documentsIndexed: index.documentsIndexed - before } };
}

async function main() {
  const toolsFile = path.join(DATA, 'tools.json');
  const catalog = readJson(toolsFile);
  const queries = readJson(path.join(DATA, 'queries.json'));
  const servers = Object.keys(catalog.servers ?? {});
  const expected = servers.reduce((n, s) => n + catalog.servers[s].length, 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-search-'));
  progress(`starting ${servers.length} servers (${expected} tools) from ${DATA}`);
  const { harness, startMs } = await startHarness(toolsFile, servers, dir);
  try {
    const tools = harness.tools().filter((t) => t.server !== undefined);
    if (tools.length !== expected) throw new Error(`the harness lists ${tools.length} tools, the catalog ${expected}`);
    const t0 = performance.now();
    harness.searchTools('warm up', { limit: 10 });
    const firstSearchMs = r3(performance.now() - t0);
    const ours = (query) => harness.searchTools(query, { limit: 10 }).map(keyOf);
    const halves = { tuning: queries.filter((q) => fnv1a(q.id) % 2 === 0), rest: queries.filter((q) => fnv1a(q.id) % 2 === 1) };
    const rankers = { ours, plainBm25: plainBm25(tools), previous: previousRanker(tools) };
    const results = Object.fromEntries(
      Object.entries(rankers).map(([name, rank]) => [name, { all: recall(queries, rank), tuning: recall(halves.tuning, rank), rest: recall(halves.rest, rank) }]),
    );
    const timing = { ours: timeQueries(queries, ours), plainBm25: timeQueries(queries, rankers.plainBm25) };
    const indexing = { firstSearchMs, ...timeIndexing(tools) };
    const ablation = ABLATION.map(([name, options]) => {
      const rank = withIndex(tools, options);
      return { name, all: recall(queries, rank), tuning: recall(halves.tuning, rank), rest: recall(halves.rest, rank) };
    });
    report({ queries, halves, tools, servers, startMs, results, timing, indexing, ablation });
  } finally {
    await harness.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function report({ queries, halves, tools, servers, startMs, results, timing, indexing, ablation }) {
  const cell = (r) => `${r.at5.toFixed(3)} / ${r.at10.toFixed(3)}`;
  const row = (label, r) => print(`  ${label.padEnd(34)} ${cell(r.all).padEnd(16)} ${cell(r.tuning).padEnd(16)} ${cell(r.rest)}`);
  print(`tool search, ToolBench sample: ${queries.length} queries (tuning ${halves.tuning.length}, rest ${halves.rest.length}), ${tools.length} tools, ${servers.length} stdio servers (connected in ${Math.round(startMs)} ms)`);
  print(`  recall@5 / recall@10             all              tuning half      rest`);
  row('harness.searchTools', results.ours);
  row('plain BM25 (minisearch defaults)', results.plainBm25);
  row('previous ranker', results.previous);
  print(`  targets: recall@5 >= ${TARGETS.recallAt5}, recall@10 >= ${TARGETS.recallAt10} (all queries)`);
  print();
  print(`per query: harness.searchTools median ${timing.ours.medianMs} ms, p95 ${timing.ours.p95Ms} ms (target median < ${TARGETS.medianMs} ms); plain BM25 median ${timing.plainBm25.medianMs} ms, p95 ${timing.plainBm25.p95Ms} ms`);
  print(`index: ${indexing.buildMs} ms to build over ${tools.length} tools (median of 5); first search ${indexing.firstSearchMs} ms (builds it, loads the word list)`);
  print(`       one server's ${indexing.update.tools} tools changed (${indexing.update.server}): update ${indexing.update.ms} ms, ${indexing.update.documentsIndexed} documents indexed`);
  print();
  print(`ablation (each row turns one thing off), recall@5 / recall@10:`);
  for (const a of ablation) row(a.name, a);
  const summary = { queries: queries.length, tools: tools.length, servers: servers.length, results, timing, indexing, ablation, targets: TARGETS };
  console.log(JSON.stringify(summary));
}

main().catch((err) => {
  console.error(`bench:search failed: ${err.stack ?? err}`);
  process.exit(1);
});
