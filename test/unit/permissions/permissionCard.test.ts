import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import type { PermissionAnswer } from '../../../src/core/permissions/types';
import type { HarnessTool } from '../../../src/core/tools/types';
import { ScriptedPrompter } from '../../support/permissions';
import { harnessTool } from '../../support/tools';

const echo = harnessTool({ name: 'mcp__fx__echo', server: 'fx', originalName: 'echo', description: 'Echoes', inputSchema: { type: 'object' } });
const answers = (...list: PermissionAnswer[]) => new ScriptedPrompter(() => list.shift() ?? { choice: 'deny', reason: 'script ran out' });
const check = (gate: PermissionGate, tool: HarnessTool, signal = new AbortController().signal) => gate.decide({ callId: 'c1', tool, arguments: {} }, { signal });

describe('the permission card', () => {
  it('names the hook that asked for it, without a reason when the hook gave none', async () => {
    const prompter = answers({ choice: 'once' });
    const gate = new PermissionGate({ prompter });
    await gate.decide({ callId: 'c', tool: echo, arguments: {}, hook: { decision: 'ask', hook: 'guard.sh' } }, { signal: new AbortController().signal });
    expect(prompter.requests[0]!.askedBy).toStrictEqual({ hook: 'guard.sh' });
  });

  it('shows what changed since a tool was last allowed once', async () => {
    const prompter = answers({ choice: 'once' }, { choice: 'once' }, { choice: 'once' });
    const gate = new PermissionGate({ prompter });
    await check(gate, echo);
    await check(gate, echo);
    await check(gate, { ...echo, description: 'Echoes v2' });
    // The same definition again is no change; a new description is.
    expect(prompter.requests.map((r) => r.changedSinceApproval)).toEqual([undefined, undefined, '~ description: "Echoes" -> "Echoes v2"']);
  });

  it('denies an answer that arrives just before a Stop the gate sees only afterwards, and remembers nothing', async () => {
    const stop = new AbortController();
    const prompter = new ScriptedPrompter(() => {
      // The answer settles first; Stop comes two turns of the microtask queue later, after the
      // gate stopped listening for it but before the gate resumes.
      queueMicrotask(() => queueMicrotask(() => stop.abort()));
      return { choice: 'session' };
    });
    const gate = new PermissionGate({ prompter });
    expect(await check(gate, echo, stop.signal)).toEqual({ outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: 'stopped before it was approved' });
    expect(await gate.remembered()).toEqual([]);
  });

  it('leaves no listener on the signal once the card is answered, fails, or is stopped', async () => {
    const answered = new AbortController();
    await check(new PermissionGate({ prompter: answers({ choice: 'once' }) }), echo, answered.signal);
    expect(getEventListeners(answered.signal, 'abort')).toHaveLength(0);

    const failed = new AbortController();
    const broken = new ScriptedPrompter(() => Promise.reject(new Error('webview gone')));
    expect((await check(new PermissionGate({ prompter: broken }), echo, failed.signal)).outcome).toBe('deny');
    expect(getEventListeners(failed.signal, 'abort')).toHaveLength(0);

    // A prompter that ignores the signal: the gate's own listener must go once Stop fired.
    const stopped = new AbortController();
    let asked = false;
    const gate = new PermissionGate({ prompter: { ask: () => ((asked = true), new Promise<PermissionAnswer>(() => {})) } });
    const decision = check(gate, echo, stopped.signal);
    while (!asked) await new Promise((r) => setImmediate(r));
    stopped.abort();
    expect((await decision).outcome).toBe('deny');
    expect(getEventListeners(stopped.signal, 'abort')).toHaveLength(0);
  });
});
