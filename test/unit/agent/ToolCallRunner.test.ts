import { describe, expect, it } from 'vitest';
import type { HarnessTool } from '../../../src/core/HarnessTypes';
import { ToolCallRunner, parseToolArguments, toPermissionTool } from '../../../src/core/agent/ToolCallRunner';
import type { AgentEvent } from '../../../src/core/agent/types';
import type { IToolCallGate } from '../../../src/core/permissions/PermissionGate';

const builtin: HarnessTool = { name: 'read_file', originalName: 'read_file', description: 'Reads', inputSchema: { type: 'object' } };
const mcp: HarnessTool = { name: 'mcp__fx__echo', server: 'fx', originalName: 'echo', title: 'Echo', description: 'Echoes', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
const allow: IToolCallGate = { check: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };

describe('toPermissionTool', () => {
  it('keeps only what the gate pins, without empty members', () => {
    expect(toPermissionTool(builtin)).toStrictEqual({ name: 'read_file', originalName: 'read_file', description: 'Reads', inputSchema: { type: 'object' } });
    expect(toPermissionTool(mcp)).toStrictEqual({ name: 'mcp__fx__echo', server: 'fx', originalName: 'echo', title: 'Echo', description: 'Echoes', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } });
  });
});

describe('parseToolArguments', () => {
  it('accepts objects and an empty text', () => {
    expect(parseToolArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseToolArguments('  \n')).toEqual({ ok: true, value: {} });
  });
  it('names what is wrong', () => {
    expect(parseToolArguments('null')).toEqual({ ok: false, error: 'a JSON null, not an object' });
    expect(parseToolArguments('3')).toEqual({ ok: false, error: 'a JSON number, not an object' });
    expect(parseToolArguments('"x"')).toEqual({ ok: false, error: 'a JSON string, not an object' });
    expect(parseToolArguments('[]')).toEqual({ ok: false, error: 'a JSON array, not an object' });
    const bad = parseToolArguments('{');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^not valid JSON \(.+\)$/);
  });
});

