import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHarness, HookApprovals, HOOK_AWAITING_APPROVAL, type HarnessHookOptions, type McpHarness } from '../../src/core';
import { McpAgent, OpenAiCompatibleProvider, type AgentEvent } from '../../src/core/agent';
import { PermissionGate } from '../../src/core/permissions';
import type { PermissionAnswer } from '../../src/core/permissions/types';
import { openAiChunk, sse, type FakeHandler } from '../support/fakeModelServer';
import { ScriptedPrompter } from '../support/permissions';
import { repoPath, writeJson } from '../support/servers';
import { agentRig } from '../support/agentRig';

// The agent loop with a model on loopback (OpenAI wire format), a real MCP server that records
// every call, and real hook commands: what the model reads is what the hooks left of a result.

const counting = repoPath('test/fixtures/servers/counting.mjs');
const hooksDir = repoPath('test/fixtures/hooks');
const scripted = (mode: string, extra = '') => `node ${path.join(hooksDir, 'scripted.mjs')} --mode=${mode} ${extra}`.trim();
const rig = agentRig('hooks-agent-');
const { tag, tmp } = rig;
const { model, harnesses } = rig;

let counter = 0;
async function workspace(files: Record<string, unknown>, hooks: HarnessHookOptions = {}) {
  const dir = path.join(tmp.dir, `ws-${++counter}`);
  writeJson(dir, '.mcp.json', { mcpServers: { count: { command: process.execPath, args: [counting, `--count-file=${path.join(dir, 'calls.log')}`], env: tag.env } } });
  for (const [rel, content] of Object.entries(files)) writeJson(dir, rel, content);
  const harness = await createHarness({ workspaceFolder: dir, hooks });
  harnesses.push(harness);
  expect(harness.configErrors()).toEqual([]);
  expect(harness.servers()[0]!.state).toBe('running');
  const calls = () => (fs.existsSync(path.join(dir, 'calls.log')) ? fs.readFileSync(path.join(dir, 'calls.log'), 'utf8').split('\n').filter(Boolean) : []);
  return { dir, harness, calls };
}

function callsStep(calls: Array<[id: string, name: string, args: unknown]>): FakeHandler {
  return sse([
    ...calls.map(([id, name, args], index): [null, unknown] => [null, openAiChunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] })]),
    [null, openAiChunk({}, 'tool_calls')],
    [null, '[DONE]'],
  ]);
}
const sayStep = (text: string): FakeHandler => sse([[null, openAiChunk({ content: text })], [null, openAiChunk({}, 'stop')], [null, '[DONE]']]);

async function turn(harness: McpHarness, answer: PermissionAnswer = { choice: 'once' }, rules = {}) {
  const prompter = new ScriptedPrompter(() => answer);
  const agent = new McpAgent({
    tools: () => harness.tools(),
    call: (request, options) => harness.call(request, options),
    provider: new OpenAiCompatibleProvider({ baseUrl: rig.modelUrl, model: 'gpt-test', apiKey: 'loopback', maxAttempts: 1 }),
    gate: new PermissionGate({ prompter, rules: () => rules }),
    conversationId: 'conv-1',
  });
  const events: AgentEvent[] = [];
  const first = model.requests.length;
  const result = await agent.runTurn([], 'go', { signal: new AbortController().signal, onEvent: (e) => events.push(e) });
  const sent = model.requests.slice(first).map((r) => r.body as { messages: Array<{ role: string; content: string }> });
  return { result, events, prompter, sent, toolMessages: () => sent.flatMap((b) => b.messages.filter((m) => m.role === 'tool').map((m) => m.content)) };
}

