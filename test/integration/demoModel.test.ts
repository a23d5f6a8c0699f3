import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type McpHarness } from '../../src/core';
import { McpAgent, OpenAiCompatibleProvider, resolveApiKey, type AgentEvent } from '../../src/core/agent';
import { PermissionGate } from '../../src/core/permissions';
import { referenceServers, tempDir, writeJson } from '../support/servers';
// @ts-expect-error plain ES module without types, run by `npm start` as is
import { DEMO_MODEL_ID, startDemoModel } from '../../demo/model/demoModel.mjs';

// The offline demo model through the same path as a real provider: the OpenAI-compatible provider
// over loopback HTTP, the agent loop, the permission gate, and real reference MCP servers.
describe('demo model (offline, scripted)', () => {
  const tmp = tempDir();
  let harness: McpHarness;
  let model: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    const ws = path.join(tmp.dir, 'demo');
    writeJson(ws, '.mcp.json', {
      mcpServers: {
        everything: { command: process.execPath, args: [referenceServers.everything] },
        filesystem: { command: process.execPath, args: [referenceServers.filesystem, ws] },
        // As demo/.mcp.json: the folder is gitignored, so a fresh clone does not have it.
        memory: { command: process.execPath, args: [referenceServers.memory], env: { MEMORY_FILE_PATH: '${workspaceFolder}/.harness/memory.jsonl' } },
      },
    });
    harness = await createHarness({ workspaceFolder: ws });
    model = await startDemoModel({ port: 0, delayMs: 0 });
  });

  afterAll(async () => {
    await model?.close();
    await harness?.dispose();
    tmp.cleanup();
  });

  async function turn(text: string, answer: 'once' | 'deny' = 'once') {
    const asked: string[] = [];
    const gate = new PermissionGate({
      prompter: {
        ask: async (request) => {
          asked.push(request.tool.name);
          return answer === 'deny' ? { choice: 'deny', reason: 'not in the demo' } : { choice: 'once' };
        },
      },
    });
    const events: AgentEvent[] = [];
    const agent = new McpAgent({
      tools: () => harness.tools(),
      call: (request, options) => harness.call(request, options),
      // As the extension does: a loopback base URL needs no key.
      provider: new OpenAiCompatibleProvider({ baseUrl: model.url, model: DEMO_MODEL_ID, apiKey: resolveApiKey({ envVar: 'OPENAI_API_KEY', baseUrl: model.url, env: {} }) }),
      gate,
    });
    const result = await agent.runTurn([], text, { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    const error = events.find((e) => e.type === 'error');
    if (error) throw new Error(`the turn failed: ${JSON.stringify(error)}`);
    const answerText = events.filter((e): e is Extract<AgentEvent, { type: 'text' }> => e.type === 'text').map((e) => e.delta).join('');
    return { result, asked, answerText, events };
  }

  it('adds two numbers with the everything server after the user allows it', async () => {
    const { result, asked, answerText } = await turn('add 2 and 3');
    expect(result.reason).toBe('done');
    expect(asked).toEqual(['mcp__everything__get-sum']);
    expect(answerText).toMatch(/\b5\b/);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });

  it('lists the demo folder in two steps (allowed directories, then the listing)', async () => {
    const { asked, answerText } = await turn('list the demo folder');
    expect(asked).toEqual(['mcp__filesystem__list_allowed_directories', 'mcp__filesystem__list_directory']);
    expect(answerText).toContain('.mcp.json');
  });

  it('reports a denied call and its reason', async () => {
    const { asked, answerText, events } = await turn('echo hello', 'deny');
    expect(asked).toEqual(['mcp__everything__echo']);
    expect(events.some((e) => e.type === 'tool_call' && e.state === 'denied')).toBe(true);
    expect(answerText).toContain('not in the demo');
  });

  it('remembers a fact in a folder a fresh clone lacks, and recalls it', async () => {
    const ws = path.join(tmp.dir, 'demo');
    const remembered = await turn('remember that the build uses esbuild');
    expect(remembered.asked).toEqual(['mcp__memory__create_entities']);
    expect(remembered.events.some((e) => e.type === 'tool_call' && e.state === 'done')).toBe(true);
    expect(fs.readFileSync(path.join(ws, '.harness', 'memory.jsonl'), 'utf8')).toContain('the build uses esbuild');
    const recalled = await turn('what do you remember?');
    expect(recalled.asked).toEqual(['mcp__memory__read_graph']);
    expect(recalled.answerText).toContain('- the build uses esbuild');
  });

  it('answers the ordinary question about the workspace with its listing', async () => {
    const { asked, answerText } = await turn('what files are in this workspace?');
    expect(asked).toEqual(['mcp__filesystem__list_allowed_directories', 'mcp__filesystem__list_directory']);
    expect(answerText).toContain('.mcp.json');
  });

  it('logs each call on its server at info level, and a failure with its reason', async () => {
    const lines: string[] = [];
    const listener = harness.onDidLog((e) => {
      if (e.source === 'harness') lines.push(`${e.server} ${e.level} ${e.message}`);
    });
    try {
      await harness.call({ name: 'mcp__everything__echo', arguments: { message: 'hi' } });
      await harness.call({ name: 'mcp__filesystem__read_text_file', arguments: { path: path.join(tmp.dir, 'outside.txt') } });
    } finally {
      listener.dispose();
    }
    expect(lines).toEqual([
      expect.stringMatching(/^everything info call echo \([0-9a-f]{8}\)$/),
      expect.stringMatching(/^everything info call echo \([0-9a-f]{8}\) done after \d+ ms$/),
      expect.stringMatching(/^filesystem info call read_text_file \([0-9a-f]{8}\)$/),
      expect.stringMatching(/^filesystem warn call read_text_file \([0-9a-f]{8}\) failed after \d+ ms: .*(denied|outside|not allowed)/i),
    ]);
  });

  it('lists its model from the endpoint, for the picker', async () => {
    const provider = new OpenAiCompatibleProvider({ baseUrl: model.url, model: 'configured', apiKey: resolveApiKey({ envVar: 'OPENAI_API_KEY', baseUrl: model.url, env: {} }) });
    expect(await provider.availableModels()).toEqual([{ id: DEMO_MODEL_ID, label: DEMO_MODEL_ID }]);
  });

  it('answers anything else with what it can do', async () => {
    const { asked, answerText } = await turn('what can you do?');
    expect(asked).toEqual([]);
    expect(answerText).toContain(DEMO_MODEL_ID);
  });
});
