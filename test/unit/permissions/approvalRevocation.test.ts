import { describe, expect, it } from 'vitest';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import type { PermissionAnswer } from '../../../src/core/permissions/types';
import type { HarnessTool } from '../../../src/core/tools/types';
import { MemoryApprovalStore, ScriptedPrompter } from '../../support/permissions';
import { harnessTool } from '../../support/tools';

const echo = harnessTool({ name: 'mcp__fx__echo', server: 'fx', originalName: 'echo', description: 'Echoes', inputSchema: { type: 'object' } });
const add = harnessTool({ ...echo, name: 'mcp__fx__add', originalName: 'add', description: 'Adds' });
const readFile = harnessTool({ name: 'read_file', originalName: 'read_file', description: 'Reads', inputSchema: {}, annotations: { readOnlyHint: true } });
const answers = (...list: PermissionAnswer[]) => new ScriptedPrompter(() => list.shift() ?? { choice: 'deny', reason: 'script ran out' });
const check = (gate: PermissionGate, tool: HarnessTool) => gate.decide({ callId: 'c1', tool, arguments: {} }, { signal: new AbortController().signal });

describe('revoking remembered approvals', () => {
  it('lists a built-in approved for the session without a server', async () => {
    const gate = new PermissionGate({ prompter: answers({ choice: 'session' }) });
    await check(gate, readFile);
    const [entry] = await gate.remembered();
    expect(entry).toStrictEqual({ scope: 'session', tool: 'read_file' });
  });

  it('keeps the other workspace approvals in the store when one is revoked', async () => {
    const store = new MemoryApprovalStore();
    const gate = new PermissionGate({ prompter: answers({ choice: 'workspace' }, { choice: 'workspace' }), store });
    await check(gate, echo);
    await check(gate, add);
    expect(await gate.revoke({ scope: 'workspace', server: 'fx', tool: 'echo' })).toBe(true);
    expect(Object.keys(store.entries)).toEqual(['["fx","add"]']);
    expect(JSON.parse(store.entries['["fx","add"]']!)).toEqual({ hash: add.pin, definition: expect.stringContaining('"Adds"') });
    // A new gate reads the store back: `add` is still allowed without a card, `echo` asks.
    const prompter = answers({ choice: 'deny' });
    const next = new PermissionGate({ prompter, store });
    expect(await check(next, add)).toEqual({ outcome: 'allow', decider: { by: 'remembered', scope: 'workspace' } });
    expect((await check(next, echo)).outcome).toBe('deny');
    expect(prompter.requests.map((r) => r.tool.name)).toEqual(['mcp__fx__echo']);
  });

  it('answers false for a workspace approval that was never given, and writes nothing', async () => {
    const store = new MemoryApprovalStore();
    const gate = new PermissionGate({ prompter: answers({ choice: 'workspace' }), store });
    await check(gate, echo);
    const writes = store.writes;
    expect(await gate.revoke({ scope: 'workspace', server: 'fx', tool: 'add' })).toBe(false);
    expect(store.writes).toBe(writes);
    expect(Object.keys(store.entries)).toEqual(['["fx","echo"]']);
  });

  it('answers false for a per-tool scope named without a tool', async () => {
    const gate = new PermissionGate({ prompter: answers({ choice: 'session' }, { choice: 'workspace' }) });
    await check(gate, echo);
    await check(gate, add);
    expect(await gate.revoke({ scope: 'session', server: 'fx' })).toBe(false);
    expect(await gate.revoke({ scope: 'workspace', server: 'fx' })).toBe(false);
    expect(await gate.remembered()).toEqual([
      { scope: 'session', server: 'fx', tool: 'echo' },
      { scope: 'workspace', server: 'fx', tool: 'add' },
    ]);
  });
});