describe('hooks in the agent loop', () => {
  it('gives the model the result a PostToolUse hook redacted, and its note, never the secret', async () => {
    const ws = await workspace({
      '.harness/hooks.json': { hooks: { PostToolUse: [{ matcher: 'mcp__count__echo', hooks: [{ type: 'command', command: scripted('redact', '--secret=hunter2') }, { type: 'command', command: scripted('note', '"--reason=checked by the audit hook"') }] }] } },
    });
    model.enqueue(callsStep([['c1', 'mcp__count__echo', { text: 'the password is hunter2' }]]), sayStep('ok'));
    const t = await turn(ws.harness);
    expect(ws.calls()).toEqual(['call echo {"text":"the password is hunter2"}']);
    const [message] = t.toolMessages();
    expect(message).toMatch(/^<tool_output tool="mcp__count__echo">\nthe password is \[hidden by hook\]\n<\/tool_output>\n<hook_note hook="node \S+scripted\.mjs --mode=note [^"]*">\nchecked by the audit hook\n<\/hook_note>$/);
    expect(t.toolMessages().join('')).not.toContain('hunter2');
    const card = t.events.filter((e): e is Extract<AgentEvent, { type: 'tool_call' }> => e.type === 'tool_call').at(-1)!;
    expect(card.output).toBe('the password is [hidden by hook]');
  });

  it('withholds the result when a PostToolUse hook fails', async () => {
    const ws = await workspace({ '.harness/hooks.json': { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: scripted('malformed') }] }] } } });
    model.enqueue(callsStep([['c1', 'mcp__count__echo', { text: 'classified' }]]), sayStep('ok'));
    const t = await turn(ws.harness);
    expect(ws.calls()).toHaveLength(1);
    expect(t.toolMessages()[0]).toMatch(/^<tool_output tool="mcp__count__echo" error="true">\nThe result was withheld: the PostToolUse hook ".*--mode=malformed" printed output that starts like JSON but is not valid JSON/);
    expect(t.toolMessages().join('')).not.toContain('classified');
  });

  it('ends the turn when a hook answers continue: false, telling the user why', async () => {
    const ws = await workspace({ '.harness/hooks.json': { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: scripted('stop', '"--reason=change freeze"') }] }] } } });
    model.enqueue(callsStep([['c1', 'mcp__count__echo', { text: 'x' }]]));
    const t = await turn(ws.harness);
    expect(t.result.reason).toBe('stopped');
    expect(t.sent).toHaveLength(1);
    expect(ws.calls()).toEqual([]);
    expect(t.events).toContainEqual({ type: 'notice', level: 'warning', message: expect.stringMatching(/^The hook ".*--mode=stop.*" stopped the turn: change freeze$/) });
  });

  it('runs a hook written for Claude Code unchanged (.claude/settings.json, opted in)', async () => {
    const guard = path.join(hooksDir, 'claude_code_guard.py');
    const settings = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'command', command: `python3 ${guard}`, timeout: 30 }] }],
        PostToolUse: [{ matcher: 'mcp__count__echo', hooks: [{ type: 'command', command: `python3 "$CLAUDE_PROJECT_DIR"/../${path.relative(tmp.dir, guard)}` }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'exit 1' }] }],
      },
    };
    const ws = await workspace({ '.claude/settings.json': settings }, { claudeSettings: true });
    expect(ws.harness.hooks().map((h) => [h.hook.event, h.hook.origin.source])).toEqual([['PreToolUse', 'claude'], ['PostToolUse', 'claude']]);
    model.enqueue(
      callsStep([
        ['c1', 'mcp__count__echo', { text: 'rm -rf /' }],
        ['c2', 'mcp__count__echo', { text: 'DROP TABLE users' }],
        ['c3', 'mcp__count__echo', { text: 'sudo make me a sandwich' }],
        ['c4', 'mcp__count__echo', { text: 'the code is secret-42' }],
      ]),
      sayStep('done'),
    );
    const t = await turn(ws.harness, { choice: 'deny', reason: 'not now' });
    const [rm, drop, sudo, allowed] = t.toolMessages();
    expect(rm).toMatch(/Not run: blocked by the PreToolUse hook "python3 .*claude_code_guard\.py": Refusing to pass 'rm -rf' to a tool/);
    expect(drop).toMatch(/Not run: blocked by the PreToolUse hook ".*": SQL that drops tables is not allowed/);
    expect(sudo).toMatch(/The user denied this call\. Reason: not now/);
    expect(t.prompter.requests.map((r) => r.askedBy?.reason)).toEqual(['sudo needs a human']);
    expect(allowed).toContain('the code is [removed]');
    expect(allowed).toContain('The guard removed a secret from this result.');
    expect(ws.calls()).toEqual(['call echo {"text":"the code is secret-42"}']);
    const log = fs.readFileSync(path.join(ws.dir, '.claude', 'guard.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toHaveLength(5);
    for (const entry of log) {
      expect(entry).toMatchObject({ session_id: 'conv-1', transcript_path: '', cwd: ws.dir, tool_name: 'mcp__count__echo' });
      expect(typeof entry.tool_use_id).toBe('string');
    }
    expect(log.at(-1)).toMatchObject({ hook_event_name: 'PostToolUse', tool_input: { text: 'the code is secret-42' }, tool_response: [{ type: 'text', text: 'the code is secret-42' }] });
  });

  it('does not run a workspace hook before it is approved, and asks again after it is edited', async () => {
    let keys: string[] = [];
    const approvals = new HookApprovals({ get: () => keys, set: async (k) => void (keys = [...k]) }, () => true);
    const asked: string[][] = [];
    approvals.onDidRequest((hooks) => asked.push(hooks.map((h) => h.command)));
    const log = path.join(tmp.dir, 'approval.log');
    const hooksFile = (reason: string) => ({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: scripted('deny-json', `--log=${log} "--reason=${reason}"`) }] }] } });
    const ws = await workspace({ '.harness/hooks.json': hooksFile('first') }, { permit: (h) => approvals.permit(h) });
    expect(ws.harness.hooks().map((h) => h.blocked)).toEqual([HOOK_AWAITING_APPROVAL]);

    expect((await ws.harness.callTool('mcp__count__echo', { text: 'before approval' })).isError).toBe(false);
    expect(fs.existsSync(log)).toBe(false);
    expect(asked).toEqual([[expect.stringContaining('--reason=first')]]);

    await approvals.approve(approvals.pending());
    expect((await ws.harness.callTool('mcp__count__echo', { text: 'approved' })).text).toMatch(/: first$/);
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);

    writeJson(ws.dir, '.harness/hooks.json', hooksFile('edited'));
    await ws.harness.applyConfig();
    expect((await ws.harness.callTool('mcp__count__echo', { text: 'after the edit' })).isError).toBe(false);
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(1);
    expect(asked).toEqual([[expect.stringContaining('--reason=first')], [expect.stringContaining('--reason=edited')]]);
    expect(ws.calls()).toEqual(['call echo {"text":"before approval"}', 'call echo {"text":"after the edit"}']);
  });
});
