import { describe, expect, it } from 'vitest';
import { approvalKey, evaluatePermission } from '../../../src/core/permissions/evaluatePermission';
import { PermissionGate } from '../../../src/core/permissions/PermissionGate';
import { pinTool } from '../../../src/core/tools/toolPin';
import { ScriptedPrompter } from '../../support/permissions';
import { harnessTool } from '../../support/tools';

const tool = harnessTool({ name: 'mcp__memory__read_graph', server: 'memory', originalName: 'read_graph', description: 'Reads', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } });
const pin = pinTool(tool);
const remembered = { session: new Map([[approvalKey(tool), { hash: pin.hash, definition: pin.definition }]]) };

describe("a PreToolUse hook's word in the permission policy", () => {
  it('allow skips the card, and a deny rule still wins', () => {
    expect(evaluatePermission({ tool, pin, rules: {}, remembered: {}, hook: { decision: 'allow', hook: 'guard' } })).toEqual({ outcome: 'allow', decider: { by: 'hook', hook: 'guard' } });
    expect(evaluatePermission({ tool, pin, rules: { deny: ['mcp__memory__*'] }, remembered: {}, hook: { decision: 'allow', hook: 'guard' } })).toMatchObject({ outcome: 'deny', decider: { by: 'rule' } });
  });

  it('ask shows the card though an allow rule, a remembered choice or the read-only setting would allow', () => {
    expect(evaluatePermission({ tool, pin, rules: { allow: ['*'], autoAllowReadOnly: true }, remembered, hook: { decision: 'ask', hook: 'guard' } })).toEqual({ outcome: 'ask' });
    expect(evaluatePermission({ tool, pin, rules: { allow: ['*'] }, remembered })).toMatchObject({ outcome: 'allow' });
  });

  it('the gate puts the hook and its reason on the card', async () => {
    const prompter = new ScriptedPrompter(() => ({ choice: 'once' }));
    const gate = new PermissionGate({ prompter, rules: () => ({ allow: ['*'] }) });
    const decision = await gate.decide({ callId: 'c', tool, arguments: {}, hook: { decision: 'ask', hook: 'guard.sh', reason: 'look first' } }, { signal: new AbortController().signal });
    expect(decision).toEqual({ outcome: 'allow', decider: { by: 'user', choice: 'once' } });
    expect(prompter.requests[0]!.askedBy).toEqual({ hook: 'guard.sh', reason: 'look first' });
  });
});
