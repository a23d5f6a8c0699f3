import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHooksConfig } from '../../../src/core/config/loadHooksConfig';
import { parseHooksConfigText, parseHooksValue } from '../../../src/core/config/parseHooksConfig';
import { tempDir } from '../../support/servers';

const file = '/w/.harness/hooks.json';
const parse = (value: unknown, source: 'workspace' | 'claude' = 'workspace') => parseHooksConfigText(JSON.stringify(value, null, 2), { source, file, workspaceFolder: '/w' });

describe('hooks files in Claude Code format', () => {
  it('reads every event, matcher and command, with defaults, positions and origins', () => {
    const { hooks, errors } = parse({
      hooks: {
        PreToolUse: [{ matcher: 'mcp__github__.*', hooks: [{ type: 'command', command: './guard.sh', timeout: 5 }, { type: 'command', command: 'log', onError: 'continue' }] }],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'redact', statusMessage: 'redacting' }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'ctx' }] }],
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'hello' }] }],
      },
    });
    expect(errors).toEqual([]);
    expect(hooks.map((h) => [h.event, h.matcher, h.command, h.timeoutSec, h.onError])).toEqual([
      ['PreToolUse', 'mcp__github__.*', './guard.sh', 5, 'block'],
      ['PreToolUse', 'mcp__github__.*', 'log', 60, 'continue'],
      ['PostToolUse', '', 'redact', 60, 'block'],
      ['UserPromptSubmit', '', 'ctx', 60, 'block'],
      ['SessionStart', 'startup', 'hello', 60, 'block'],
    ]);
    expect(hooks[1]!.origin).toEqual({ source: 'workspace', file, jsonPath: 'hooks.PreToolUse[0].hooks[1]', line: 12, column: 11, workspaceFolder: '/w' });
    expect(hooks[1]!.id).toBe(`${file}#hooks.PreToolUse[0].hooks[1]`);
  });

  it('reports each bad entry by its path, and keeps the good ones', () => {
    const { hooks, errors } = parse({
      hooks: {
        PreToolUse: [
          { matcher: '(', hooks: [{ type: 'command', command: 'a' }] },
          { matcher: 'x', hooks: [{ type: 'command', command: '' }, { type: 'prompt', prompt: 'judge' }, { type: 'command', command: 'ok', timeout: -1 }, { type: 'command', command: 'ok2', onError: 'ignore' }, { type: 'command', command: 'good', timout: 3 }] },
          { matcher: 'y', hooks: [{ type: 'command', command: 'kept' }] },
        ],
        Stop: [],
        PostToolUse: {},
      },
      other: true,
    });
    expect(hooks.map((h) => h.command)).toEqual(['kept']);
    expect(errors.map((e) => `${e.jsonPath}: ${e.message}`)).toEqual([
      'other: unknown field (expected "hooks")',
      expect.stringMatching(/^hooks\.PreToolUse\[0\]\.matcher: not a valid regular expression: /),
      'hooks.PreToolUse[1].hooks[0].command: expected a command line, got an empty string',
      'hooks.PreToolUse[1].hooks[1]: hook type "prompt" is not supported (only "command")',
      'hooks.PreToolUse[1].hooks[2].timeout: expected a positive number of seconds, got -1',
      'hooks.PreToolUse[1].hooks[3].onError: expected "block" or "continue", got "ignore"',
      'hooks.PreToolUse[1].hooks[4].timout: unknown field (expected "type", "command", "timeout" or "onError")',
      'hooks.Stop: unknown hook event (expected PreToolUse, PostToolUse, UserPromptSubmit, SessionStart)',
      'hooks.PostToolUse: expected an array of { "matcher", "hooks" } groups, got object',
    ]);
    expect(errors.every((e) => e.file === file && typeof e.line === 'number')).toBe(true);
  });

  it("reads a Claude Code settings file's hooks and leaves what is Claude Code's alone", () => {
    const { hooks, errors } = parse(
      { permissions: { allow: ['Bash'] }, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'check', async: true }, { type: 'http', url: 'http://x' }] }] } },
      'claude',
    );
    expect(errors).toEqual([]);
    expect(hooks.map((h) => [h.event, h.command, h.origin.source])).toEqual([['PreToolUse', 'check', 'claude']]);
  });

  it('says what is wrong with a file that is not JSON, or not an object', () => {
    expect(parseHooksConfigText('{ "hooks": ', { source: 'workspace', file }).errors).toEqual([{ file, line: 1, column: 12, message: expect.stringMatching(/^invalid JSON: /) }]);
    expect(parseHooksConfigText('[]', { source: 'workspace', file }).errors).toEqual([{ file, message: 'expected an object with "hooks", got array' }]);
  });

  it('reads a setting value, with or without the outer "hooks"', () => {
    const value = { PreToolUse: [{ hooks: [{ type: 'command', command: 'a' }] }] };
    const context = { source: 'user' as const, file: 'settings.json', basePath: ['mcpHarness', 'hooks'] };
    expect(parseHooksValue(value, context).hooks[0]!.origin.jsonPath).toBe('mcpHarness.hooks.PreToolUse[0].hooks[0]');
    expect(parseHooksValue({ hooks: value }, context).hooks[0]!.origin.jsonPath).toBe('mcpHarness.hooks.hooks.PreToolUse[0].hooks[0]');
    expect(parseHooksValue('nope', context).errors).toEqual([{ file: 'settings.json', jsonPath: 'mcpHarness.hooks', message: 'expected an object of events (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart), got string' }]);
  });
});

describe('loading hooks from every place', () => {
  it('orders user, explicit, then per folder workspace and (opted in) Claude Code hooks; missing files only matter when named', async () => {
    const tmp = tempDir();
    try {
      const a = path.join(tmp.dir, 'a');
      const write = (rel: string, command: string) => {
        fs.mkdirSync(path.dirname(path.join(a, rel)), { recursive: true });
        fs.writeFileSync(path.join(a, rel), JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } }));
      };
      write('.harness/hooks.json', 'workspace');
      write('.claude/settings.json', 'claude');
      write('../mine.json', 'explicit');
      const user = { label: 'settings.json', path: ['mcpHarness', 'hooks'], value: { PreToolUse: [{ hooks: [{ type: 'command', command: 'user' }] }] } };
      const base = { workspaceFolders: [a], user, files: [path.join(tmp.dir, 'mine.json')], userFiles: [path.join(tmp.dir, 'absent.json')] };
      expect((await loadHooksConfig(base)).hooks.map((h) => h.command)).toEqual(['user', 'explicit', 'workspace']);
      const all = await loadHooksConfig({ ...base, claudeSettings: true });
      expect(all.hooks.map((h) => [h.command, h.origin.source, h.origin.workspaceFolder])).toEqual([['user', 'user', a], ['explicit', 'explicit', a], ['workspace', 'workspace', a], ['claude', 'claude', a]]);
      expect(all.errors).toEqual([]);
      expect((await loadHooksConfig({ files: [path.join(tmp.dir, 'nope.json')] })).errors).toEqual([{ file: path.join(tmp.dir, 'nope.json'), message: 'file not found' }]);
    } finally {
      tmp.cleanup();
    }
  });
});
