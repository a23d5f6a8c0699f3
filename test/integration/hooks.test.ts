import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHarness, type HarnessHookOptions, type McpHarness } from '../../src/core';
import { AuditLog, type AuditLine } from '../../src/core/permissions/AuditLog';
import { PermissionGate } from '../../src/core/permissions/PermissionGate';
import type { PermissionAnswer } from '../../src/core/permissions/types';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { ScriptedPrompter } from '../support/permissions';
import { repoPath, tempDir, writeJson } from '../support/servers';

// Real hook commands (bash and node) in front of a real MCP server that writes one line per
// tools/call it receives: what a hook decides is what the server sees.

const counting = repoPath('test/fixtures/servers/counting.mjs');
const hooksDir = repoPath('test/fixtures/hooks');
const scripted = (mode: string, extra = '') => `node ${path.join(hooksDir, 'scripted.mjs')} --mode=${mode} ${extra}`.trim();
const tag = processTag();
const tmp = tempDir('hooks-');
const harnesses: McpHarness[] = [];

afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
});
afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

let counter = 0;
/** A workspace with the counting server as `count` and these hooks in `.harness/hooks.json`. */
async function workspace(hooks: Record<string, unknown>, options: HarnessHookOptions = {}, servers: Record<string, string> = { count: 'calls.log' }) {
  const dir = path.join(tmp.dir, `ws-${++counter}`);
  const entries = Object.fromEntries(Object.entries(servers).map(([name, file]) => [name, { command: process.execPath, args: [counting, `--count-file=${path.join(dir, file)}`], env: tag.env }]));
  writeJson(dir, '.mcp.json', { mcpServers: entries });
  writeJson(dir, '.harness/hooks.json', { hooks });
  const harness = await createHarness({ workspaceFolder: dir, hooks: options });
  harnesses.push(harness);
  expect(harness.configErrors()).toEqual([]);
  for (const s of harness.servers()) expect(s.state, `${s.name}: ${s.error}`).toBe('running');
  const calls = (file = 'calls.log') => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean) : []);
  const log = path.join(dir, 'hook.log');
  const runs = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
  return { dir, harness, calls, log, runs };
}

const pre = (command: string, matcher = 'mcp__count__.*', extra: Record<string, unknown> = {}) => ({ PreToolUse: [{ matcher, hooks: [{ type: 'command', command, ...extra }] }] });

function gate(answer: PermissionAnswer, rules: { allow?: string[] } = {}) {
  const prompter = new ScriptedPrompter(() => answer);
  return { prompter, gate: new PermissionGate({ prompter, rules: () => rules }) };
}

