import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { DiskToolResultStore, McpAgent, OpenAiCompatibleProvider, type AgentEvent } from '../../src/core/agent';
import { openAiChunk, sse, type FakeHandler } from '../support/fakeModelServer';
import { repoPath, writeJson } from '../support/servers';
import { agentRig } from '../support/agentRig';

// A real MCP server returns a result of just over 1 MiB; the agent loop talks to a model on
// loopback (OpenAI wire format). The model reads the first 100,000 characters and a handle, then
// reaches a line near the end through read_result; the whole result is a file for the conversation.

const bigResult = repoPath('test/fixtures/servers/bigResult.mjs');
const rig = agentRig('large-results-');
const { tag, tmp } = rig;
const { model, harnesses } = rig;

let counter = 0;
async function workspace(settings: { maxOutputCharsPerTool?: Record<string, number> } = {}, args: string[] = []) {
  const dir = path.join(tmp.dir, `ws-${++counter}`);
  writeJson(dir, '.mcp.json', { mcpServers: { big: { command: process.execPath, args: [bigResult, ...args], env: tag.env } } });
  const harness = await createHarness({ workspaceFolder: dir, ...settings });
  harnesses.push(harness);
  expect(harness.servers()[0]!.state).toBe('running');
  return { dir, harness };
}

type Body = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string } }> };
const call = (id: string, name: string, args: unknown): FakeHandler =>
  sse([[null, openAiChunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })], [null, openAiChunk({}, 'tool_calls')], [null, '[DONE]']]);
const say = (text: string): FakeHandler => sse([[null, openAiChunk({ content: text })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]);
const lastTool = (body: Body) => body.messages.filter((m) => m.role === 'tool').at(-1)!.content;

function agentFor(harness: McpHarness, results: DiskToolResultStore) {
  return new McpAgent({
    tools: () => harness.tools(),
    call: (request, options) => harness.call(request, options),
    provider: new OpenAiCompatibleProvider({ baseUrl: rig.modelUrl, model: 'gpt-test', apiKey: 'loopback', maxAttempts: 1 }),
    gate: { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: 'mcp__big__*' } }) },
    conversationId: 'conv-1',
    results,
  });
}

describe('a 1 MiB tool result in the agent loop', () => {
  it('is kept whole on disk while the model reads its start, then a line near its end through read_result', async () => {
    const { dir, harness } = await workspace();
    const results = new DiskToolResultStore(path.join(dir, 'storage'));
    let handle = '';
    model.enqueue(
      call('c1', 'mcp__big__report', {}),
      (req, res, body: Body) => {
        handle = /"(r-[0-9a-f]{8})"/.exec(lastTool(body))![1]!;
        return call('c2', 'read_result', { handle, search: 'the answer is' })(req, res, body);
      },
      (req, res, body: Body) => {
        const line = Number(/line ([\d,]+) \(offset/.exec(lastTool(body))![1]!.replace(/,/g, ''));
        return call('c3', 'read_result', { handle, startLine: line, endLine: line + 5 })(req, res, body);
      },
      say('The answer is 4242.'),
    );
    const first = model.requests.length;
    const events: AgentEvent[] = [];
    const turn = await agentFor(harness, results).runTurn([], 'find the answer in the report', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    expect(turn.reason).toBe('done');
    const sent = model.requests.slice(first).map((r) => r.body as Body);
    expect(sent).toHaveLength(4);

    // The model read the first 100,000 characters and the note, not the megabyte.
    const firstResult = lastTool(sent[1]!);
    expect(firstResult.length).toBeLessThan(101_000);
    expect(firstResult).toContain('line 000001 of 013108: ');
    expect(firstResult).toContain(`showing the first 100,000 of 1,048,640 characters (line 1-1,251 of 13,108)`);
    expect(sent[1]!.tools!.map((t) => t.function.name)).toContain('read_result');

    // Search found the line, and the line read reached it, near the end.
    expect(lastTool(sent[2]!)).toContain('1 line contains "the answer is":\nline 13,103 (offset');
    expect(lastTool(sent[3]!)).toContain('Lines 13,103-13,108');
    expect(lastTool(sent[3]!)).toContain('line 013103 of 013108: the answer is 4242');
    expect(JSON.stringify(sent.map((b) => b.messages))).not.toContain('line 013000 of 013108');

    // The whole result is a file of this conversation, and the card knows where.
    const file = results.pathOf('conv-1', handle)!;
    expect(fs.statSync(file).size).toBe(1_048_640);
    expect(events.some((e) => e.type === 'tool_call' && e.stored?.handle === handle)).toBe(true);
    await results.deleteConversation('conv-1');
    expect(fs.existsSync(path.dirname(file))).toBe(false);
  });

  it("honours the server's _meta hint and the person's per-tool cap, and keeps an image's summary", async () => {
    const { dir, harness } = await workspace({ maxOutputCharsPerTool: { mcp__big__report: 5000 } }, ['--hint=200000']);
    const results = new DiskToolResultStore(path.join(dir, 'storage'));
    model.enqueue(call('a', 'mcp__big__hinted', { chars: 150_000 }), say('ok'), call('b', 'mcp__big__report', {}), say('ok'), call('c', 'mcp__big__photo', {}), say('ok'));
    const agent = agentFor(harness, results);
    const first = model.requests.length;
    for (let i = 0; i < 3; i++) await agent.runTurn([], 'go', { signal: new AbortController().signal });
    const bodies = model.requests.slice(first).map((r) => r.body as Body);
    // Under its hint of 200,000: whole, nothing kept.
    expect(lastTool(bodies[1]!)).toContain('y'.repeat(150_000));
    expect(lastTool(bodies[1]!)).not.toContain('result cut');
    // The per-tool setting (5,000) wins over the default 100,000.
    expect(lastTool(bodies[3]!)).toContain('showing the first 5,000 of 1,048,640 characters');
    // 2 MiB of image data is summarised, not kept.
    expect(lastTool(bodies[5]!)).toContain('a photo\n[image image/png, 2 MB]');
    expect(results.list('conv-1').map((r) => r.toolName)).toEqual(['mcp__big__report']);
  });
});
