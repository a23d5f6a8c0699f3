import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HookDefinition, HookEventName } from '../../../src/core/config/hookTypes';
import { HookRunner, type HookRunRecord } from '../../../src/core/hooks/HookRunner';
import type { HarnessTool } from '../../../src/core/tools/types';

// Hooks are shell commands: these run real, short `/bin/sh -c` lines.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-hooks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let seq = 0;
function hook(event: HookEventName, command: string, extra: Partial<HookDefinition> = {}, workspaceFolder: string | undefined = dir): HookDefinition {
  const id = `h${seq++}`;
  return {
    id,
    event,
    matcher: '',
    command,
    timeoutSec: 10,
    onError: 'block',
    origin: { source: 'workspace', file: path.join(dir, '.harness/hooks.json'), jsonPath: `hooks.${event}[0].hooks[${id}]`, ...(workspaceFolder ? { workspaceFolder } : {}) },
    ...extra,
  };
}

const tool: HarnessTool = { name: 'mcp__files__write', description: 'Writes', inputSchema: { type: 'object' }, server: 'files', originalName: 'write', pin: 'p1' };
const builtin: HarnessTool = { name: 'run_command', description: 'Runs', inputSchema: { type: 'object' }, originalName: 'run_command', pin: 'p2' };
const signal = new AbortController().signal;
const context = (t = tool, args: Record<string, unknown> = { path: 'a.txt', token: 'sk-live-1234567890abcdef1234' }) => ({ callId: 'call-1', tool: t, arguments: args, signal, conversationId: 'conv-1' });

/** A command that saves its stdin to `file`, then prints `output`. */
const capture = (file: string, output = '') => `cat > ${JSON.stringify(path.join(dir, file))}; printf '%s' '${output}'`;
const captured = (file: string) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;

function runner(hooks: HookDefinition[], extra: ConstructorParameters<typeof HookRunner>[0] = {}) {
  const r = new HookRunner({ now: () => 1234, env: () => ({ PATH: process.env.PATH ?? '/usr/bin:/bin' }), ...extra });
  r.setHooks(hooks);
  const runs: HookRunRecord[] = [];
  r.onDidRun((e) => runs.push(e));
  return { r, runs };
}

