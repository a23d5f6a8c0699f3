import { describe, expect, it } from 'vitest';
import type { HarnessCallResult, IToolCallHooks, PostToolUseVerdict, PreToolUseVerdict, ToolHookContext } from '../../../src/core/calls/types';
import type { AuditHookEntry, IAuditSink } from '../../../src/core/permissions/AuditLog';
import type { ICallDecider, DecisionRequest } from '../../../src/core/permissions/types';
import { PipelineFixture } from '../../support/pipeline';

const ECHO = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };
const NOTHING = { runs: [], notes: [], messages: [] } as const;

function run(hook: string, hookEvent: AuditHookEntry['hookEvent'] = 'PreToolUse'): AuditHookEntry {
  return { hookEvent, hook, hookId: `hooks.json#${hook}`, source: 'user', durationMs: 0, outcome: 'ok' };
}

/** Hooks that answer what the test says and remember what they were told. */
class ScriptedHooks implements IToolCallHooks {
  matches?: IToolCallHooks['matches'];
  readonly pre: ToolHookContext[] = [];
  readonly post: Array<ToolHookContext & { readonly result: HarnessCallResult }> = [];
  constructor(
    public preVerdict: PreToolUseVerdict = { ...NOTHING, outcome: 'go' },
    public postVerdict: PostToolUseVerdict = { ...NOTHING, outcome: 'none' },
  ) {}
  async preToolUse(context: ToolHookContext): Promise<PreToolUseVerdict> {
    this.pre.push(context);
    return this.preVerdict;
  }
  async postToolUse(context: ToolHookContext & { readonly result: HarnessCallResult }): Promise<PostToolUseVerdict> {
    this.post.push(context);
    return this.postVerdict;
  }
}

/** An audit sink that keeps every entry, in order, by kind. */
function recordingAudit() {
  const lines: Array<[string, unknown]> = [];
  const sink: IAuditSink = {
    start: (entry) => (lines.push(['start', entry]), 'a1'),
    end: (id, result) => void lines.push(['end', { id, ...result }]),
    denied: (entry) => void lines.push(['denied', entry]),
    hook: (entry) => void lines.push(['hook', entry]),
  };
  return { sink, lines };
}

