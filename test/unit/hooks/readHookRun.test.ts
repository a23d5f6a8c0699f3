import { describe, expect, it } from 'vitest';
import { readHookRun } from '../../../src/core/hooks/readHookRun';
import type { HookCommandRun } from '../../../src/core/hooks/runHookCommand';

const run = (over: Partial<HookCommandRun>): HookCommandRun => ({ exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 5, ...over });
const json = (value: unknown) => run({ stdout: JSON.stringify(value) });

describe('reading a hook run (Claude Code exit codes and JSON)', () => {
  it('exit 0 with nothing printed says nothing', () => {
    expect(readHookRun('PreToolUse', run({}), 60)).toEqual({ ok: true, response: {} });
  });

  it('exit 2 blocks with stderr as the reason, by event', () => {
    const r = run({ exitCode: 2, stderr: 'no\n', stdout: '{"ignored": true}' });
    expect(readHookRun('PreToolUse', r, 60)).toEqual({ ok: true, response: { decision: 'deny', reason: 'no' } });
    expect(readHookRun('PostToolUse', r, 60)).toEqual({ ok: true, response: { decision: 'block', reason: 'no' } });
    expect(readHookRun('UserPromptSubmit', r, 60)).toEqual({ ok: true, response: { decision: 'block', reason: 'no' } });
    expect(readHookRun('SessionStart', r, 60)).toEqual({ ok: true, response: { systemMessage: 'no' } });
    expect(readHookRun('PreToolUse', run({ exitCode: 2 }), 60)).toEqual({ ok: true, response: { decision: 'deny', reason: 'the hook exited with code 2' } });
  });

  it('any other exit, a signal, a timeout or too much output is a failure that says what happened', () => {
    expect(readHookRun('PreToolUse', run({ exitCode: 1, stderr: 'a\nb\nc\nd' }), 60)).toEqual({ ok: false, kind: 'crash', problem: 'exited with code 1: b / c / d' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, signal: 'SIGSEGV' }), 60)).toEqual({ ok: false, kind: 'crash', problem: 'was killed by SIGSEGV' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, timedOut: true }), 5)).toEqual({ ok: false, kind: 'timeout', problem: 'timed out after 5 s and was killed' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, overflow: 'stdout' }), 5)).toMatchObject({ ok: false, kind: 'malformed' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, spawnError: 'ENOENT' }), 5)).toEqual({ ok: false, kind: 'spawn', problem: 'could not be started: ENOENT' });
  });

  it('reads PreToolUse decisions, the older approve/block spelling, reasons, new input and context', () => {
    const out = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'why', updatedInput: { a: 1 }, additionalContext: 'ctx' } };
    expect(readHookRun('PreToolUse', json(out), 60)).toEqual({ ok: true, response: { decision: 'ask', reason: 'why', updatedInput: { a: 1 }, context: 'ctx' } });
    expect(readHookRun('PreToolUse', json({ decision: 'approve', reason: 'ok' }), 60)).toEqual({ ok: true, response: { decision: 'allow', reason: 'ok' } });
    expect(readHookRun('PreToolUse', json({ decision: 'block', reason: 'no' }), 60)).toEqual({ ok: true, response: { decision: 'deny', reason: 'no' } });
  });

  it('reads continue: false, stopReason and systemMessage for every event', () => {
    expect(readHookRun('PostToolUse', json({ continue: false, stopReason: 'enough', systemMessage: 'hi', suppressOutput: true }), 60)).toEqual({ ok: true, response: { stop: { reason: 'enough' }, systemMessage: 'hi' } });
  });

  it('reads a PostToolUse replacement as a string, text blocks or { content }', () => {
    for (const replacement of ['new', [{ type: 'text', text: 'new' }], { content: [{ type: 'text', text: 'new' }] }]) {
      expect(readHookRun('PostToolUse', json({ hookSpecificOutput: { hookEventName: 'PostToolUse', updatedMCPToolOutput: replacement } }), 60)).toEqual({ ok: true, response: { replacement: [{ type: 'text', text: 'new' }] } });
    }
  });

  it('takes plain stdout as context for the chat events only', () => {
    expect(readHookRun('UserPromptSubmit', run({ stdout: 'the date is today\n' }), 60)).toEqual({ ok: true, response: { context: 'the date is today' } });
    expect(readHookRun('SessionStart', run({ stdout: 'welcome' }), 60)).toEqual({ ok: true, response: { context: 'welcome' } });
    expect(readHookRun('PreToolUse', run({ stdout: 'checked' }), 60)).toEqual({ ok: true, response: {} });
  });

  it('explains malformed output: broken JSON, a JSON array, wrong types, a decision of another event', () => {
    const problem = (event: Parameters<typeof readHookRun>[0], stdout: string) => {
      const r = readHookRun(event, run({ stdout }), 60);
      return r.ok ? 'ok' : `${r.kind}: ${r.problem}`;
    };
    expect(problem('PreToolUse', '{"decision": ')).toMatch(/^malformed: printed output that starts like JSON but is not valid JSON \(/);
    expect(problem('PreToolUse', '[1]')).toBe('malformed: printed a JSON array; expected a JSON object');
    expect(problem('PreToolUse', '{"hookSpecificOutput": {"permissionDecision": "maybe"}}')).toBe('malformed: printed JSON that is not a valid PreToolUse answer: "hookSpecificOutput.permissionDecision" must be "allow", "deny" or "ask", got "maybe"');
    expect(problem('PreToolUse', '{"continue": "no", "reason": 3}')).toBe('malformed: printed JSON that is not a valid PreToolUse answer: "continue" must be true or false, got a string; "reason" must be a string, got a number');
    expect(problem('PostToolUse', '{"decision": "approve"}')).toBe('malformed: printed JSON that is not a valid PostToolUse answer: "decision" must be "block" for PostToolUse, got "approve"');
    expect(problem('PreToolUse', '{"hookSpecificOutput": {"hookEventName": "PostToolUse"}}')).toBe('malformed: printed JSON that is not a valid PreToolUse answer: "hookSpecificOutput.hookEventName" is "PostToolUse", but this hook ran for PreToolUse');
    expect(problem('PreToolUse', '{"hookSpecificOutput": {"updatedInput": [1]}}')).toMatch(/"hookSpecificOutput.updatedInput" must be an object of arguments, got an array/);
    expect(problem('PostToolUse', '{"hookSpecificOutput": {"updatedMCPToolOutput": [{"type": "image"}]}}')).toMatch(/updatedMCPToolOutput" must be a string, an array of text content blocks/);
    expect(problem('SessionStart', '{"unknownField": 1}')).toBe('ok');
  });
});
