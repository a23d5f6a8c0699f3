import { describe, expect, it } from 'vitest';
import type { HookDefinition } from '../../../src/core/config/hookTypes';
import { HOOK_AWAITING_APPROVAL, HOOK_NOT_TRUSTED, HookApprovals } from '../../../src/core/hooks/HookApprovals';

const hook = (source: HookDefinition['origin']['source'], command = 'guard.sh'): HookDefinition => ({
  id: `f#${command}`,
  event: 'PreToolUse',
  matcher: '',
  command,
  timeoutSec: 60,
  onError: 'block',
  origin: { source, file: '/w/.harness/hooks.json', jsonPath: 'hooks.PreToolUse[0].hooks[0]' },
});

function approvals(trusted = true) {
  let keys: string[] = [];
  const asked: HookDefinition[][] = [];
  const a = new HookApprovals({ get: () => keys, set: async (k) => void (keys = [...k]) }, () => trusted);
  a.onDidRequest((hooks) => asked.push([...hooks]));
  return { a, asked, keys: () => keys };
}
const tick = () => new Promise<void>((r) => queueMicrotask(r));

describe('approval of a workspace hooks', () => {
  it("never holds back the user's own hooks", () => {
    expect(approvals(false).a.permit(hook('user'))).toBeUndefined();
  });

  it('holds back a workspace hook until approved, asks once, and asks again when it changes', async () => {
    const { a, asked } = approvals();
    expect(a.permit(hook('workspace'))).toBe(HOOK_AWAITING_APPROVAL);
    expect(a.permit(hook('claude', 'other'))).toBe(HOOK_AWAITING_APPROVAL);
    await tick();
    expect(asked.map((list) => list.map((h) => h.command))).toEqual([['guard.sh', 'other']]);
    await a.approve([hook('workspace')]);
    expect(a.permit(hook('workspace'))).toBeUndefined();
    expect(a.pending().map((h) => h.command)).toEqual(['other']);
    expect(a.permit({ ...hook('workspace'), command: 'guard.sh --edited' })).toBe(HOOK_AWAITING_APPROVAL);
    expect(a.permit({ ...hook('workspace'), timeoutSec: 5 })).toBe(HOOK_AWAITING_APPROVAL);
    await tick();
    expect(asked).toHaveLength(2);
  });

  it('never runs one in an untrusted workspace, approved or not', async () => {
    const trusted = approvals(true);
    await trusted.a.approve([hook('workspace')]);
    const untrusted = new HookApprovals({ get: () => trusted.keys(), set: async () => undefined }, () => false);
    expect(untrusted.permit(hook('workspace'))).toBe(HOOK_NOT_TRUSTED);
  });
});

describe('approval of hooks, more', () => {
  it('never holds back a hook from a file named on the command line', () => {
    expect(approvals(false).a.permit(hook('explicit'))).toBeUndefined();
  });

  it('asks again when the event, matcher, error handling or file of a hook changes', async () => {
    const { a } = approvals();
    await a.approve([hook('workspace')]);
    const base = hook('workspace');
    expect(a.permit(base)).toBeUndefined();
    for (const changed of [
      { ...base, event: 'PostToolUse' as const },
      { ...base, matcher: 'mcp__.*' },
      { ...base, onError: 'continue' as const },
      { ...base, origin: { ...base.origin, file: '/w/.claude/settings.json' } },
    ]) {
      expect(a.permit(changed)).toBe(HOOK_AWAITING_APPROVAL);
    }
  });

  it('forgets pending hooks that are no longer configured, and stays quiet when none are left to ask about', async () => {
    const { a, asked } = approvals();
    const kept = hook('workspace', 'kept.sh');
    a.permit(kept);
    a.permit(hook('workspace', 'gone.sh'));
    a.retain([kept]);
    expect(a.pending()).toEqual([kept]);
    await tick();
    expect(asked).toEqual([[kept]]);
    a.permit(hook('workspace', 'later.sh'));
    a.retain([]);
    await tick();
    expect(asked).toHaveLength(1);
  });
});