/** A decider that allows, remembering each request. */
function recordingDecider() {
  const asked: DecisionRequest[] = [];
  const decider: ICallDecider = { decide: async (call) => (asked.push(call), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
  return { decider, asked };
}

function setup(hooks: IToolCallHooks, reply: (args: Record<string, unknown>) => { isError: boolean; text: string } = (args) => ({ isError: false, text: `said ${String(args.text)}` }), maxOutputChars?: number) {
  return new PipelineFixture(async (_name, args) => reply(args), undefined, { hooks, defaults: () => (maxOutputChars !== undefined ? { maxOutputChars } : {}) }).setTools('fx', [ECHO]);
}

describe('call hooks in the pipeline', () => {
  it('adds no hook fields and no hint when the hooks said nothing', async () => {
    const hooks = new ScriptedHooks();
    const fx = setup(hooks);
    const { decider, asked } = recordingDecider();
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider, callId: 'c1' });
    expect(outcome).toMatchObject({ state: 'done', text: 'said a', isError: false });
    expect(outcome).not.toHaveProperty('hookNotes');
    expect(outcome).not.toHaveProperty('hookMessages');
    expect(outcome).not.toHaveProperty('hookStop');
    expect(asked).toHaveLength(1);
    expect(asked[0]).not.toHaveProperty('hook');
    expect(hooks.post[0]!.result).toMatchObject({ isError: false, text: 'said a' });
  });

  it('tells the hooks the call id, tool, arguments and signal, and the conversation and client only when there are some', async () => {
    const hooks = new ScriptedHooks();
    const fx = setup(hooks);
    const stop = new AbortController();
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { callId: 'c1', signal: stop.signal });
    for (const context of [hooks.pre[0]!, hooks.post[0]!]) {
      expect(context.callId).toBe('c1');
      expect(context.tool).toBe(fx.tool('mcp__fx__echo'));
      expect(context.arguments).toEqual({ text: 'a' });
      expect(context.signal).toBe(stop.signal);
      expect(context).not.toHaveProperty('conversationId');
      expect(context).not.toHaveProperty('client');
    }
    const client = { transport: 'http' as const, name: 'gw', version: '1' };
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'b' } }, { callId: 'c2', conversationId: 'conv', client });
    for (const context of [hooks.pre[1]!, hooks.post[1]!]) {
      expect(context).toMatchObject({ callId: 'c2', conversationId: 'conv', client });
      expect(context.signal.aborted).toBe(false);
    }
  });

  it('ends a denied call with the hook as decider, audits the denial and asks nobody', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, runs: [run('guard')], outcome: 'deny', hook: 'guard', reason: 'no echo today' });
    const fx = setup(hooks);
    const { decider, asked } = recordingDecider();
    const { sink, lines } = recordingAudit();
    const client = { transport: 'stdio' as const, name: 'gw' };
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider, audit: sink, client });
    expect(outcome).toMatchObject({
      state: 'denied',
      isError: true,
      errorKind: 'denied',
      text: 'Not run: blocked by the PreToolUse hook "guard": no echo today',
      content: [{ type: 'text', text: 'Not run: blocked by the PreToolUse hook "guard": no echo today' }],
      decider: { by: 'hook', hook: 'guard' },
    });
    const tool = fx.tool('mcp__fx__echo');
    expect(lines).toEqual([
      ['hook', run('guard')],
      ['denied', { tool: 'mcp__fx__echo', server: 'fx', originalName: 'echo', pin: tool.pin, arguments: { text: 'a' }, client, method: 'tools/call', decider: { by: 'hook', hook: 'guard' }, reason: 'no echo today' }],
    ]);
    expect(asked).toEqual([]);
    expect(fx.calls).toEqual([]);
    expect(hooks.post).toEqual([]);
  });

  it('ends the call when a guarding hook failed, saying how to let calls through', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'failed', hook: 'lint', reason: 'the hook "lint" timed out' });
    const fx = setup(hooks);
    const { sink, lines } = recordingAudit();
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { audit: sink });
    const text = 'Not run: the hook "lint" timed out. Calls this hook guards do not run while it fails (unless it is marked "onError": "continue").';
    expect(outcome).toMatchObject({ state: 'error', isError: true, errorKind: 'hook_failed', text, decider: { by: 'hook', hook: 'lint' } });
    expect(lines).toEqual([['denied', expect.objectContaining({ tool: 'mcp__fx__echo', decider: { by: 'hook', hook: 'lint' }, reason: 'the hook "lint" timed out' })]]);
    expect(lines[0]![1]).not.toHaveProperty('client');
    expect(fx.calls).toEqual([]);
  });

  it('calls with rewritten arguments, which the decider and the PostToolUse hooks see too', async () => {
    const updatedInput = { text: 'rewritten' };
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go', updatedInput, inputBy: 'fix' });
    const fx = setup(hooks);
    const { decider, asked } = recordingDecider();
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    expect(outcome).toMatchObject({ state: 'done', text: 'said rewritten' });
    expect(fx.calls.map((c) => c.args)).toEqual([{ text: 'rewritten' }]);
    expect(asked[0]!.arguments).toEqual({ text: 'rewritten' });
    expect(asked[0]).not.toHaveProperty('hook');
    expect(hooks.post[0]!.arguments).toEqual({ text: 'rewritten' });
    // A copy: the hook's object is not what goes on.
    expect(fx.calls[0]!.args).not.toBe(updatedInput);
  });

  it('refuses rewritten arguments that are not valid, naming the hook that wrote them', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go', updatedInput: { text: 3 }, inputBy: 'fix', decision: 'allow', hook: 'fix' });
    const fx = setup(hooks);
    const { decider, asked } = recordingDecider();
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    expect(outcome.state).toBe('error');
    expect(outcome.errorKind).toBe('invalid_arguments');
    expect(outcome.text).toMatch(/^The PreToolUse hook "fix" rewrote the arguments into ones that are not valid: .*text/);
    expect(outcome).not.toHaveProperty('decider');
    expect(asked).toEqual([]);
    expect(fx.calls).toEqual([]);
  });

  it("hands a hook's allow or ask to the decider, with its reason only when it gave one", async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go', decision: 'ask', hook: 'careful', reason: 'looks risky' });
    const fx = setup(hooks);
    const { decider, asked } = recordingDecider();
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    hooks.preVerdict = { ...NOTHING, outcome: 'go', decision: 'allow', hook: 'fine' };
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    // A decision nobody is named for is no hint.
    hooks.preVerdict = { ...NOTHING, outcome: 'go', decision: 'allow' };
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    // Nor is a hook named without a decision.
    hooks.preVerdict = { ...NOTHING, outcome: 'go', hook: 'quiet', reason: 'r' };
    await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { decider });
    expect(asked.map((a) => a.hook)).toEqual([{ decision: 'ask', hook: 'careful', reason: 'looks risky' }, { decision: 'allow', hook: 'fine' }, undefined, undefined]);
    expect(asked[1]!.hook).not.toHaveProperty('reason');
    expect(asked[2]).not.toHaveProperty('hook');
    expect(asked[3]).not.toHaveProperty('hook');
    expect(asked[0]!.arguments).toEqual({ text: 'a' });
  });

  it('the default decider denies an ask no one can answer, and lets an allow through', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go', decision: 'ask', hook: 'careful', reason: 'looks risky' });
    const fx = setup(hooks);
    const asked = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(asked).toMatchObject({ state: 'denied', decider: { by: 'hook', hook: 'careful' } });
    hooks.preVerdict = { ...NOTHING, outcome: 'go', decision: 'allow', hook: 'fine' };
    expect(await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {})).toMatchObject({ state: 'done', decider: { by: 'caller' } });
  });

  it('gathers notes and messages of both steps in order, audits every run, and keeps the first stop', async () => {
    const hooks = new ScriptedHooks(
      {
        runs: [run('p1'), run('p2')],
        notes: [{ hook: 'p1', text: 'pre note' }],
        messages: ['pre says hi'],
        stop: { hook: 'p2', reason: 'enough' },
        outcome: 'go',
      },
      {
        runs: [run('q1', 'PostToolUse')],
        notes: [{ hook: 'q1', text: 'post note' }, { hook: 'q1', text: 'second' }],
        messages: ['post says hi'],
        stop: { hook: 'q1' },
        outcome: 'none',
      },
    );
    const fx = setup(hooks);
    const { sink, lines } = recordingAudit();
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { audit: sink });
    expect(outcome.state).toBe('done');
    expect(outcome.hookNotes).toEqual([{ hook: 'p1', text: 'pre note' }, { hook: 'q1', text: 'post note' }, { hook: 'q1', text: 'second' }]);
    expect(outcome.hookMessages).toEqual(['pre says hi', 'post says hi']);
    expect(outcome.hookStop).toEqual({ hook: 'p2', reason: 'enough' });
    expect(lines.map(([kind, entry]) => (kind === 'hook' ? `hook ${(entry as AuditHookEntry).hook}` : kind))).toEqual(['hook p1', 'hook p2', 'start', 'end', 'hook q1']);
  });

  it('takes a stop from the PostToolUse hooks when the PreToolUse ones gave none, and hook fields on a denial too', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go' }, { ...NOTHING, stop: { hook: 'q1', reason: 'done here' }, outcome: 'none' });
    const fx = setup(hooks);
    expect((await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {})).hookStop).toEqual({ hook: 'q1', reason: 'done here' });
    hooks.preVerdict = { ...NOTHING, messages: ['blocked it'], notes: [{ hook: 'g', text: 'why' }], stop: { hook: 'g' }, outcome: 'deny', hook: 'g', reason: 'r' };
    const denied = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(denied).toMatchObject({ state: 'denied', hookMessages: ['blocked it'], hookNotes: [{ hook: 'g', text: 'why' }], hookStop: { hook: 'g' } });
  });

  it('works without an audit sink, and with one that does not record hook runs', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, runs: [run('p1')], outcome: 'go' }, { ...NOTHING, runs: [run('q1', 'PostToolUse')], outcome: 'none' });
    const fx = setup(hooks);
    expect((await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {})).state).toBe('done');
    const { sink, lines } = recordingAudit();
    const { hook: _hook, ...noHook } = sink;
    expect((await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { audit: noHook })).state).toBe('done');
    expect(lines.map(([kind]) => kind)).toEqual(['start', 'end']);
  });

  it('withholds the result when a guarding PostToolUse hook failed; the tool did run', async () => {
    const hooks = new ScriptedHooks(undefined, { ...NOTHING, outcome: 'failed', hook: 'scan', reason: 'the hook "scan" crashed' });
    const fx = setup(hooks);
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'secret' } }, {});
    const text = 'The result was withheld: the hook "scan" crashed. The tool did run; its result is not shown while this hook fails (unless it is marked "onError": "continue").';
    expect(outcome).toMatchObject({ state: 'error', isError: true, errorKind: 'hook_failed', text, content: [{ type: 'text', text }] });
    expect(fx.calls).toHaveLength(1);
  });

  it('gives the result a PostToolUse hook gave instead, formatted like a server result', async () => {
    const hooks = new ScriptedHooks(undefined, {
      ...NOTHING,
      outcome: 'none',
      replacement: [
        { type: 'text', text: 'one' },
        { type: 'text', text: 'two' },
      ],
      replacedBy: 'rw',
    });
    const fx = setup(hooks);
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(outcome).toMatchObject({ state: 'done', isError: false, text: 'one\ntwo', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] });
    expect(outcome).not.toHaveProperty('errorKind');
  });

  it("keeps a tool error an error when a hook replaces its text, and runs PostToolUse on tool errors only", async () => {
    const hooks = new ScriptedHooks(undefined, { ...NOTHING, outcome: 'none', replacement: [{ type: 'text', text: 'explained' }] });
    const fx = setup(hooks, () => ({ isError: true, text: 'boom' }));
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(outcome).toMatchObject({ state: 'error', isError: true, errorKind: 'tool_error', text: 'explained' });
    expect(hooks.post[0]!.result).toMatchObject({ isError: true, errorKind: 'tool_error', text: 'boom' });
    fx.down.add('fx');
    fx.registry.removeServer('fx');
    const missing = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(missing.errorKind).toBe('unavailable');
    expect(hooks.post).toHaveLength(1);
  });

  it("caps a replacement at the harness's maxOutputChars, else at the default cap", async () => {
    const hooks = new ScriptedHooks(undefined, { ...NOTHING, outcome: 'none', replacement: [{ type: 'text', text: 'x'.repeat(50) }] });
    const capped = await setup(hooks, undefined, 10).call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(capped.text.startsWith('x'.repeat(10))).toBe(true);
    expect(capped.text.startsWith('x'.repeat(11))).toBe(false);
    hooks.postVerdict = { ...NOTHING, outcome: 'none', replacement: [{ type: 'text', text: 'y'.repeat(100_001) }] };
    const big = await setup(hooks).call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(big.text.startsWith('y'.repeat(100_000))).toBe(true);
    expect(big.text.startsWith('y'.repeat(100_001))).toBe(false);
  });

  it('answers a hook that asks for a person with no when the caller decides, and lets an allow through', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'go', decision: 'ask', hook: 'careful', reason: 'look first' });
    const fx = setup(hooks);
    const { sink, lines } = recordingAudit();
    const asked = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { audit: sink });
    expect(asked).toMatchObject({ state: 'denied', errorKind: 'denied', decider: { by: 'hook', hook: 'careful' } });
    expect(asked.text).toBe('Not run: the PreToolUse hook "careful" asks for a person\'s confirmation (look first), and nobody can be asked here.');
    expect(lines.map(([kind]) => kind)).toEqual(['denied']);
    hooks.preVerdict = { ...NOTHING, outcome: 'go', decision: 'allow', hook: 'careful' };
    expect(await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'b' } }, { audit: sink })).toMatchObject({ state: 'done', text: 'said b', decider: { by: 'caller' } });
    expect(lines.map(([kind]) => kind)).toEqual(['denied', 'start', 'end']);
    expect(fx.calls).toHaveLength(1);
  });

  it('leaves out a step no hook of the tool has: nothing is asked of the hooks, and the call goes on the same', async () => {
    const hooks = new ScriptedHooks({ ...NOTHING, outcome: 'deny', hook: 'pre', reason: 'never asked' });
    const asked: string[] = [];
    hooks.matches = (event, tool) => (asked.push(`${event} ${tool.name}`), event === 'PostToolUse');
    hooks.postVerdict = { ...NOTHING, outcome: 'none', notes: [{ hook: 'post', text: 'seen' }] };
    const fx = setup(hooks);
    const outcome = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, {});
    expect(outcome).toMatchObject({ state: 'done', text: 'said a', hookNotes: [{ hook: 'post', text: 'seen' }] });
    expect(asked).toEqual(['PreToolUse mcp__fx__echo', 'PostToolUse mcp__fx__echo']);
    expect(hooks.pre).toEqual([]);
    expect(hooks.post).toHaveLength(1);
    expect(fx.calls).toHaveLength(1);
    hooks.matches = () => false;
    const plain = await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'b' } }, {});
    expect(plain).toMatchObject({ state: 'done', text: 'said b' });
    expect(plain.hookNotes).toBeUndefined();
    expect(hooks.post).toHaveLength(1);
  });

  it('says the call was cancelled when it was stopped while hooks ran', async () => {
    const stop = new AbortController();
    const hooks = new ScriptedHooks();
    hooks.preToolUse = async () => (stop.abort(), { ...NOTHING, outcome: 'go' });
    const fx = setup(hooks);
    expect(await fx.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { signal: stop.signal })).toMatchObject({ state: 'cancelled', text: 'Cancelled: the call was stopped before it ran.' });
    expect(fx.calls).toEqual([]);
    const later = new AbortController();
    const after = new ScriptedHooks();
    after.postToolUse = async () => (later.abort(), { ...NOTHING, outcome: 'none' });
    const fx2 = setup(after);
    const outcome = await fx2.call({ name: 'mcp__fx__echo', arguments: { text: 'a' } }, { signal: later.signal });
    expect(outcome).toMatchObject({ state: 'cancelled', errorKind: 'cancelled', text: 'Cancelled: the call was stopped while its hooks ran.', decider: { by: 'caller' } });
    expect(outcome.runMs).toBeTypeOf('number');
  });
});
