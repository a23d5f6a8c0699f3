import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { CallPipeline, type ICallConnection } from '../../../src/core/calls/CallPipeline';
import { callTimeouts, describeDenial } from '../../../src/core/calls/callPolicy';
import type { ToolCallEvent, ToolCallOptions } from '../../../src/core/calls/types';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import type { McpCallOptions } from '../../../src/core/mcp/McpSession';
import type { ICallDecider, PoisoningHit } from '../../../src/core/permissions/types';
import { ToolRegistry } from '../../../src/core/tools/ToolRegistry';

const ECHO = { name: 'echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
const allow: ICallDecider = { decide: async () => ({ outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };

interface FakeServer {
  state: string;
  settle: () => Promise<void>;
  answer: (name: string, args: Record<string, unknown>, options: McpCallOptions) => Promise<CallToolResult>;
  definition: { toolTimeoutMs?: number };
  seen: McpCallOptions[];
}

/** A pipeline over a real registry, with servers made of functions the test controls. */
function setup(servers: Record<string, Partial<FakeServer>> = { fx: {} }, defaults: { toolTimeoutMs?: number; maxTotalTimeoutMs?: number; maxOutputChars?: number } = {}) {
  let clock = 0;
  const registry = new ToolRegistry();
  const fakes = new Map<string, FakeServer>();
  for (const [name, fake] of Object.entries(servers)) {
    fakes.set(name, { state: 'running', settle: async () => {}, answer: async (_n, args) => ({ content: [{ type: 'text', text: String(args.text) }] }), definition: {}, seen: [], ...fake });
    if ((fake.state ?? 'running') === 'running') registry.setServerTools(name, [ECHO as never]);
  }
  const connection = (server: string): ICallConnection | undefined => {
    const fake = fakes.get(server);
    if (!fake) return undefined;
    return {
      definition: fake.definition,
      get state() {
        return { kind: fake.state };
      },
      whenSettled: () => fake.settle(),
      describeUnavailable: () => `server "${server}" is not running (${fake.state})`,
      callTool: (name, args, options) => (fake.seen.push(options), (clock += 5), fake.answer(name, args, options)),
    };
  };
  const pipeline = new CallPipeline({ registry, connection, servers: () => [...fakes.keys()], defaults: () => defaults, now: () => clock });
  const events: ToolCallEvent[] = [];
  const call = (name: string, args: unknown = { text: 'hi' }, options: ToolCallOptions = {}) =>
    pipeline.callTool({ name, arguments: args }, { decider: allow, callId: 'c', onEvent: (e) => events.push(e), ...options });
  return { pipeline, registry, fakes, events, call, tick: (ms: number) => (clock += ms) };
}

const hit: PoisoningHit = { where: 'description', kind: 'instructions', excerpt: 'do not tell the user' };

describe('CallPipeline events: the one channel of a card', () => {
  it('reports each state with exactly what the card shows then', async () => {
    const { call, events, registry, tick, fakes } = setup();
    fakes.get('fx')!.answer = async (_n, _a, options) => {
      options.onProgress?.({ progress: 1, total: 2 });
      return { content: [{ type: 'text', text: 'done\u200B' }] };
    };
    const tool = registry.getTool('mcp__fx__echo')!;
    const gate: ICallDecider = {
      decide: async (request, options) => {
        options.onAsk?.({ callId: request.callId, tool: request.tool, arguments: request.arguments, warnings: [hit, hit] });
        tick(100);
        return { outcome: 'allow', decider: { by: 'user', choice: 'once' } };
      },
    };
    const outcome = await call('mcp__fx__echo', { text: 'hi' }, { decider: gate });
    const permission = { callId: 'c', tool, arguments: { text: 'hi' }, warnings: [hit, hit] };
    const base = { callId: 'c', toolName: 'mcp__fx__echo', tool, arguments: { text: 'hi' } };
    const resultHit = { where: 'result', kind: 'hidden_characters', excerpt: 'done<U+200B>' };
    expect(events).toStrictEqual([
      { ...base, state: 'waiting_for_approval', permission, warnings: [hit] },
      { ...base, state: 'running', warnings: [hit], decider: { by: 'user', choice: 'once' }, waitMs: 100 },
      { ...base, state: 'running', warnings: [hit], decider: { by: 'user', choice: 'once' }, waitMs: 100, progress: { progress: 1, total: 2 } },
      { ...base, state: 'done', warnings: [hit, resultHit], decider: { by: 'user', choice: 'once' }, waitMs: 100, output: 'done\u200B', runMs: 5, result: { isError: false, content: [{ type: 'text', text: 'done\u200B' }] } },
    ]);
    expect(outcome).toStrictEqual({
      isError: false,
      text: 'done\u200B',
      content: [{ type: 'text', text: 'done\u200B' }],
      callId: 'c',
      state: 'done',
      tool,
      decider: { by: 'user', choice: 'once' },
      waitMs: 100,
      runMs: 5,
      warnings: [hit, resultHit],
    });
  });

  it('ends every early state with the text and kind of the reason, and no tool before the look-up', async () => {
    const { call, events } = setup();
    const bad = await call('mcp__fx__echo', undefined, { callId: 'c' });
    expect(bad.state).toBe('done'); // no arguments count as {}
    events.length = 0;
    expect(await call('mcp__nope__x')).toStrictEqual({
      isError: true,
      text: 'unknown tool "mcp__nope__x": it is not offered now (it may have been disabled or renamed, or its server stopped). Use one of the tools offered now.',
      content: [{ type: 'text', text: 'unknown tool "mcp__nope__x": it is not offered now (it may have been disabled or renamed, or its server stopped). Use one of the tools offered now.' }],
      errorKind: 'unknown_tool',
      callId: 'c',
      state: 'error',
      warnings: [],
    });
    expect(events).toStrictEqual([{ callId: 'c', toolName: 'mcp__nope__x', arguments: { text: 'hi' }, state: 'error', output: expect.stringContaining('unknown tool') }]);
  });

  it('parses argument text, naming what is wrong', async () => {
    const { pipeline } = setup();
    const text = async (argumentsText: string) => (await pipeline.callTool({ name: 'mcp__fx__echo', argumentsText }, { decider: allow })).text;
    expect(await text('  ')).toBe('undefined');
    for (const [json, kind] of [['null', 'null'], ['3', 'number'], ['"x"', 'string'], ['[]', 'array'], ['true', 'boolean']]) {
      expect(await text(json!)).toBe(`The arguments for "mcp__fx__echo" are a JSON ${kind}, not an object. Send the arguments as one JSON object.`);
    }
    const value = await pipeline.callTool({ name: 'mcp__fx__echo', arguments: 'plain' }, { decider: allow });
    expect(value.text).toBe('The arguments for "mcp__fx__echo" are a JSON string, not an object. Send the arguments as one JSON object.');
  });
});

describe('CallPipeline audit', () => {
  const log = () => {
    const lines: unknown[] = [];
    return { lines, audit: { start: (e: unknown) => (lines.push(['start', e]), 'id'), end: (id: string, r: unknown) => void lines.push(['end', id, r]), denied: (e: unknown) => void lines.push(['denied', e]) } };
  };

  it('records a gateway client\'s call with its method, and a refusal of what is not offered', async () => {
    const { call, registry } = setup();
    const { lines, audit } = log();
    const client = { transport: 'stdio' as const, name: 'x' };
    await call('mcp__fx__echo', { text: 'hi' }, { audit, client });
    await call('mcp__fx__gone', { a: 1 }, { audit, client });
    const pin = registry.getTool('mcp__fx__echo')!.pin;
    expect(lines).toStrictEqual([
      ['start', { tool: 'mcp__fx__echo', server: 'fx', originalName: 'echo', pin, arguments: { text: 'hi' }, client, method: 'tools/call', decider: { by: 'rule', rule: '*' } }],
      ['end', 'id', { outcome: 'ok', outputChars: 2 }],
      ['denied', { tool: 'mcp__fx__gone', arguments: { a: 1 }, client, method: 'tools/call', decider: { by: 'caller' }, reason: 'not offered' }],
    ]);
  });

  it('records a call not made because the tool changed, with the decision that was about it', async () => {
    const { call, registry } = setup();
    const { lines, audit } = log();
    const pin = registry.getTool('mcp__fx__echo')!.pin;
    const changing: ICallDecider = { decide: async () => (registry.setServerTools('fx', [{ ...ECHO, description: 'now different' } as never]), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    const outcome = await call('mcp__fx__echo', { text: 'hi' }, { audit, decider: changing });
    expect(outcome).toMatchObject({ errorKind: 'tool_changed', decider: { by: 'rule', rule: '*' } });
    expect(lines).toStrictEqual([['denied', { tool: 'mcp__fx__echo', server: 'fx', originalName: 'echo', pin, arguments: { text: 'hi' }, decider: { by: 'rule', rule: '*' }, reason: 'the tool changed since it was approved' }]]);
  });

  it('records the wait for a person on the lines of the call', async () => {
    const { call, tick } = setup();
    const { lines, audit } = log();
    const asking: ICallDecider = {
      decide: async (request, options) => {
        options.onAsk?.({ callId: request.callId, tool: request.tool, arguments: request.arguments, warnings: [] });
        tick(2500);
        return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: 'no' };
      },
    };
    const outcome = await call('mcp__fx__echo', { text: 'hi' }, { audit, decider: asking });
    expect(outcome).toMatchObject({ state: 'denied', waitMs: 2500, text: 'The user denied this call. Reason: no' });
    expect((lines[0] as [string, { waitedMs?: number }])[1].waitedMs).toBe(2500);
  });
});

describe('CallPipeline calls', () => {
  it('passes the timeout policy and caps the output', async () => {
    const { call, fakes } = setup({ fx: { definition: { toolTimeoutMs: 7000 }, answer: async () => ({ content: [{ type: 'text', text: 'x'.repeat(5000) }] }) } }, { maxTotalTimeoutMs: 9000, maxOutputChars: 1000 });
    const outcome = await call('mcp__fx__echo');
    expect(fakes.get('fx')!.seen[0]).toMatchObject({ timeoutMs: 7000, maxTotalTimeoutMs: 9000 });
    expect(outcome.text.length).toBeLessThan(1200);
    expect(outcome.text).toContain('x'.repeat(1000));
    await call('mcp__fx__echo', {}, { timeoutMs: 12_000 });
    expect(fakes.get('fx')!.seen[1]).toMatchObject({ timeoutMs: 12_000, maxTotalTimeoutMs: 12_000 });
  });

  it('marks a tool\'s own error, and names the server in every other failure but unavailable', async () => {
    const { call, fakes } = setup();
    const fx = fakes.get('fx')!;
    fx.answer = async () => ({ isError: true, content: [{ type: 'text', text: 'nope' }] });
    expect(await call('mcp__fx__echo')).toMatchObject({ state: 'error', errorKind: 'tool_error', text: 'nope' });
    fx.answer = async () => Promise.reject(new McpCallError('timeout', 'no answer within 1 s'));
    expect(await call('mcp__fx__echo')).toMatchObject({ errorKind: 'timeout', text: 'fx: no answer within 1 s' });
    fx.answer = async () => Promise.reject(new McpCallError('unavailable', 'server "fx" is not running (error): boom'));
    expect(await call('mcp__fx__echo')).toMatchObject({ errorKind: 'unavailable', text: 'server "fx" is not running (error): boom' });
  });

  it('runs built-ins, a thrown error becoming the tool\'s own', async () => {
    const { registry, pipeline } = setup();
    registry.registerBuiltin({ name: 'boom', description: '', inputSchema: { type: 'object' }, invoke: async () => Promise.reject(new Error('disk full')) });
    registry.registerBuiltin({ name: 'fails', description: '', inputSchema: { type: 'object' }, invoke: async () => ({ isError: true, text: 'bad', content: [] }) });
    expect(await pipeline.callTool({ name: 'boom' }, { decider: allow })).toMatchObject({ errorKind: 'tool_error', text: 'boom failed: disk full' });
    expect(await pipeline.callTool({ name: 'fails' }, { decider: allow })).toMatchObject({ errorKind: 'tool_error', text: 'bad' });
    const changing: ICallDecider = { decide: async () => (registry.setServerTools('x', []), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    registry.registerBuiltin({ name: 'plain', description: '', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: 'ok', content: [] }) });
    expect(await pipeline.callTool({ name: 'plain' }, { decider: changing })).toMatchObject({ state: 'done', text: 'ok' });
  });

  it('says a server that left the configuration between the decision and the call is no longer configured', async () => {
    const { call, fakes } = setup();
    const leaving: ICallDecider = { decide: async () => (fakes.delete('fx'), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    expect(await call('mcp__fx__echo', { text: 'a' }, { decider: leaving })).toMatchObject({ errorKind: 'unavailable', text: 'server "fx" is no longer configured' });
  });
});

describe('CallPipeline look-up of a server that is not running', () => {
  it('finds the server by the name it gave out, else by the longest prefix of a server that is down', async () => {
    const { call, registry, fakes } = setup({ fx: {}, a: { state: 'error' }, 'a.b': { state: 'stopped' } });
    registry.removeServer('fx');
    fakes.get('fx')!.state = 'stopped';
    expect((await call('mcp__fx__echo')).text).toBe('server "fx" is not running (stopped)');
    // Never listed: the name's prefix says which server it was meant for, the longest first.
    expect((await call('mcp__a_b__tool')).text).toBe('server "a.b" is not running (stopped)');
    expect((await call('mcp__a__tool')).text).toBe('server "a" is not running (error)');
    // A running server whose prefix fits but which does not list the tool: simply unknown.
    const running = setup({ s: {} });
    expect((await running.call('mcp__s__missing')).errorKind).toBe('unknown_tool');
  });

  it('waits for a start under way, then calls the tool its server now lists', async () => {
    const { call, registry, fakes } = setup({ fx: { state: 'starting' } });
    const fx = fakes.get('fx')!;
    registry.setServerTools('fx', [ECHO as never]);
    registry.removeServer('fx'); // the name was given out when it last ran
    fx.settle = async () => {
      await new Promise((r) => setTimeout(r, 10));
      fx.state = 'running';
      registry.setServerTools('fx', [ECHO as never]);
    };
    expect(await call('mcp__fx__echo', { text: 'back' })).toMatchObject({ state: 'done', text: 'back' });
  });

  it('waits no longer than the call\'s timeout, nor past a stop', async () => {
    const { call, registry, fakes } = setup({ fx: { state: 'starting' } });
    registry.setServerTools('fx', [ECHO as never]);
    registry.removeServer('fx');
    fakes.get('fx')!.settle = () => new Promise(() => {});
    expect(await call('mcp__fx__echo', {}, { timeoutMs: 20 })).toMatchObject({ errorKind: 'unavailable', text: 'server "fx" is not running (starting)' });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 10);
    expect(await call('mcp__fx__echo', {}, { timeoutMs: 60_000, signal: stop.signal })).toMatchObject({ errorKind: 'unavailable' });
  });
});

describe('callTimeouts and describeDenial', () => {
  it('takes the call\'s timeout, else the server\'s, else the harness\'s, else 60 s; the total never below it', () => {
    expect(callTimeouts({ toolTimeoutMs: 2000 }, { toolTimeoutMs: 3000, maxTotalTimeoutMs: 1000 }, 500)).toEqual({ timeoutMs: 500, maxTotalTimeoutMs: 1000 });
    expect(callTimeouts({ toolTimeoutMs: 2000 }, { toolTimeoutMs: 3000, maxTotalTimeoutMs: 1000 })).toEqual({ timeoutMs: 2000, maxTotalTimeoutMs: 2000 });
    expect(callTimeouts({}, { toolTimeoutMs: 3000 })).toEqual({ timeoutMs: 3000, maxTotalTimeoutMs: 600_000 });
    expect(callTimeouts(undefined, {})).toEqual({ timeoutMs: 60_000, maxTotalTimeoutMs: 600_000 });
  });

  it('words each kind of denial', () => {
    expect(describeDenial({ outcome: 'deny', decider: { by: 'rule', rule: 'x' }, reason: 'denied by the rule "x"' })).toBe('Not run: denied by the rule "x".');
    expect(describeDenial({ outcome: 'deny', decider: { by: 'caller' } })).toBe('Not run: denied.');
    expect(describeDenial({ outcome: 'deny', decider: { by: 'caller' }, reason: 'hook said no' })).toBe('Not run: hook said no.');
  });
});

describe('CallPipeline: every outcome, exactly', () => {
  it('reports a call no person was asked about without a wait, and who decided on every final state', async () => {
    const { call, events, registry } = setup();
    await call('mcp__fx__echo');
    const tool = registry.getTool('mcp__fx__echo')!;
    expect(events).toStrictEqual([
      { callId: 'c', toolName: 'mcp__fx__echo', tool, arguments: { text: 'hi' }, state: 'running', decider: { by: 'rule', rule: '*' } },
      { callId: 'c', toolName: 'mcp__fx__echo', tool, arguments: { text: 'hi' }, state: 'done', decider: { by: 'rule', rule: '*' }, output: 'hi', runMs: 5, result: { isError: false, content: [{ type: 'text', text: 'hi' }] } },
    ]);
    events.length = 0;
    const deny: ICallDecider = { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'no' } }) };
    await call('mcp__fx__echo', { text: 'hi' }, { decider: deny });
    expect(events).toStrictEqual([{ callId: 'c', toolName: 'mcp__fx__echo', tool, arguments: { text: 'hi' }, state: 'denied', decider: { by: 'rule', rule: 'no' }, output: 'Not run: denied by the rule "no".' }]);
  });

  it('is decided by the caller when no decider is given', async () => {
    const { pipeline } = setup();
    expect(await pipeline.callTool({ name: 'mcp__fx__echo', arguments: { text: 'x' } })).toMatchObject({ state: 'done', decider: { by: 'caller' } });
  });

  it('says when and how a call was stopped, keeping what was decided', async () => {
    const { call, tick } = setup();
    tick(1000);
    const stop = new AbortController();
    const asking: ICallDecider = {
      decide: async (request, options) => {
        options.onAsk?.({ callId: request.callId, tool: request.tool, arguments: request.arguments, warnings: [] });
        tick(30);
        stop.abort();
        return { outcome: 'deny', decider: { by: 'user', choice: 'deny' }, reason: 'stopped before it was approved' };
      },
    };
    expect(await call('mcp__fx__echo', { text: 'a' }, { decider: asking, signal: stop.signal })).toMatchObject({
      state: 'cancelled',
      errorKind: 'cancelled',
      text: 'Cancelled: the call was stopped before it was approved.',
      decider: { by: 'user', choice: 'deny' },
      waitMs: 30,
    });
    const stop2 = new AbortController();
    const late: ICallDecider = { decide: async () => (stop2.abort(), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    expect(await call('mcp__fx__echo', { text: 'a' }, { decider: late, signal: stop2.signal })).toMatchObject({ state: 'cancelled', errorKind: 'cancelled', decider: { by: 'rule', rule: '*' } });
    const stop3 = new AbortController();
    const { call: call3, fakes } = setup();
    fakes.get('fx')!.answer = async () => (stop3.abort(), { content: [{ type: 'text', text: 'late' }] });
    expect(await call3('mcp__fx__echo', { text: 'a' }, { signal: stop3.signal })).toMatchObject({ state: 'cancelled', errorKind: 'cancelled', isError: true, text: 'Cancelled: the call was stopped while it ran.', runMs: 5, decider: { by: 'rule', rule: '*' } });
  });

  it('gives argument problems the invalid_arguments kind', async () => {
    const { pipeline } = setup();
    expect(await pipeline.callTool({ name: 'mcp__fx__echo', argumentsText: '[' }, { decider: allow })).toMatchObject({ state: 'error', errorKind: 'invalid_arguments' });
  });

  it('audits a denial without a reason as just that, and keeps the first 500 characters of an error', async () => {
    const { call, fakes } = setup();
    const lines: unknown[] = [];
    const audit = { start: () => 'id', end: (_id: string, r: unknown) => void lines.push(r), denied: (e: unknown) => void lines.push(e) };
    const deny: ICallDecider = { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'no' } }) };
    await call('mcp__fx__echo', { text: 'a' }, { decider: deny, audit });
    expect(Object.keys(lines[0] as object)).not.toContain('reason');
    fakes.get('fx')!.answer = async () => ({ isError: true, content: [{ type: 'text', text: 'e'.repeat(800) }] });
    await call('mcp__fx__echo', { text: 'a' }, { audit });
    expect(lines[1]).toStrictEqual({ outcome: 'error', outputChars: 800, error: 'e'.repeat(500) });
  });

  it('gives a built-in its call\'s signal, and tells a built-in that went away from a changed MCP tool', async () => {
    const { registry, pipeline } = setup();
    const signals: unknown[] = [];
    const registration = registry.registerBuiltin({ name: 'probe', description: '', inputSchema: { type: 'object' }, invoke: async (_a, options) => (signals.push(options.signal), { isError: false, text: 'ok', content: [] }) });
    const stop = new AbortController();
    await pipeline.callTool({ name: 'probe' }, { decider: allow, signal: stop.signal });
    expect(signals).toEqual([stop.signal]);
    const removing: ICallDecider = { decide: async () => (registration.dispose(), { outcome: 'allow', decider: { by: 'rule', rule: '*' } }) };
    expect((await pipeline.callTool({ name: 'probe' }, { decider: removing })).text).toContain('Not run: The built-in tool "probe" changed since it was approved');
  });

  it('names the server a name was given to before one whose prefix only fits, and the longest prefix among those', async () => {
    const { call, registry, fakes } = setup({ p_q: { state: 'stopped' }, 'p.q': {}, a: { state: 'stopped' }, a__b: { state: 'stopped' } });
    registry.setServerTools('p.q', [ECHO as never]);
    registry.removeServer('p.q');
    fakes.get('p.q')!.state = 'stopped';
    expect((await call('mcp__p_q__echo')).text).toBe('server "p.q" is not running (stopped)');
    expect((await call('mcp__a__b__tool')).text).toBe('server "a__b" is not running (stopped)');
  });

  it('times the wait for a person from when the card opened', async () => {
    const { call, tick } = setup();
    tick(5000);
    const asking: ICallDecider = {
      decide: async (request, options) => {
        tick(7);
        options.onAsk?.({ callId: request.callId, tool: request.tool, arguments: request.arguments, warnings: [] });
        tick(40);
        return { outcome: 'allow', decider: { by: 'user', choice: 'once' } };
      },
    };
    expect((await call('mcp__fx__echo', { text: 'a' }, { decider: asking })).waitMs).toBe(40);
  });
});