describe('PreToolUse hooks in the call pipeline', () => {
  it('blocks a call with exit code 2 (bash): the server sees nothing and the reason is what the caller reads', async () => {
    const ws = await workspace({});
    const log = path.join(ws.dir, 'deny.log');
    fs.writeFileSync(path.join(ws.dir, '.harness/hooks.json'), JSON.stringify({ hooks: pre(`bash ${path.join(hooksDir, 'deny.sh')} ${log} no echo on Fridays`) }));
    await ws.harness.applyConfig();
    const audit = new AuditLog(path.join(ws.dir, 'audit.jsonl'));
    const { gate: g, prompter } = gate({ choice: 'once' });
    const outcome = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'hi' } }, { decider: g, audit });
    expect(outcome.state).toBe('denied');
    expect(outcome.text).toMatch(/^Not run: blocked by the PreToolUse hook "bash \S+deny\.sh .*": no echo on Fridays$/);
    expect(outcome.decider).toEqual({ by: 'hook', hook: expect.stringContaining('deny.sh') });
    expect(prompter.requests).toHaveLength(0);
    expect(ws.calls()).toEqual([]);
    const input = JSON.parse(fs.readFileSync(log, 'utf8').trim());
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'mcp__count__echo', tool_input: { text: 'hi' }, cwd: ws.dir, transcript_path: '' });
    await audit.flush();
    const lines = fs.readFileSync(path.join(ws.dir, 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditLine);
    expect(lines.map((l) => l.event)).toEqual(['hook', 'denied']);
    expect(lines[0]).toMatchObject({ hookEvent: 'PreToolUse', outcome: 'deny', tool: 'mcp__count__echo', exitCode: 2, detail: 'no echo on Fridays', source: 'workspace' });
    expect(typeof (lines[0] as { durationMs: number }).durationMs).toBe('number');
  });

  it('allows a call without a card, while a deny rule still wins', async () => {
    const ws = await workspace(pre(scripted('allow', `--log=${path.join(tmp.dir, 'unused.log')}`)));
    const { gate: g, prompter } = gate({ choice: 'deny' });
    const outcome = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'hi' } }, { decider: g });
    expect(outcome.state).toBe('done');
    expect(outcome.decider).toEqual({ by: 'hook', hook: expect.stringContaining('--mode=allow') });
    expect(prompter.requests).toHaveLength(0);
    expect(ws.calls()).toEqual(['call echo {"text":"hi"}']);

    const denied = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'x' } }, { decider: new PermissionGate({ prompter, rules: () => ({ deny: ['mcp__count__echo'] }) }) });
    expect(denied.state).toBe('denied');
    expect(ws.calls()).toHaveLength(1);
  });

  it('asks even when a rule would allow, and the card says which hook asked and why', async () => {
    const ws = await workspace(pre(scripted('ask', '--reason="a person must look at this"')));
    const denying = gate({ choice: 'deny' }, { allow: ['mcp__count__*'] });
    const refused = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'a' } }, { decider: denying.gate });
    expect(refused.state).toBe('denied');
    expect(denying.prompter.requests).toHaveLength(1);
    expect(denying.prompter.requests[0]!.askedBy).toEqual({ hook: expect.stringContaining('--mode=ask'), reason: 'a person must look at this' });
    expect(ws.calls()).toEqual([]);

    const allowing = gate({ choice: 'once' }, { allow: ['mcp__count__*'] });
    expect((await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'b' } }, { decider: allowing.gate })).state).toBe('done');
    expect(allowing.prompter.requests).toHaveLength(1);
    expect(ws.calls()).toEqual(['call echo {"text":"b"}']);

    // The caller's own call (CLI, library) has nobody to ask: the hook's ask is a no.
    const direct = await ws.harness.callTool('mcp__count__echo', { text: 'c' });
    expect(direct).toMatchObject({ isError: true, errorKind: 'denied' });
    expect(direct.text).toMatch(/asks for a person's confirmation \(a person must look at this\), and nobody can be asked here/);
    expect(ws.calls()).toHaveLength(1);
  });

  it('rewrites the arguments: the decision and the server get the rewritten ones, validated again', async () => {
    const ws = await workspace(pre(scripted('rewrite', `--set='{"text":"rewritten by the hook"}'`)));
    const { gate: g, prompter } = gate({ choice: 'once' });
    const outcome = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'original' } }, { decider: g });
    expect(outcome.text).toBe('rewritten by the hook');
    expect(prompter.requests[0]!.arguments).toEqual({ text: 'rewritten by the hook' });
    expect(ws.calls()).toEqual(['call echo {"text":"rewritten by the hook"}']);

    fs.writeFileSync(path.join(ws.dir, '.harness/hooks.json'), JSON.stringify({ hooks: pre(scripted('rewrite', `--set='{"text":42}'`)) }));
    await ws.harness.applyConfig();
    const invalid = await ws.harness.callTool('mcp__count__echo', { text: 'original' });
    expect(invalid.errorKind).toBe('invalid_arguments');
    expect(invalid.text).toMatch(/^The PreToolUse hook ".*--mode=rewrite.*" rewrote the arguments into ones that are not valid: /);
    expect(ws.calls()).toHaveLength(1);
  });

  it('never shows a hook the secrets the audit log would redact, and puts back the ones it left alone', async () => {
    const ws = await workspace({});
    fs.writeFileSync(path.join(ws.dir, '.harness/hooks.json'), JSON.stringify({ hooks: pre(scripted('rewrite', `--log=${ws.log} --set='{"extra":"x"}'`)) }));
    await ws.harness.applyConfig();
    // echo takes only `text`; the counting server records what it receives.
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const outcome = await ws.harness.callTool('mcp__count__echo', { text: `token ${token}` });
    expect(outcome.isError).toBe(false);
    const seen = ws.runs()[0].input.tool_input;
    expect(seen.text).toBe('token [redacted]');
    expect(JSON.stringify(ws.runs())).not.toContain(token);
    expect(ws.calls()).toEqual([`call echo ${JSON.stringify({ text: `token ${token}`, extra: 'x' })}`]);
  });

  it('fails closed when a hook times out (its whole process group killed), crashes or prints malformed output', async () => {
    const pids = path.join(tmp.dir, 'slow.pids');
    const ws = await workspace(pre(`bash ${path.join(hooksDir, 'slow.sh')} ${pids}`, 'mcp__count__.*', { timeout: 1 }));
    const timedOut = await ws.harness.callTool('mcp__count__echo', { text: 'x' });
    expect(timedOut.errorKind).toBe('hook_failed');
    expect(timedOut.text).toMatch(/^Not run: the PreToolUse hook "bash .*slow\.sh.*" timed out after 1 s and was killed\. Calls this hook guards do not run while it fails/);
    for (const pid of fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number)) expect(() => process.kill(pid, 0)).toThrow();

    const cases: Array<[string, RegExp]> = [
      [scripted('crash', '"--reason=disk full"'), /exited with code 1: boom: disk full\. Calls/],
      [scripted('malformed'), /printed output that starts like JSON but is not valid JSON/],
      [scripted('wrong-type'), /printed JSON that is not a valid PreToolUse answer: "hookSpecificOutput.permissionDecision" must be "allow", "deny" or "ask", got "maybe"/],
      ['exit 7', /exited with code 7/],
      ['kill -9 $$', /was killed by SIGKILL/],
    ];
    for (const [command, message] of cases) {
      fs.writeFileSync(path.join(ws.dir, '.harness/hooks.json'), JSON.stringify({ hooks: pre(command) }));
      await ws.harness.applyConfig();
      const outcome = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'x' } });
      expect(outcome.state, command).toBe('error');
      expect(outcome.errorKind, command).toBe('hook_failed');
      expect(outcome.text, command).toMatch(message);
    }
    expect(ws.calls()).toEqual([]);
  });

  it('lets a call through a failing hook marked "onError": "continue", and says so', async () => {
    const ws = await workspace(pre(scripted('crash'), 'mcp__count__.*', { onError: 'continue' }));
    const outcome = await ws.harness.call({ name: 'mcp__count__echo', arguments: { text: 'x' } });
    expect(outcome.state).toBe('done');
    expect(outcome.hookMessages).toEqual([expect.stringMatching(/the PreToolUse hook ".*" exited with code 1: .*it is marked "onError": "continue", so this went on without it\./)]);
    expect(ws.calls()).toHaveLength(1);
  });

  it('binds matchers to configured server names, not to exposed names another server can take', async () => {
    // Both servers' tools want the exposed name mcp__p_q__echo: the first to list it gets it, the other `_2`.
    const ws = await workspace({}, {}, { 'p.q': 'pq-dot.log', p_q: 'pq-underscore.log', count__evil: 'evil.log' });
    const deny = (matcher: string, reason: string) => ({ matcher, hooks: [{ type: 'command', command: scripted('deny-json', `"--reason=${reason}"`) }] });
    fs.writeFileSync(
      path.join(ws.dir, '.harness/hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [deny('mcp__p_q__echo', 'the p_q hook'), deny('mcp__p\\.q__echo', 'the p.q hook'), { matcher: 'mcp__count__.*', hooks: [{ type: 'command', command: `bash ${path.join(hooksDir, 'deny.sh')} ${path.join(ws.dir, 'deny.log')} count only` }] }] } }),
    );
    await ws.harness.applyConfig();
    expect(ws.harness.configErrors()).toEqual([]);
    const names = Object.fromEntries(ws.harness.tools().filter((t) => t.originalName === 'echo').map((t) => [t.server!, t.name]));
    expect([names['p.q'], names.p_q].sort()).toEqual(['mcp__p_q__echo', 'mcp__p_q__echo_2']);
    expect(names.count__evil).toBe('mcp__count__evil__echo');
    // Each matcher names a server: its tool is denied by that hook alone, whichever exposed name it got.
    expect((await ws.harness.callTool(names['p.q']!, { text: 'dot' })).text).toMatch(/: the p\.q hook$/);
    expect((await ws.harness.callTool(names.p_q!, { text: 'underscore' })).text).toMatch(/: the p_q hook$/);
    // `mcp__count__.*` is about the server `count`; `count__evil` is another server.
    expect((await ws.harness.callTool('mcp__count__evil__echo', { text: 'evil' })).isError).toBe(false);
    expect([ws.calls('pq-dot.log'), ws.calls('pq-underscore.log'), ws.calls('evil.log')]).toEqual([[], [], ['call echo {"text":"evil"}']]);
  });
});