describe('HookRunner', () => {
  it('tells of a new set of hooks, not of the same one again', () => {
    const r = new HookRunner();
    let changes = 0;
    r.onDidChange(() => changes++);
    const hooks = [hook('PreToolUse', 'true')];
    r.setHooks(hooks);
    r.setHooks(JSON.parse(JSON.stringify(hooks)));
    r.refresh();
    expect(changes).toBe(2);
  });

  it('lists every hook with why it may not run', () => {
    const allowed = hook('PreToolUse', 'true');
    const pending = hook('PreToolUse', 'false');
    const { r } = runner([allowed, pending], { permit: (h) => (h === pending ? 'not approved yet' : undefined) });
    expect(r.hooks()).toEqual([{ hook: allowed }, { hook: pending, blocked: 'not approved yet' }]);
  });

  it('gives a PreToolUse hook the call as JSON on stdin, secrets redacted, in its folder with its env', async () => {
    const h = hook('PreToolUse', `${capture('pre.json')}; echo "$CLAUDE_PROJECT_DIR|$MCP_HARNESS_PROJECT_DIR|$PWD" > ${JSON.stringify(path.join(dir, 'pre.env'))}`);
    const { r, runs } = runner([h]);
    const verdict = await r.preToolUse(context());
    expect(verdict.outcome).toBe('go');
    const input = captured('pre.json');
    expect(input).toMatchObject({ session_id: 'conv-1', cwd: dir, hook_event_name: 'PreToolUse', tool_name: 'mcp__files__write', tool_use_id: 'call-1', permission_mode: 'default' });
    expect(JSON.stringify(input.tool_input)).not.toContain('sk-live-1234567890abcdef1234');
    expect(fs.readFileSync(path.join(dir, 'pre.env'), 'utf8').trim()).toBe(`${dir}|${dir}|${fs.realpathSync(dir)}`);
    expect(runs).toEqual([
      expect.objectContaining({ hookEvent: 'PreToolUse', hook: h.command, hookId: h.id, source: 'workspace', tool: 'mcp__files__write', server: 'files', callId: 'call-1', conversationId: 'conv-1', outcome: 'ok', exitCode: 0, time: 1234 }),
    ]);
  });

  it('denies a call with the reason a hook gave, and reports what it changed', async () => {
    const deny = hook('PreToolUse', `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on Fridays"}}'`);
    const { r, runs } = runner([deny]);
    expect(await r.preToolUse(context())).toMatchObject({ outcome: 'deny', reason: 'not on Fridays' });
    expect(runs[0]).toMatchObject({ outcome: 'deny', detail: 'not on Fridays' });
    const rewrite = hook('PreToolUse', `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"path":"b.txt"}}}'`);
    const second = runner([rewrite]);
    expect(await second.r.preToolUse(context())).toMatchObject({ outcome: 'go', updatedInput: { path: 'b.txt' } });
    expect(second.runs[0]).toMatchObject({ outcome: 'ok', changed: ['input'] });
  });

  it('runs only the hooks whose matcher takes the tool, each command once, and reports a skipped one', async () => {
    const files = hook('PreToolUse', capture('matched.json'), { matcher: 'mcp__files__.*' });
    const again = hook('PreToolUse', capture('matched.json'), { matcher: '.*' });
    const other = hook('PreToolUse', capture('other.json'), { matcher: 'mcp__github__.*' });
    const blocked = hook('PreToolUse', 'echo should-not-run', { matcher: '' });
    const { r, runs } = runner([files, again, other, blocked], { permit: (h) => (h === blocked ? 'the workspace is not trusted' : undefined) });
    await r.preToolUse(context());
    expect(runs.map((e) => [e.hookId, e.outcome, e.detail])).toEqual([
      [files.id, 'ok', undefined],
      [blocked.id, 'skipped', 'the workspace is not trusted'],
    ]);
    expect(fs.existsSync(path.join(dir, 'other.json'))).toBe(false);
    const onBuiltin = await runner([hook('PreToolUse', capture('builtin.json'), { matcher: 'run_command' })]).r.preToolUse(context(builtin, { command: 'ls' }));
    expect(onBuiltin.outcome).toBe('go');
    expect(captured('builtin.json')).toMatchObject({ tool_name: 'run_command', mcp_harness: { server: null, tool: 'run_command' } });
  });

  it('fails a call whose guarding hook crashed, and keeps the last stderr lines, redacted, for the log', async () => {
    const crash = hook('PreToolUse', `cat >/dev/null; for i in 1 2 3 4 5 6 7; do echo "line $i" >&2; done; echo "token sk-live-1234567890abcdef1234" >&2; exit 3`);
    const { r, runs } = runner([crash]);
    const verdict = await r.preToolUse(context());
    expect(verdict).toMatchObject({ outcome: 'failed', hook: expect.any(String) });
    expect(runs[0]).toMatchObject({ outcome: 'error', exitCode: 3 });
    expect(runs[0].detail).toMatch(/^exited with code 3/);
    expect(runs[0].continued).toBeUndefined();
    expect(runs[0].stderr!.split('\n')).toHaveLength(5);
    expect(runs[0].stderr).toMatch(/^line 4\n/);
    expect(runs[0].stderr).not.toContain('sk-live-1234567890abcdef1234');
    const lenient = runner([{ ...crash, onError: 'continue' }]);
    expect((await lenient.r.preToolUse(context())).outcome).toBe('go');
    expect(lenient.runs[0]).toMatchObject({ outcome: 'error', continued: true });
  });

  it('replaces a result with what a PostToolUse hook gives instead', async () => {
    const h = hook('PostToolUse', capture('post.json', '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"cleaned"}]}}'));
    const { r, runs } = runner([h]);
    const result = { isError: false, text: 'raw', content: [{ type: 'text' as const, text: 'raw' }] };
    expect(await r.postToolUse({ ...context(), result })).toMatchObject({ outcome: 'none', replacement: [{ type: 'text', text: 'cleaned' }] });
    expect(captured('post.json')).toMatchObject({ hook_event_name: 'PostToolUse', tool_response: [{ type: 'text', text: 'raw' }], mcp_harness: { result: { text: 'raw', isError: false } } });
    expect(runs[0]).toMatchObject({ changed: ['output'] });
  });

  it('gives a prompt hook the prompt, redacted, and takes its words as context or its block as a refusal', async () => {
    const context1 = hook('UserPromptSubmit', capture('prompt.json', 'It is Tuesday.'));
    const { r, runs } = runner([context1]);
    const verdict = await r.userPromptSubmit({ conversationId: 'conv-9', prompt: 'use sk-live-1234567890abcdef1234 please' });
    expect(verdict).toMatchObject({ notes: [{ text: 'It is Tuesday.' }] });
    expect(captured('prompt.json')).toMatchObject({ hook_event_name: 'UserPromptSubmit', session_id: 'conv-9' });
    expect(String(captured('prompt.json').prompt)).not.toContain('sk-live-1234567890abcdef1234');
    expect(runs[0]).toMatchObject({ conversationId: 'conv-9', changed: ['context'] });
    const refuse = runner([hook('UserPromptSubmit', `cat >/dev/null; echo 'no secrets here' >&2; exit 2`)]);
    expect(await refuse.r.userPromptSubmit({ conversationId: 'c', prompt: 'hi' })).toMatchObject({ blocked: expect.objectContaining({ reason: 'no secrets here' }) });
    expect(refuse.runs[0]).toMatchObject({ outcome: 'block', detail: 'no secrets here' });
  });

  it('runs session hooks whose matcher takes the source, and stops when a hook says to', async () => {
    const onStartup = hook('SessionStart', capture('session.json', 'Welcome back.'), { matcher: 'startup' });
    const onClear = hook('SessionStart', 'cat >/dev/null; echo cleared', { matcher: 'clear' });
    const { r, runs } = runner([onStartup, onClear]);
    expect(await r.sessionStart({ conversationId: 'c2', source: 'startup' })).toMatchObject({ notes: [{ text: 'Welcome back.' }] });
    expect(captured('session.json')).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(runs).toHaveLength(1);
    const stop = runner([hook('SessionStart', `cat >/dev/null; echo '{"continue":false,"stopReason":"maintenance"}'`)]);
    await stop.r.sessionStart({ conversationId: 'c3', source: 'resume' });
    expect(stop.runs[0]).toMatchObject({ outcome: 'stop', detail: 'maintenance' });
  });

  it('runs a hook of no folder in the project folder the host names, with PATH and HOME by default', async () => {
    const h = hook('SessionStart', `cat >/dev/null; echo "$PWD|$HOME|$CLAUDE_PROJECT_DIR|\${SECRET_ENV:-unset}" > ${JSON.stringify(path.join(dir, 'where.txt'))}`, {}, undefined);
    process.env.SECRET_ENV = 'leaked';
    try {
      const r = new HookRunner({ projectDir: () => dir });
      r.setHooks([h]);
      await r.sessionStart({ conversationId: 'c', source: 'startup' });
    } finally {
      delete process.env.SECRET_ENV;
    }
    expect(fs.readFileSync(path.join(dir, 'where.txt'), 'utf8').trim()).toBe(`${fs.realpathSync(dir)}|${process.env.HOME ?? ''}|${dir}|unset`);
  });
});
