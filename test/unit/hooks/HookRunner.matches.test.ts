import { describe, expect, it } from 'vitest';
import { parseHooksValue } from '../../../src/core/config/parseHooksConfig';
import { HookRunner } from '../../../src/core/hooks/HookRunner';
import type { HarnessTool } from '../../../src/core/tools/types';

const tool = (server: string | undefined, originalName: string) =>
  ({ name: server === undefined ? originalName : `mcp__${server}__${originalName}`, originalName, ...(server !== undefined ? { server } : {}) }) as HarnessTool;

function runner(hooks: Record<string, unknown>, permit?: () => string | undefined): HookRunner {
  const parsed = parseHooksValue(hooks, { source: 'user', file: 'settings.json' });
  expect(parsed.errors).toEqual([]);
  const r = new HookRunner(permit ? { permit } : {});
  r.setHooks(parsed.hooks);
  return r;
}

describe('HookRunner.matches', () => {
  it('says which tool events have a hook that matches, so the pipeline can leave out the others', () => {
    const none = runner({});
    expect(none.matches('PreToolUse', tool('fs', 'read'))).toBe(false);
    const r = runner({
      PreToolUse: [{ matcher: 'mcp__fs__.*', hooks: [{ type: 'command', command: 'true' }] }],
      PostToolUse: [{ matcher: 'read_file', hooks: [{ type: 'command', command: 'true' }] }],
    });
    expect(r.matches('PreToolUse', tool('fs', 'read'))).toBe(true);
    expect(r.matches('PostToolUse', tool('fs', 'read'))).toBe(false);
    expect(r.matches('PreToolUse', tool('git', 'log'))).toBe(false);
    expect(r.matches('PostToolUse', tool(undefined, 'read_file'))).toBe(true);
    expect(r.matches('PreToolUse', tool(undefined, 'read_file'))).toBe(false);
    r.setHooks([]);
    expect(r.matches('PreToolUse', tool('fs', 'read'))).toBe(false);
  });

  it('counts a hook that may not run now: its skip is still reported for the call', () => {
    const r = runner({ PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'true' }] }] }, () => 'not approved');
    expect(r.matches('PreToolUse', tool('fs', 'read'))).toBe(true);
  });
});
