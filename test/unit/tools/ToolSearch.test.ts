import { describe, expect, it } from 'vitest';
import type { HarnessTool } from '../../../src/core/tools/types';
import type { AgentCallTool } from '../../../src/core/agent/ModelToolCalls';
import { McpAgent } from '../../../src/core/agent/McpAgent';
import { SEARCH_TOOLS_NAME, estimateSchemaTokens, estimateTokens, exceedsToolBudget, formatSearchResult, summarizeDescription } from '../../../src/core/tools/search';
import type { AgentEvent } from '../../../src/core/agent/types';
import { ScriptedProvider, callTools, say } from '../../support/scriptedProvider';

const t = (server: string, name: string, description: string, params: string[] = [], title?: string): HarnessTool => ({
  name: `mcp__${server}__${name}`,
  server,
  originalName: name,
  pin: `${server}/${name}`,
  description,
  ...(title ? { title } : {}),
  inputSchema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
});

const catalog: HarnessTool[] = [
  t('github', 'create_issue', 'Opens a new issue in a repository', ['owner', 'repo', 'title', 'body']),
  t('github', 'list_pull_requests', 'Lists pull requests of a repository', ['owner', 'repo', 'state']),
  t('memory', 'read_graph', 'Reads the whole knowledge graph'),
  t('fs', 'read_text_file', 'Reads a file from disk as text', ['path']),
  t('weather', 'forecast', 'Forecast for a place', ['latitude', 'longitude'], 'Weather forecast'),
  t('calendar', 'createEvent', 'Adds an entry', ['startTime']),
];
/** A pipeline that answers every call with `text` (these tests are about what is offered, not how calls run). */
const answering = (text: string): AgentCallTool => async (request, options) => {
  options.onEvent?.({ callId: options.callId ?? 'x', toolName: request.name, arguments: {}, state: 'done', output: text });
  return { callId: options.callId ?? 'x', state: 'done', isError: false, text, content: [{ type: 'text', text }], warnings: [] };
};
const filler = (n: number) => Array.from({ length: n }, (_, i) => t(`s${i % 20}`, `tool_${i}`, `Does thing number ${i}`, ['value']));

describe('budget', () => {
  it('estimates about four characters a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    const tool = catalog[0]!;
    expect(estimateSchemaTokens([tool, tool])).toBe(2 * estimateTokens(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })));
  });

  it('switches over 64 tools, or over 10% of the context window', () => {
    expect(exceedsToolBudget(filler(64))).toBe(false);
    expect(exceedsToolBudget(filler(65))).toBe(true);
    expect(exceedsToolBudget(filler(10), { maxTools: 9 })).toBe(true);
    const tokens = estimateSchemaTokens(filler(10));
    expect(exceedsToolBudget(filler(10), { contextWindow: tokens * 10 })).toBe(false);
    expect(exceedsToolBudget(filler(10), { contextWindow: tokens * 10 - 10 })).toBe(true);
    expect(exceedsToolBudget(filler(10), { contextWindow: tokens, maxSchemaShare: 1 })).toBe(false);
    expect(exceedsToolBudget(filler(10), { contextWindow: tokens - 1, maxSchemaShare: 1 })).toBe(true);
    // 128k by default: 10 small tools fit, a huge one does not.
    const huge = { ...catalog[0]!, description: 'x'.repeat(4 * 12_801) };
    expect(exceedsToolBudget([huge])).toBe(true);
    expect(exceedsToolBudget([{ ...huge, description: 'x'.repeat(4 * 12_700) }])).toBe(false);
  });
});

