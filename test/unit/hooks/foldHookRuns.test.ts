import { describe, expect, it } from 'vitest';
import type { HarnessCallResult } from '../../../src/core/calls/types';
import type { HookDefinition, HookEventName } from '../../../src/core/config/hookTypes';
import { foldPostToolUse, foldPreToolUse, foldPrompt, foldSession, hookLabel, type HookStep } from '../../../src/core/hooks/foldHookRuns';
import type { HookReading, HookResponse } from '../../../src/core/hooks/readHookRun';
import type { AuditHookEntry } from '../../../src/core/permissions/AuditLog';
import { redactSecrets } from '../../../src/core/permissions/redactSecrets';

function hook(command: string, event: HookEventName = 'PreToolUse', onError: 'block' | 'continue' = 'block'): HookDefinition {
  return { id: `f#${command}`, event, matcher: '', command, timeoutSec: 60, onError, origin: { source: 'user', file: 'f', jsonPath: command } };
}
const entry = (h: HookDefinition): AuditHookEntry => ({ hookEvent: h.event, hook: h.command, hookId: h.id, source: 'user', durationMs: 0, outcome: 'ok' });
const said = (response: HookResponse): HookReading => ({ ok: true, response });
const failed = (problem: string): HookReading => ({ ok: false, kind: 'crash', problem });

/** A run function answering each hook by its command, remembering what each one saw. */
function script(readings: Record<string, HookReading | undefined>) {
  const saw: Array<[string, unknown]> = [];
  const run = async (h: HookDefinition, seen?: unknown): Promise<HookStep> => {
    saw.push([h.command, seen]);
    return { hook: h, reading: readings[h.command], entry: entry(h) };
  };
  return { run, saw };
}

const RESULT: HarnessCallResult = { isError: false, text: 'orig', content: [{ type: 'text', text: 'orig' }], structuredContent: { a: 1 } };

describe('hookLabel', () => {
  it('names a hook by its command line with whitespace folded, cut at 80 characters', () => {
    expect(hookLabel(hook('  a \n  b\tc  '))).toBe('a b c');
    expect(hookLabel(hook('x'.repeat(80)))).toBe('x'.repeat(80));
    expect(hookLabel(hook('x'.repeat(81)))).toBe(`${'x'.repeat(79)}…`);
  });
});