describe('ToolCallRunner', () => {
  it('reports a built-in call without a server, with durations from the injected clock', async () => {
    let clock = 100;
    const runner = new ToolCallRunner({ gate: allow, now: () => clock, callTool: async () => ((clock += 7), { isError: false, text: 'body' }) });
    const events: AgentEvent[] = [];
    const outcome = await runner.run({ id: 'c', name: 'read_file', arguments: '{}' }, builtin, new AbortController().signal, (e) => events.push(e));
    expect(events).toStrictEqual([
      { type: 'tool_call', callId: 'c', toolName: 'read_file', arguments: {}, state: 'running' },
      { type: 'tool_call', callId: 'c', toolName: 'read_file', arguments: {}, state: 'done', output: 'body', durationMs: 7 },
    ]);
    expect(outcome).toStrictEqual({ state: 'done', text: 'body', message: { role: 'tool', toolCallId: 'c', toolName: 'read_file', content: '<tool_output tool="read_file">\nbody\n</tool_output>', isError: false } });
  });

  it('shows the card without warnings for a clean tool', async () => {
    const events: AgentEvent[] = [];
    const gate: IToolCallGate = {
      check: async (_call, options) => {
        options.onAsk?.({ warnings: [] });
        return { outcome: 'allow', decider: { by: 'user', choice: 'once' } };
      },
    };
    await new ToolCallRunner({ gate, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '' }, mcp, new AbortController().signal, (e) => events.push(e));
    expect(events[0]).toStrictEqual({ type: 'tool_call', callId: 'c', toolName: 'mcp__fx__echo', server: 'fx', arguments: {}, state: 'waiting_for_approval' });
  });

  it('words every early outcome exactly, as errors', async () => {
    const runner = new ToolCallRunner({ gate: allow, callTool: async () => ({ isError: false, text: '' }) });
    const signal = new AbortController().signal;
    const missing = await runner.run({ id: 'c', name: 'mcp__gone__x', arguments: '{}' }, undefined, signal, () => {});
    expect(missing.text).toBe('The tool "mcp__gone__x" is not available: it may have been disabled or renamed, or its server stopped. Use one of the tools offered now.');
    expect(missing.message.isError).toBe(true);
    expect(missing.message.content).toContain('error="true"');
    const bad = await runner.run({ id: 'c', name: 'mcp__fx__echo', arguments: '[1]' }, mcp, signal, () => {});
    expect(bad.text).toBe('The arguments for "mcp__fx__echo" are a JSON array, not an object. Send the arguments as one JSON object.');
    expect(bad.message.content).toContain('error="true"');
    const stop = new AbortController();
    stop.abort();
    const early = await runner.run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop.signal, () => {});
    expect(early.text).toBe('Cancelled: the user stopped the turn before this call ran.');
    expect(early.message.content).toContain('error="true"');
  });

  it('words a stop during approval and during the call', async () => {
    const stop = new AbortController();
    const denyOnStop: IToolCallGate = { check: async () => (stop.abort(), { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: 'stopped' }) };
    const pending = await new ToolCallRunner({ gate: denyOnStop, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop.signal, () => {});
    expect(pending.text).toBe('Cancelled: the user stopped the turn before this call was approved.');
    const stop2 = new AbortController();
    const allowThenStop: IToolCallGate = { check: async () => (stop2.abort(), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    const late = await new ToolCallRunner({ gate: allowThenStop, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop2.signal, () => {});
    expect(late.text).toBe('Cancelled: the user stopped the turn before this call ran.');
    expect(late.message.content).toContain('error="true"');
    const stop3 = new AbortController();
    const during = await new ToolCallRunner({ gate: allow, callTool: async () => (stop3.abort(), { isError: false, text: 'x' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop3.signal, () => {});
    expect(during.text).toBe('Cancelled: the user stopped this call.');
  });

  it('audits denials with the decider, and a failing gate as a denial', async () => {
    const lines: unknown[] = [];
    const audit = { start: () => 'id', end: () => {}, denied: (e: unknown) => void lines.push(e) };
    const failing: IToolCallGate = { check: async () => Promise.reject(new Error('broken')) };
    const outcome = await new ToolCallRunner({ gate: failing, audit, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{"a":1}' }, mcp, new AbortController().signal, () => {});
    expect(outcome.state).toBe('denied');
    expect(lines).toStrictEqual([{ server: 'fx', tool: 'mcp__fx__echo', arguments: { a: 1 }, decider: { by: 'user', choice: 'deny' }, reason: 'the permission check failed: broken' }]);
    lines.length = 0;
    const silent: IToolCallGate = { check: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'x' } }) };
    await new ToolCallRunner({ gate: silent, audit, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, new AbortController().signal, () => {});
    expect(lines).toStrictEqual([{ server: 'fx', tool: 'mcp__fx__echo', arguments: {}, decider: { by: 'rule', rule: 'x' } }]);
  });

  it('audits a finished call with its outcome and size', async () => {
    const ends: unknown[] = [];
    const audit = { start: () => 'id7', end: (id: string, r: unknown) => void ends.push([id, r]), denied: () => {} };
    await new ToolCallRunner({ gate: allow, audit, callTool: async () => ({ isError: true, text: 'boom!' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, new AbortController().signal, () => {});
    expect(ends).toStrictEqual([['id7', { outcome: 'error', outputChars: 5 }]]);
  });

  it('words a rule denial that gives no reason', async () => {
    const gate: IToolCallGate = { check: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'mcp__*' } }) };
    const outcome = await new ToolCallRunner({ gate, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, new AbortController().signal, () => {});
    expect(outcome.text).toBe('Not run: denied by the rule "mcp__*".');
    expect(outcome.state).toBe('denied');
  });

  it('words a user denial without a reason', async () => {
    const gate: IToolCallGate = { check: async () => ({ outcome: 'deny', decider: { by: 'user', choice: 'deny' } }) };
    const outcome = await new ToolCallRunner({ gate, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, new AbortController().signal, () => {});
    expect(outcome.text).toBe('The user denied this call.');
  });

  it('reports a non-Error throw from callTool', async () => {
    const outcome = await new ToolCallRunner({ gate: allow, callTool: async () => Promise.reject('plain string') }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, new AbortController().signal, () => {});
    expect(outcome).toMatchObject({ state: 'error', text: 'The call failed: plain string' });
  });

  it('does not ask when already stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    let asked = false;
    const gate: IToolCallGate = { check: async () => ((asked = true), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    const outcome = await new ToolCallRunner({ gate, callTool: async () => ({ isError: false, text: '' }) }).run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop.signal, () => {});
    expect(asked).toBe(false);
    expect(outcome.state).toBe('cancelled');
  });

  it('audits a cancelled call as cancelled', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    const runner = new ToolCallRunner({
      gate: allow,
      audit: { start: () => 'id', end: (_id, r) => void lines.push(r.outcome), denied: () => {} },
      callTool: async () => {
        stop.abort();
        return { isError: true, text: 'cancelled' };
      },
    });
    expect((await runner.run({ id: 'c', name: 'mcp__fx__echo', arguments: '{}' }, mcp, stop.signal, () => {})).state).toBe('cancelled');
    expect(lines).toEqual(['cancelled']);
  });
});