describe('tool search in the loop', () => {
  const tools = [...catalog, ...filler(100)];

  it('offers search_tools plus used tools, and found tools from the next step on', async () => {
    const provider = new ScriptedProvider([
      callTools(['s1', SEARCH_TOOLS_NAME, { query: 'weather forecast', limit: 2 }]),
      callTools(['c1', 'mcp__weather__forecast', { latitude: '1' }]),
      say('Sunny'),
    ]);
    const events: AgentEvent[] = [];
    const agent = new McpAgent({
      tools: () => tools,
      provider,
      gate: { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) },
      call: answering('sunny'),
    });
    const history = [
      { role: 'user' as const, content: 'earlier' },
      { role: 'assistant' as const, content: '', toolCalls: [{ id: 'old', name: 'mcp__memory__read_graph', arguments: '{}' }] },
      { role: 'tool' as const, toolCallId: 'old', toolName: 'mcp__memory__read_graph', content: 'graph', isError: false },
    ];
    const result = await agent.runTurn(history, 'weather?', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    expect(result.reason).toBe('done');
    expect(provider.requests[0]!.tools.map((x) => x.name)).toEqual([SEARCH_TOOLS_NAME, 'mcp__memory__read_graph']);
    expect(provider.requests[1]!.tools.map((x) => x.name)).toEqual([SEARCH_TOOLS_NAME, 'mcp__memory__read_graph', 'mcp__weather__forecast']);
    const found = provider.requests[1]!.messages.at(-1)!;
    // Name, server and a one-line description come before the schema.
    expect(found.content).toContain(
      '1. mcp__weather__forecast (server "weather"): Forecast for a place\n   input: {"type":"object","properties":{"latitude":{"type":"string"},"longitude":{"type":"string"}}}',
    );
    const searchCard = events.find((e) => e.type === 'tool_call' && e.modelCallId === 's1');
    expect(searchCard).toMatchObject({ state: 'done', arguments: { query: 'weather forecast', limit: 2 } });
  });

  it('keeps offering the tools the model used in later turns, and found but unused ones only for their turn', async () => {
    const provider = new ScriptedProvider([
      callTools(['s1', SEARCH_TOOLS_NAME, { query: 'read', limit: 2 }]),
      callTools(['c1', 'mcp__fs__read_text_file', { path: 'a.txt' }]),
      say('read it'),
      say('again'),
    ]);
    const agent = new McpAgent({
      tools: () => tools,
      provider,
      gate: { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) },
      call: answering('text'),
    });
    const first = await agent.runTurn([], 'read a.txt', { signal: new AbortController().signal });
    const found = ['mcp__fs__read_text_file', 'mcp__memory__read_graph'];
    expect(provider.requests[1]!.tools.map((x) => x.name).sort()).toEqual([SEARCH_TOOLS_NAME, ...found].sort());
    expect(provider.requests[2]!.tools.map((x) => x.name).sort()).toEqual([SEARCH_TOOLS_NAME, ...found].sort());
    await agent.runTurn(first.messages, 'and now?', { signal: new AbortController().signal });
    expect(provider.requests[3]!.tools.map((x) => x.name)).toEqual([SEARCH_TOOLS_NAME, 'mcp__fs__read_text_file']);
  });

  it('caps a search at 25 tools', async () => {
    const provider = new ScriptedProvider([callTools(['s1', SEARCH_TOOLS_NAME, { query: 'thing', limit: 100 }], ['s2', SEARCH_TOOLS_NAME, { query: 'thing' }]), say('ok')]);
    const agent = new McpAgent({ tools: () => tools, provider, gate: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, call: answering('') });
    const events: AgentEvent[] = [];
    await agent.runTurn([], 'x', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    const [capped, plain] = events.filter((e): e is Extract<AgentEvent, { type: 'tool_call' }> => e.type === 'tool_call');
    const listed = (output: string | undefined) => output!.match(/^\d+\. mcp__\S+ \(server /gm) ?? [];
    expect(listed(capped!.output)).toHaveLength(25);
    expect(listed(plain!.output)).toHaveLength(8);
    expect(capped!.runMs).toBe(0);
    expect(provider.requests[1]!.tools).toHaveLength(1 + 25);
  });

  it('answers a search without a query, or with no match, as the model can use', async () => {
    const provider = new ScriptedProvider([callTools(['s1', SEARCH_TOOLS_NAME, { query: 5 }], ['s2', SEARCH_TOOLS_NAME, { query: 'qqqzzz' }], ['s3', SEARCH_TOOLS_NAME, 'nope']), say('ok')]);
    const agent = new McpAgent({ tools: () => tools, provider, gate: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, call: answering('') });
    await agent.runTurn([], 'x', { signal: new AbortController().signal });
    const [a, b, c] = provider.requests[1]!.messages.slice(-3);
    expect(a!.content).toContain('error="true"');
    expect(a).toMatchObject({ isError: true });
    expect(a!.content).toContain('search_tools needs a "query" string.');
    expect(b).toMatchObject({ isError: false });
    expect(b!.content).toContain('No tool matches "qqqzzz". Try other words.');
    expect(c!.content).toContain('The arguments for "search_tools" are not valid JSON');
  });

  it('sends every schema when under budget or when search is off', async () => {
    const small = new ScriptedProvider([say('a')]);
    await new McpAgent({ tools: () => catalog, provider: small, gate: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, call: answering('') }).runTurn([], 'x', { signal: new AbortController().signal });
    expect(small.requests[0]!.tools).toHaveLength(catalog.length);
    const off = new ScriptedProvider([say('a')]);
    await new McpAgent({ tools: () => tools, toolSearch: false, provider: off, gate: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, call: answering('') }).runTurn([], 'x', { signal: new AbortController().signal });
    expect(off.requests[0]!.tools).toHaveLength(tools.length);
    const tight = new ScriptedProvider([say('a')]);
    await new McpAgent({ tools: () => catalog, toolSearch: { maxTools: 3 }, provider: tight, gate: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, call: answering('') }).runTurn([], 'x', { signal: new AbortController().signal });
    expect(tight.requests[0]!.tools.map((x) => x.name)).toEqual([SEARCH_TOOLS_NAME]);
  });
});

describe('search result', () => {
  it('lists name, server and a one-line description before each schema, best first', () => {
    const builtin: HarnessTool = { name: 'read_file', originalName: 'read_file', description: 'Reads a file.\nSecond line.', inputSchema: { type: 'object' }, pin: 'p' };
    expect(formatSearchResult('read', [catalog[3]!, builtin])).toBe(
      [
        '2 tools match "read", best first. They can be called from the next step on.',
        '',
        '1. mcp__fs__read_text_file (server "fs"): Reads a file from disk as text',
        '   input: {"type":"object","properties":{"path":{"type":"string"}}}',
        '2. read_file (built-in): Reads a file.',
        '   input: {"type":"object"}',
      ].join('\n'),
    );
    expect(formatSearchResult('zzz', [])).toBe('No tool matches "zzz". Try other words.');
    expect(formatSearchResult('read', [builtin]).split('\n')[0]).toBe('1 tool matches "read", best first. They can be called from the next step on.');
  });

  it('keeps a description to one line of at most 160 characters', () => {
    expect(summarizeDescription('  Lists   issues\n\nMore text')).toBe('Lists issues');
    expect(summarizeDescription('')).toBe('(no description)');
    const sentences = `${'a'.repeat(50)}. ${'b'.repeat(150)}`;
    expect(summarizeDescription(sentences)).toBe(`${'a'.repeat(50)}.`);
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const cut = summarizeDescription(words);
    expect(cut.length).toBeLessThanOrEqual(160);
    expect(cut.endsWith('\u2026')).toBe(true);
    expect(words.startsWith(cut.slice(0, -1))).toBe(true);
    expect(summarizeDescription('x'.repeat(300))).toBe(`${'x'.repeat(159)}\u2026`);
    expect(summarizeDescription('\n   \nSecond line')).toBe('Second line');
    expect(summarizeDescription('y'.repeat(160))).toBe('y'.repeat(160));
    // A sentence end or a space just at 40 characters still counts; before it, the cut falls elsewhere.
    expect(summarizeDescription(`${'a'.repeat(40)}. ${'b'.repeat(200)}`)).toBe(`${'a'.repeat(40)}.`);
    expect(summarizeDescription(`${'a'.repeat(39)}. ${'b'.repeat(200)}`)).toBe(`${'a'.repeat(39)}.\u2026`);
    expect(summarizeDescription(`${'a'.repeat(40)} ${'b'.repeat(200)}`)).toBe(`${'a'.repeat(40)}\u2026`);
    expect(summarizeDescription(`${'a'.repeat(39)} ${'b'.repeat(200)}`)).toBe(`${'a'.repeat(39)} ${'b'.repeat(119)}\u2026`);
  });
});
