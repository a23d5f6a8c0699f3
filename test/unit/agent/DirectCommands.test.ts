import { describe, expect, it } from 'vitest';
import { DIRECT_COMMANDS_HELP, DirectCommands, parseDirectCommand } from '../../../src/core/agent/DirectCommands';
import { ModelToolCalls } from '../../../src/core/agent/ModelToolCalls';
import { PipelineFixture } from '../../support/pipeline';
import type { AgentEvent } from '../../../src/core/agent/types';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import type { PermissionAnswer } from '../../../src/core/permissions/types';
import { ScriptedPrompter } from '../../support/permissions';

describe('parseDirectCommand', () => {
  it('recognises the commands', () => {
    expect(parseDirectCommand('/tools')).toEqual({ kind: 'tools' });
    expect(parseDirectCommand('  /tools  memory ')).toEqual({ kind: 'tools', filter: 'memory' });
    expect(parseDirectCommand('/MCP')).toEqual({ kind: 'mcp' });
    expect(parseDirectCommand('/help')).toEqual({ kind: 'help' });
    expect(parseDirectCommand('/call mcp__fx__echo {"text": "a b"}')).toEqual({ kind: 'call', tool: 'mcp__fx__echo', argumentsText: '{"text": "a b"}' });
    expect(parseDirectCommand('/call mcp__fx__echo\n{\n "text": 1\n}')).toEqual({ kind: 'call', tool: 'mcp__fx__echo', argumentsText: '{\n "text": 1\n}' });
    expect(parseDirectCommand('/call mcp__fx__fail')).toEqual({ kind: 'call', tool: 'mcp__fx__fail', argumentsText: '' });
    expect(parseDirectCommand('/call\tmcp__fx__echo   {"a":1}  ')).toEqual({ kind: 'call', tool: 'mcp__fx__echo', argumentsText: '{"a":1}' });
    expect(parseDirectCommand('/tools   x  y ')).toEqual({ kind: 'tools', filter: 'x  y' });
    expect(parseDirectCommand('/tools!')).toBeUndefined();
  });

  it('explains bad commands and ignores ordinary text', () => {
    expect(parseDirectCommand('/call')).toEqual({ kind: 'invalid', message: 'Usage: `/call TOOL {json}`, e.g. `/call mcp__fx__echo {"text":"hi"}`.' });
    expect(parseDirectCommand('/frobnicate now')).toEqual({ kind: 'invalid', message: `Unknown command "/frobnicate".\n\n${DIRECT_COMMANDS_HELP}` });
    expect(parseDirectCommand('hello /tools')).toBeUndefined();
    expect(parseDirectCommand('/ tools')).toBeUndefined();
    expect(parseDirectCommand('')).toBeUndefined();
  });
});