describe('foldPreToolUse', () => {
  it('goes on with nothing when no hook said anything, and audits skipped runs too', async () => {
    const { run } = script({ a: undefined, b: said({}) });
    expect(await foldPreToolUse([hook('a'), hook('b')], { x: 1 }, run)).toStrictEqual({ runs: [entry(hook('a')), entry(hook('b'))], notes: [], messages: [], outcome: 'go' });
  });

  it('ends at the first deny with its reason, or a default one; later hooks do not run', async () => {
    const { run, saw } = script({ a: said({ systemMessage: 'hi', context: 'ctx' }), b: said({ decision: 'deny', reason: 'no' }), c: said({}) });
    expect(await foldPreToolUse([hook('a'), hook('b'), hook('c')], {}, run)).toStrictEqual({
      runs: [entry(hook('a')), entry(hook('b'))],
      notes: [{ hook: 'a', text: 'ctx' }],
      messages: ['a: hi'],
      outcome: 'deny',
      hook: 'b',
      reason: 'no',
    });
    expect(saw.map(([c]) => c)).toEqual(['a', 'b']);
    const bare = await foldPreToolUse([hook('d')], {}, script({ d: said({ decision: 'deny' }) }).run);
    expect(bare).toMatchObject({ outcome: 'deny', hook: 'd', reason: 'the hook denied it' });
  });

  it('turns continue: false into a deny with a stop, with its reason or a default one', async () => {
    expect(await foldPreToolUse([hook('s')], {}, script({ s: said({ stop: { reason: 'halt' } }) }).run)).toMatchObject({ outcome: 'deny', hook: 's', reason: 'halt', stop: { hook: 's', reason: 'halt' } });
    const bare = await foldPreToolUse([hook('s')], {}, script({ s: said({ stop: {} }) }).run);
    expect(bare).toMatchObject({ outcome: 'deny', reason: 'a hook stopped the turn' });
    expect(bare.stop).toStrictEqual({ hook: 's' });
  });

  it('fails on a guarding hook that failed, and reports one marked continue', async () => {
    const guard = await foldPreToolUse([hook('g')], {}, script({ g: failed('timed out after 60 s') }).run);
    expect(guard).toMatchObject({ outcome: 'failed', hook: 'g', reason: 'the PreToolUse hook "g" timed out after 60 s', messages: [] });
    const soft = await foldPreToolUse([hook('g', 'PreToolUse', 'continue'), hook('h')], {}, script({ g: failed('crashed'), h: said({ decision: 'allow' }) }).run);
    expect(soft).toMatchObject({ outcome: 'go', decision: 'allow', hook: 'h', messages: ['the PreToolUse hook "g" crashed; it is marked "onError": "continue", so this went on without it.'] });
  });

  it('lets ask win over allow, keeps the first of each, and passes rewritten arguments on', async () => {
    const { run, saw } = script({
      a: said({ decision: 'allow', reason: 'fine', updatedInput: { x: 2 } }),
      b: said({ decision: 'allow', reason: 'also' }),
      c: said({ decision: 'ask', updatedInput: { x: 3 } }),
      d: said({ decision: 'ask', reason: 'later' }),
    });
    const verdict = await foldPreToolUse([hook('a'), hook('b'), hook('c'), hook('d')], { x: 1 }, run);
    expect(verdict).toMatchObject({ outcome: 'go', decision: 'ask', hook: 'c', updatedInput: { x: 3 }, inputBy: 'c' });
    expect(verdict).not.toHaveProperty('reason');
    expect(saw).toEqual([['a', { x: 1 }], ['b', { x: 2 }], ['c', { x: 2 }], ['d', { x: 3 }]]);
    const allowed = await foldPreToolUse([hook('a'), hook('b')], { x: 1 }, run);
    expect(allowed).toMatchObject({ decision: 'allow', hook: 'a', reason: 'fine', inputBy: 'a' });
    const asked = await foldPreToolUse([hook('d'), hook('a')], { x: 1 }, run);
    expect(asked).toMatchObject({ decision: 'ask', hook: 'd', reason: 'later' });
  });

  it('puts back a secret the rewriting hook only saw redacted', async () => {
    const args = { token: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', q: 'a' };
    const seen = redactSecrets(args) as Record<string, unknown>;
    expect(seen.token).not.toBe(args.token);
    const { run } = script({ a: said({ updatedInput: { ...seen, q: 'b' } }) });
    const verdict = await foldPreToolUse([hook('a')], args, run);
    expect(verdict).toMatchObject({ updatedInput: { token: args.token, q: 'b' } });
    expect(verdict).toMatchObject({ outcome: 'go', inputBy: 'a' });
    expect(verdict).not.toHaveProperty('decision');
    expect(verdict).not.toHaveProperty('hook');
  });
});

describe('foldPostToolUse', () => {
  it('gives nothing instead when no hook replaced the result', async () => {
    const { run } = script({ a: said({}) });
    expect(await foldPostToolUse([hook('a', 'PostToolUse')], RESULT, run)).toStrictEqual({ runs: [entry(hook('a', 'PostToolUse'))], notes: [], messages: [], outcome: 'none' });
  });

  it('chains replacements, notes blocks, keeps the first stop, and fails on a guarding failure', async () => {
    const one = [{ type: 'text' as const, text: 'one' }, { type: 'image' as const, data: 'x', mimeType: 'image/png' }, { type: 'text' as const, text: 'two' }];
    const { run, saw } = script({
      a: said({ replacement: one, stop: { reason: 'r1' } }),
      b: said({ decision: 'block', reason: 'leaks' }),
      c: said({ decision: 'block', stop: {}, replacement: [{ type: 'text', text: 'three' }] }),
    });
    const hooks = [hook('a', 'PostToolUse'), hook('b', 'PostToolUse'), hook('c', 'PostToolUse')];
    const verdict = await foldPostToolUse(hooks, RESULT, run);
    expect(verdict).toMatchObject({
      outcome: 'none',
      replacement: [{ type: 'text', text: 'three' }],
      replacedBy: 'c',
      stop: { hook: 'a', reason: 'r1' },
      notes: [{ hook: 'b', text: 'leaks' }, { hook: 'c', text: 'the hook flagged this result' }],
    });
    expect(saw[0]).toEqual(['a', RESULT]);
    expect(saw[1]![1]).toStrictEqual({ isError: false, text: 'one\n\ntwo', content: one, structuredContent: undefined });
    const stopOnly = await foldPostToolUse([hook('c', 'PostToolUse')], RESULT, script({ c: said({ stop: {} }) }).run);
    expect(stopOnly.stop).toStrictEqual({ hook: 'c' });
    const guard = await foldPostToolUse([hook('g', 'PostToolUse'), hook('a', 'PostToolUse')], RESULT, script({ g: failed('crashed'), a: said({}) }).run);
    expect(guard).toMatchObject({ outcome: 'failed', hook: 'g', reason: 'the PostToolUse hook "g" crashed' });
    expect(guard.runs).toHaveLength(1);
  });
});

describe('foldPrompt and foldSession', () => {
  it('refuses a prompt on a block, a stop or a guarding failure, with the reason that fits', async () => {
    const p = (r: HookReading) => foldPrompt([hook('p', 'UserPromptSubmit'), hook('q', 'UserPromptSubmit')], script({ p: r, q: said({ context: 'late' }) }).run);
    expect((await p(said({ decision: 'block', reason: 'rude' }))).blocked).toEqual({ hook: 'p', reason: 'rude' });
    expect((await p(said({ stop: { reason: 'halt' }, reason: 'other' }))).blocked).toEqual({ hook: 'p', reason: 'halt' });
    expect((await p(said({ stop: {}, reason: 'other' }))).blocked).toEqual({ hook: 'p', reason: 'other' });
    expect((await p(said({ decision: 'block' }))).blocked).toEqual({ hook: 'p', reason: 'the hook refused the prompt' });
    expect((await p(failed('crashed'))).blocked).toEqual({ hook: 'p', reason: 'the UserPromptSubmit hook "p" crashed' });
    const fine = await p(said({ context: 'early' }));
    expect(fine).toStrictEqual({ runs: [entry(hook('p', 'UserPromptSubmit')), entry(hook('q', 'UserPromptSubmit'))], notes: [{ hook: 'p', text: 'early' }, { hook: 'q', text: 'late' }], messages: [] });
  });

  it('only reports a session hook that failed', async () => {
    const verdict = await foldSession([hook('s', 'SessionStart'), hook('t', 'SessionStart'), hook('u', 'SessionStart')], script({ s: failed('crashed'), t: said({ context: 'hello' }), u: undefined }).run);
    expect(verdict).toStrictEqual({ runs: [entry(hook('s', 'SessionStart')), entry(hook('t', 'SessionStart')), entry(hook('u', 'SessionStart'))], notes: [{ hook: 't', text: 'hello' }], messages: ['the SessionStart hook "s" crashed.'] });
  });
});
