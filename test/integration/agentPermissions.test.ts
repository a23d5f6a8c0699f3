import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness, createHarness } from '../../src/core/McpHarness';
import { McpAgent } from '../../src/core/agent/McpAgent';
import type { AgentEvent } from '../../src/core/agent/types';
import { AuditLog, type AuditLine } from '../../src/core/permissions/AuditLog';
import { PermissionGate } from '../../src/core/permissions/PermissionGate';
import type { ICallDecider, PermissionAnswer, PermissionDecision } from '../../src/core/permissions/types';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { PendingPrompter, ScriptedPrompter } from '../support/permissions';
import { ScriptedProvider, callTools, say } from '../support/scriptedProvider';
import { repoPath, tempDir, writeJson } from '../support/servers';

const counting = repoPath('test/fixtures/servers/counting.mjs');

/** Lines the server wrote: one per tools/call it received, plus cancellations. */
const serverLog = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

/** A gate that records every decision of the real gate it wraps. */
class RecordingGate implements ICallDecider {
  readonly decisions: Array<{ tool: string; decision: PermissionDecision }> = [];
  constructor(private readonly _inner: ICallDecider) {}
  async decide(...args: Parameters<ICallDecider['decide']>): Promise<PermissionDecision> {
    const decision = await this._inner.decide(...args);
    this.decisions.push({ tool: args[0].tool.name, decision });
    return decision;
  }
}

