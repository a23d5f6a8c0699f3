import { describe, expect, it } from 'vitest';
import { readHookRun, type HookReading } from '../../../src/core/hooks/readHookRun';
import type { HookCommandRun } from '../../../src/core/hooks/runHookCommand';

const run = (over: Partial<HookCommandRun>): HookCommandRun => ({ exitCode: 0, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: false, durationMs: 5, ...over });
const json = (value: unknown) => run({ stdout: JSON.stringify(value) });
/** The problem of a malformed reading, without the common prefix. */
const problem = (reading: HookReading) => (reading.ok ? undefined : reading.problem.replace(/^printed JSON that is not a valid \w+ answer: /, ''));

describe('readHookRun, each field and failure on its own', () => {
  it('names a cancelled run, the stream that overflowed, and a signal it does not know', () => {
    expect(readHookRun('PreToolUse', run({ exitCode: null, cancelled: true, timedOut: true }), 5)).toEqual({ ok: false, kind: 'cancelled', problem: 'was stopped with the call' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, overflow: 'stderr' }), 5)).toEqual({ ok: false, kind: 'malformed', problem: 'wrote more stderr than is read (4 MiB) and was killed' });
    expect(readHookRun('PreToolUse', run({ exitCode: null, stderr: 'gone\n' }), 5)).toEqual({ ok: false, kind: 'crash', problem: 'was killed by a signal: gone' });
    expect(readHookRun('PreToolUse', run({ exitCode: 3, stderr: '  ' }), 5)).toEqual({ ok: false, kind: 'crash', problem: 'exited with code 3' });
  });

  it('says nothing for blank output, and reads plain text as context only for prompt and session hooks', () => {
    expect(readHookRun('UserPromptSubmit', run({ stdout: '  \n' }), 5)).toEqual({ ok: true, response: {} });
    expect(readHookRun('SessionStart', run({ stdout: 'hello\n' }), 5)).toEqual({ ok: true, response: { context: 'hello' } });
    expect(readHookRun('PostToolUse', run({ stdout: 'hello' }), 5)).toEqual({ ok: true, response: {} });
  });

  it('wants a JSON object, not another JSON value', () => {
    for (const stdout of ['[1]', '["a"]', '[]']) expect(readHookRun('PreToolUse', run({ stdout }), 5)).toEqual({ ok: false, kind: 'malformed', problem: 'printed a JSON array; expected a JSON object' });
    expect(readHookRun('PreToolUse', run({ stdout: '{"a": }' }), 5)).toMatchObject({ ok: false, kind: 'malformed', problem: expect.stringMatching(/^printed output that starts like JSON but is not valid JSON \(/) });
  });

  it('checks the common fields, naming what each got', () => {
    expect(problem(readHookRun('PreToolUse', json({ continue: 'no' }), 5))).toBe('"continue" must be true or false, got a string');
    expect(problem(readHookRun('PreToolUse', json({ suppressOutput: 1 }), 5))).toBe('"suppressOutput" must be true or false, got a number');
    expect(problem(readHookRun('PreToolUse', json({ systemMessage: ['x'] }), 5))).toBe('"systemMessage" must be a string, got an array');
    expect(problem(readHookRun('PreToolUse', json({ reason: null, stopReason: {} }), 5))).toBe('"stopReason" must be a string, got an object');
    expect(problem(readHookRun('SessionStart', json({ decision: 'block' }), 5))).toBe('"decision" must be absent for SessionStart, got "block"');
    expect(problem(readHookRun('PreToolUse', json({ decision: 7 }), 5))).toBe('"decision" must be "approve" or "block" for PreToolUse, got 7');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: 'x' }), 5))).toBe('"hookSpecificOutput" must be an object, got a string');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: [] }), 5))).toBe('"hookSpecificOutput" must be an object, got an array');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: { additionalContext: null, permissionDecisionReason: 1 } }), 5))).toBe(
      '"hookSpecificOutput.permissionDecisionReason" must be a string, got a number',
    );
    expect(problem(readHookRun('PostToolUse', json({ hookSpecificOutput: { additionalContext: false } }), 5))).toBe('"hookSpecificOutput.additionalContext" must be a string, got a boolean');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: { hookEventName: 'PostToolUse' } }), 5))).toBe('"hookSpecificOutput.hookEventName" is "PostToolUse", but this hook ran for PreToolUse');
  });

  it('gives a response only the fields that were there', () => {
    expect(readHookRun('PreToolUse', json({ continue: true, suppressOutput: true, decision: null, hookSpecificOutput: null, systemMessage: null }), 5)).toStrictEqual({ ok: true, response: {} });
    expect(readHookRun('PreToolUse', json({ continue: false }), 5)).toStrictEqual({ ok: true, response: { stop: {} } });
    expect(readHookRun('PreToolUse', json({ continue: false, stopReason: 'enough' }), 5)).toStrictEqual({ ok: true, response: { stop: { reason: 'enough' } } });
    expect(readHookRun('PreToolUse', json({ hookSpecificOutput: { permissionDecision: null, updatedInput: null } }), 5)).toStrictEqual({ ok: true, response: {} });
    expect(readHookRun('PostToolUse', json({ hookSpecificOutput: { updatedMCPToolOutput: null, permissionDecision: 'deny', updatedInput: { a: 1 } } }), 5)).toStrictEqual({ ok: true, response: {} });
  });

  it('reads each PreToolUse decision and refuses another, and new input only as an object', () => {
    for (const decision of ['allow', 'deny', 'ask'] as const) {
      expect(readHookRun('PreToolUse', json({ hookSpecificOutput: { permissionDecision: decision, permissionDecisionReason: 'r' } }), 5)).toStrictEqual({ ok: true, response: { decision, reason: 'r' } });
    }
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: { permissionDecision: 'maybe' } }), 5))).toBe('"hookSpecificOutput.permissionDecision" must be "allow", "deny" or "ask", got "maybe"');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: { updatedInput: [1] } }), 5))).toBe('"hookSpecificOutput.updatedInput" must be an object of arguments, got an array');
    expect(problem(readHookRun('PreToolUse', json({ hookSpecificOutput: { updatedInput: 'x' } }), 5))).toBe('"hookSpecificOutput.updatedInput" must be an object of arguments, got a string');
  });

  it('takes a PostToolUse replacement as a string, text blocks or { content }, and nothing else', () => {
    const replaced = (value: unknown) => readHookRun('PostToolUse', json({ hookSpecificOutput: { updatedMCPToolOutput: value } }), 5);
    expect(replaced('new')).toStrictEqual({ ok: true, response: { replacement: [{ type: 'text', text: 'new' }] } });
    expect(replaced([{ type: 'text', text: 'a' }])).toStrictEqual({ ok: true, response: { replacement: [{ type: 'text', text: 'a' }] } });
    expect(replaced({ content: [{ type: 'text', text: 'b' }] })).toStrictEqual({ ok: true, response: { replacement: [{ type: 'text', text: 'b' }] } });
    const refused = '"hookSpecificOutput.updatedMCPToolOutput" must be a string, an array of text content blocks, or { "content": [...] }';
    for (const bad of [5, { content: 'x' }, { other: [] }, [null], ['text'], [{ type: 'image', text: 'a' }], [{ type: 'text', text: 1 }], [{ type: 'text' }]]) {
      expect(problem(replaced(bad))).toBe(refused);
    }
  });

  it('clips long reasons to 4000 characters and a crash\'s stderr to 500', () => {
    const long = 'x'.repeat(4001);
    const denied = readHookRun('PreToolUse', run({ exitCode: 2, stderr: long }), 5);
    expect(denied.ok && denied.response.reason).toBe(`${'x'.repeat(3999)}…`);
    const exact = readHookRun('PreToolUse', run({ exitCode: 2, stderr: 'y'.repeat(4000) }), 5);
    expect(exact.ok && exact.response.reason).toBe('y'.repeat(4000));
    const crashed = readHookRun('PreToolUse', run({ exitCode: 1, stderr: 'z'.repeat(600) }), 5);
    expect(!crashed.ok && crashed.problem).toBe(`exited with code 1: ${'z'.repeat(499)}…`);
  });
});