describe('DirectCommands', () => {
  const echo = { name: 'echo', description: 'Returns its text\nsecond line' };
  const add = { name: 'add', description: '' };
  function setup(answer: PermissionAnswer, defs = [echo, add]) {
    const calls: string[] = [];
    const prompter = new ScriptedPrompter(() => answer);
    const fx = new PipelineFixture(async (name, args) => {
      calls.push(name);
      return { isError: false, text: String(args.text) };
    }).setTools('fx', defs);
    const tools = () => fx.tools();
    const runner = new ModelToolCalls({ call: fx.call, decider: new PermissionGate({ prompter }), tools });
    const commands = new DirectCommands({
      tools,
      servers: () => [
        { name: 'fx', state: 'running', tools: [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'add', inputSchema: { type: 'object' } }] },
        { name: 'gh', state: 'error', error: 'exited with code 1', tools: [] },
      ],
      calls: runner,
    });
    return { commands, calls, prompter };
  }
  const signal = new AbortController().signal;

  it('lists tools, optionally filtered', async () => {
    const { commands } = setup({ choice: 'once' });
    expect(await commands.run('/tools', { signal })).toBe('2 tools:\n- `mcp__fx__echo`: Returns its text\n- `mcp__fx__add`');
    expect(await commands.run('/tools ADD', { signal })).toBe('1 tool:\n- `mcp__fx__add`');
    expect(await commands.run('/tools its text', { signal })).toBe('1 tool:\n- `mcp__fx__echo`: Returns its text');
    expect(await commands.run('/tools nothing', { signal })).toBe('No enabled tool matches "nothing".');
    expect(await setup({ choice: 'once' }, []).commands.run('/tools', { signal })).toBe('No tools are enabled.');
  });

  it('keeps a description of exactly 120 characters, trimmed', async () => {
    const exact = { ...echo, description: `  ${'y'.repeat(120)}  \nmore` };
    expect(await setup({ choice: 'once' }, [exact]).commands.run('/tools', { signal })).toBe(`1 tool:\n- \`mcp__fx__echo\`: ${'y'.repeat(120)}`);
  });

  it('gives each direct call its own id', async () => {
    const ids: string[] = [];
    const { commands } = setup({ choice: 'once' });
    for (let i = 0; i < 2; i++) await commands.run('/call mcp__fx__echo {"text":"x"}', { signal, onEvent: (e) => e.type === 'tool_call' && ids.push(e.callId) });
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('cuts long descriptions', async () => {
    const long = { ...echo, description: 'x'.repeat(200) };
    const { commands } = setup({ choice: 'once' }, [long]);
    expect(await commands.run('/tools', { signal })).toBe(`1 tool:\n- \`mcp__fx__echo\`: ${'x'.repeat(119)}…`);
  });

  it('counts only the enabled tools of a server, and says how many it has', async () => {
    const { commands } = setup({ choice: 'once' }, [echo]);
    expect(await commands.run('/mcp', { signal })).toBe('- **fx**: running, 1 of 2 tools enabled\n- **gh**: error (exited with code 1), 0 tools');
  });

  it('says "1 tool" for a server with one tool, all enabled', async () => {
    const fx = new PipelineFixture().setTools('fx', [echo]);
    const calls = new ModelToolCalls({ call: fx.call, decider: new PermissionGate({ prompter: new ScriptedPrompter(() => ({ choice: 'once' })) }), tools: () => fx.tools() });
    const commands = new DirectCommands({ tools: () => fx.tools(), servers: () => [{ name: 'fx', state: 'running', tools: [{ name: 'echo' }] }], calls });
    expect(await commands.run('/mcp', { signal })).toBe('- **fx**: running, 1 tool');
  });

  it('shows server states', async () => {
    const { commands } = setup({ choice: 'once' });
    expect(await commands.run('/mcp', { signal })).toBe('- **fx**: running, 2 tools\n- **gh**: error (exited with code 1), 0 tools');
  });

  it('runs /call through the gate', async () => {
    const allowed = setup({ choice: 'once' });
    const events: AgentEvent[] = [];
    expect(await allowed.commands.run('/call mcp__fx__echo {"text":"hi"}', { signal, onEvent: (e) => events.push(e) })).toBe('hi');
    expect(allowed.calls).toEqual(['mcp__fx__echo']);
    expect(allowed.prompter.requests).toHaveLength(1);
    expect(events.map((e) => (e.type === 'tool_call' ? e.state : e.type))).toEqual(['waiting_for_approval', 'running', 'done']);
    expect(events.every((e) => e.type === 'tool_call' && e.modelCallId === 'direct')).toBe(true);

    const denied = setup({ choice: 'deny', reason: 'no' });
    expect(await denied.commands.run('/call mcp__fx__echo {"text":"hi"}', { signal })).toBe('The user denied this call. Reason: no');
    expect(denied.calls).toEqual([]);
  });

  it('explains unknown tools and bad JSON in /call', async () => {
    const { commands, calls } = setup({ choice: 'once' });
    expect(await commands.run('/call mcp__nope__x {}', { signal })).toContain('unknown tool "mcp__nope__x"');
    expect(await commands.run('/call mcp__fx__echo {text}', { signal })).toContain('The arguments for "mcp__fx__echo" are not valid JSON');
    expect(calls).toEqual([]);
  });

  it('returns help, usage and undefined for plain text', async () => {
    const { commands } = setup({ choice: 'once' });
    expect(await commands.run('/help', { signal })).toBe(DIRECT_COMMANDS_HELP);
    expect(await commands.run('/call', { signal })).toContain('Usage');
    expect(await commands.run('hello', { signal })).toBeUndefined();
  });

  it('says when no server is configured', async () => {
    const fx = new PipelineFixture();
    const calls = new ModelToolCalls({ call: fx.call, decider: { decide: async () => ({ outcome: 'deny', decider: { by: 'rule', rule: '*' } }) }, tools: () => [] });
    expect(await new DirectCommands({ tools: () => [], servers: () => [], calls }).run('/mcp', { signal })).toBe('No MCP servers are configured.');
  });
});