describe('the agent against a real MCP server through a real harness', () => {
  const tag = processTag();
  const tmp = tempDir();
  const countFile = path.join(tmp.dir, 'calls.log');
  let harness: McpHarness;

  beforeAll(async () => {
    writeJson(tmp.dir, '.mcp.json', { mcpServers: { count: { command: process.execPath, args: [counting, `--count-file=${countFile}`], env: tag.env } } });
    harness = await createHarness({ workspaceFolder: tmp.dir });
    expect(harness.servers()[0]!.state).toBe('running');
  });
  afterAll(async () => {
    await harness.dispose();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('never lets a tools/call reach the server without an allow decision', async () => {
    fs.rmSync(countFile, { force: true });
    const answers: PermissionAnswer[] = [{ choice: 'deny', reason: 'no' }, { choice: 'once' }, { choice: 'session' }, { choice: 'deny' }];
    const gate = new RecordingGate(
      new PermissionGate({ prompter: new ScriptedPrompter(() => answers.shift() ?? { choice: 'deny' }), rules: () => ({ allow: ['mcp__count__add'], deny: ['mcp__count__poisoned'] }) }),
    );
    const provider = new ScriptedProvider([
      // denied by the user, allowed once, denied by rule, allowed by rule, malformed, unknown
      callTools(['a', 'mcp__count__echo', { text: '1' }], ['b', 'mcp__count__echo', { text: '2' }], ['c', 'mcp__count__poisoned', {}], ['d', 'mcp__count__add', { a: 1, b: 2 }], ['e', 'mcp__count__echo', '{oops'], ['f', 'mcp__count__gone', {}]),
      // allowed for the session, then remembered
      callTools(['g', 'mcp__count__echo', { text: '3' }]),
      callTools(['h', 'mcp__count__echo', { text: '4' }]),
      say('done'),
    ]);
    const agent = new McpAgent({ tools: () => harness.tools(), call: (r, o) => harness.call(r, o), provider, gate });
    const result = await agent.runTurn([], 'go', { signal: new AbortController().signal });
    expect(result.reason).toBe('done');

    const allowed = gate.decisions.filter((d) => d.decision.outcome === 'allow').map((d) => d.tool);
    const calls = serverLog(countFile).filter((l) => l.startsWith('call '));
    expect(calls.map((l) => `mcp__count__${l.split(' ')[1]}`)).toEqual(allowed);
    expect(calls).toHaveLength(4);
    expect(gate.decisions.filter((d) => d.decision.outcome === 'deny')).toHaveLength(2);
    expect(calls).not.toContain('call echo {"text":"1"}');
    expect(calls.some((l) => l.startsWith('call poisoned'))).toBe(false);
  });

  it('Stop during a slow call cancels it on the server and the card says cancelled', async () => {
    fs.rmSync(countFile, { force: true });
    const stop = new AbortController();
    const events: AgentEvent[] = [];
    const agent = new McpAgent({
      tools: () => harness.tools(),
      call: (r, o) => harness.call(r, o),
      provider: new ScriptedProvider([callTools(['s', 'mcp__count__slow', { stepMs: 20 }])]),
      gate: new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) }),
    });
    const turn = agent.runTurn([], 'slow please', {
      signal: stop.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'tool_call' && e.progress) stop.abort(); // the server is working on it
      },
    });
    const result = await turn;
    expect(result.reason).toBe('stopped');
    const states = events.filter((e) => e.type === 'tool_call').map((e) => (e as { state: string }).state);
    expect(states[0]).toBe('waiting_for_approval');
    expect(states.at(-1)).toBe('cancelled');
    // The server received notifications/cancelled and stopped working.
    for (let i = 0; i < 200 && !serverLog(countFile).includes('cancelled slow'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(serverLog(countFile)).toEqual(['call slow {"stepMs":20}', 'cancelled slow']);
  });

  it('Stop while a card is open runs nothing', async () => {
    fs.rmSync(countFile, { force: true });
    const stop = new AbortController();
    const prompter = new PendingPrompter();
    const agent = new McpAgent({
      tools: () => harness.tools(),
      call: (r, o) => harness.call(r, o),
      provider: new ScriptedProvider([callTools(['x', 'mcp__count__echo', { text: 'never' }], ['y', 'mcp__count__echo', { text: 'never2' }])]),
      gate: new PermissionGate({ prompter }),
    });
    const turn = agent.runTurn([], 'go', { signal: stop.signal });
    await prompter.waitFor(2);
    stop.abort();
    expect((await turn).reason).toBe('stopped');
    // A late answer to a card changes nothing.
    prompter.pending[0]!.answer({ choice: 'once' });
    expect(serverLog(countFile)).toEqual([]);
  });

  it('writes a start and an end line per real call, and flags a poisoned result', async () => {
    const auditFile = path.join(tmp.dir, 'audit', 'calls.jsonl');
    const audit = new AuditLog(auditFile);
    const events: AgentEvent[] = [];
    const agent = new McpAgent({
      tools: () => harness.tools(),
      call: (r, o) => harness.call(r, o),
      provider: new ScriptedProvider([callTools(['p', 'mcp__count__poisoned', {}], ['q', 'mcp__count__echo', { text: 'Bearer abcdefghijklmnop' }]), say('ok')]),
      gate: new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) }),
      audit,
    });
    await agent.runTurn([], 'go', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
    await audit.flush();
    const lines: AuditLine[] = fs.readFileSync(auditFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.event === 'start')).toHaveLength(2);
    for (const start of lines.filter((l) => l.event === 'start')) {
      const end = lines.find((l) => l.event === 'end' && l.id === start.id);
      expect(end).toMatchObject({ server: 'count', outcome: 'ok' });
    }
    const echoStart = lines.find((l) => l.event === 'start' && l.tool === 'mcp__count__echo');
    expect(echoStart).toMatchObject({ arguments: { text: '[redacted]' }, decider: { by: 'user', choice: 'once' } });
    const poisoned = events.find((e) => e.type === 'tool_call' && e.modelCallId === 'p' && e.state === 'done') as Extract<AgentEvent, { type: 'tool_call' }>;
    expect(poisoned.warnings?.map((w) => w.kind)).toEqual(['hidden_characters', 'instructions', 'instructions']);
  });

  it('searches the harness tools best first', () => {
    expect(harness.searchTools('add numbers')[0]!.name).toBe('mcp__count__add');
    expect(harness.searchTools('echo text', { limit: 1 }).map((t) => t.name)).toEqual(['mcp__count__echo']);
    expect(harness.searchTools('')).toEqual([]);
  });
});
