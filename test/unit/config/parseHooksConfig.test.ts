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

describe('every message of a hooks file, exactly', () => {
  const at = (text: string, source: 'workspace' | 'claude' = 'workspace') => parseHooksConfigText(text, { source, file });
  const value = (v: unknown, source: 'user' | 'claude' = 'user') => parseHooksValue(v, { source, file: 's' });
  const command = (entry: Record<string, unknown>) => value({ PreToolUse: [{ hooks: [entry] }] });

  it('reads a file with a byte order mark, comments and trailing commas; an empty one says so', () => {
    const text = '\ufeff{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a",},],},]}, /* c */ }';
    expect(at(text)).toEqual({
      hooks: [{ id: `${file}#hooks.PreToolUse[0].hooks[0]`, command: 'a', timeoutSec: 60, onError: 'block', event: 'PreToolUse', matcher: '', origin: { source: 'workspace', file, jsonPath: 'hooks.PreToolUse[0].hooks[0]', line: 1, column: 38 } }],
      errors: [],
    });
    expect(at('')).toStrictEqual({ hooks: [], errors: [{ file, message: 'the file is empty' }] });
    expect(at('{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a"}]}]}} x')).toStrictEqual({ hooks: [], errors: [{ file, line: 1, column: 79, message: 'invalid JSON: InvalidSymbol' }] });
    expect(at('[{"hooks": {}}]')).toStrictEqual({ hooks: [], errors: [{ file, message: 'expected an object with "hooks", got array' }] });
    expect(at('\ufeff \n\t').errors).toEqual([{ file, message: 'the file is empty' }]);
    expect(at('// nothing yet\n').errors).toEqual([{ file, line: 2, column: 1, message: 'invalid JSON: ValueExpected' }]);
    expect(at('{ "hooks": {} } x').errors).toEqual([{ file, line: 1, column: 17, message: 'invalid JSON: InvalidSymbol' }]);
    expect(at('{}')).toEqual({ hooks: [], errors: [] });
    expect(at('{ "x": 1 }', 'claude')).toEqual({ hooks: [], errors: [] });
  });

  it('places each problem at its value, or at its key for a name that is wrong', () => {
    const text = '{\n  "x": 1,\n  "hooks": {\n    "Stop": [],\n    "PreToolUse": [{ "matcher": 3, "hooks": [] }, "g", { "hooks": 1, "extra": 1 }]\n  }\n}';
    expect(at(text).errors).toEqual([
      { file, jsonPath: 'x', line: 2, column: 8, message: 'unknown field (expected "hooks")' },
      { file, jsonPath: 'hooks.Stop', line: 4, column: 5, message: 'unknown hook event (expected PreToolUse, PostToolUse, UserPromptSubmit, SessionStart)' },
      { file, jsonPath: 'hooks.PreToolUse[0].matcher', line: 5, column: 33, message: 'expected a regular expression as a string, got number' },
      { file, jsonPath: 'hooks.PreToolUse[1]', line: 5, column: 51, message: 'expected { "matcher", "hooks" }, got string' },
      { file, jsonPath: 'hooks.PreToolUse[2].extra', line: 5, column: 70, message: 'unknown field (expected "matcher" or "hooks")' },
      { file, jsonPath: 'hooks.PreToolUse[2].hooks', line: 5, column: 67, message: 'expected an array of hook commands, got number' },
    ]);
    const entries = '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "bad": 1}]}]}}';
    expect(at(entries).errors).toEqual([{ file, jsonPath: 'hooks.PreToolUse[0].hooks[0].bad', line: 1, column: 74, message: 'unknown field (expected "type", "command", "timeout" or "onError")' }]);
  });

  it('words a value without a place: no path and no position when there is neither', () => {
    expect(value([1])).toEqual({ hooks: [], errors: [{ file: 's', message: 'expected an object of events (PreToolUse, PostToolUse, UserPromptSubmit, SessionStart), got array' }] });
    expect(value(null)).toEqual({ hooks: [], errors: [] });
    expect(value(undefined)).toEqual({ hooks: [], errors: [] });
    expect(value({ PreToolUse: [{ matcher: '(', hooks: [] }] }).errors).toEqual([{ file: 's', jsonPath: 'PreToolUse[0].matcher', message: 'not a valid regular expression: Invalid regular expression: /(/: Unterminated group' }]);
    expect(value({ PreToolUse: 'x' }).errors).toEqual([{ file: 's', jsonPath: 'PreToolUse', message: 'expected an array of { "matcher", "hooks" } groups, got string' }]);
    expect(value({ PreToolUse: [{}] }).errors).toEqual([{ file: 's', jsonPath: 'PreToolUse[0].hooks', message: 'expected an array of hook commands, got undefined' }]);
  });

  it('unwraps an outer "hooks" only when it is the one member and an object', () => {
    expect(value({ hooks: [] }).errors.map((e) => `${e.jsonPath}: ${e.message}`)).toEqual(['hooks: unknown hook event (expected PreToolUse, PostToolUse, UserPromptSubmit, SessionStart)']);
    const both = value({ hooks: {}, PreToolUse: [{ hooks: [{ type: 'command', command: 'a' }] }] });
    expect(both.hooks.map((h) => h.origin.jsonPath)).toEqual(['PreToolUse[0].hooks[0]']);
    expect(both.errors.map((e) => e.jsonPath)).toEqual(['hooks']);
    expect(value({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'a' }] }] } }).hooks.map((h) => [h.event, h.origin.jsonPath])).toEqual([['SessionStart', 'hooks.SessionStart[0].hooks[0]']]);
  });

  it('reads a missing or null matcher as every tool, and keeps each matcher as written', () => {
    const { hooks, errors } = value({ PostToolUse: [{ matcher: null, hooks: [{ type: 'command', command: 'a' }] }, { matcher: 'Bash|mcp__.*', hooks: [{ type: 'command', command: 'b' }] }] });
    expect(errors).toEqual([]);
    expect(hooks.map((h) => [h.event, h.matcher, h.command])).toEqual([['PostToolUse', '', 'a'], ['PostToolUse', 'Bash|mcp__.*', 'b']]);
  });

  it('says what each unusable command entry is', () => {
    const message = (entry: unknown) => value({ PreToolUse: [{ hooks: [entry] }] }).errors.map((e) => `${e.jsonPath}: ${e.message}`);
    expect(message('run')).toEqual(['PreToolUse[0].hooks[0]: expected { "type": "command", "command": ... }, got string']);
    expect(message({ command: 'a' })).toEqual(['PreToolUse[0].hooks[0]: expected "type": "command"']);
    expect(message({ type: 1, command: 'a' })).toEqual(['PreToolUse[0].hooks[0]: expected "type": "command"']);
    expect(message({ type: 'http' })).toEqual(['PreToolUse[0].hooks[0]: hook type "http" is not supported (only "command")']);
    expect(message({ type: 'command' })).toEqual(['PreToolUse[0].hooks[0].command: expected a command line, got undefined']);
    expect(message({ type: 'command', command: '   ' })).toEqual(['PreToolUse[0].hooks[0].command: expected a command line, got string']);
    expect(message({ type: 'command', command: 7 })).toEqual(['PreToolUse[0].hooks[0].command: expected a command line, got number']);
    expect(message({ type: 'command', command: 'a', timeout: 0 })).toEqual(['PreToolUse[0].hooks[0].timeout: expected a positive number of seconds, got 0']);
    expect(message({ type: 'command', command: 'a', timeout: '5' })).toEqual(['PreToolUse[0].hooks[0].timeout: expected a positive number of seconds, got "5"']);
    expect(message({ type: 'command', command: 'a', timeout: Infinity })).toEqual(['PreToolUse[0].hooks[0].timeout: expected a positive number of seconds, got null']);
    expect(message({ type: 'command', command: 'a', onError: true })).toEqual(['PreToolUse[0].hooks[0].onError: expected "block" or "continue", got true']);
    // Every problem of one entry is told, and the entry is left out.
    expect(message({ type: 'command', command: 'a', timeout: -2, onError: 'x', extra: 1 })).toEqual([
      'PreToolUse[0].hooks[0].timeout: expected a positive number of seconds, got -2',
      'PreToolUse[0].hooks[0].onError: expected "block" or "continue", got "x"',
      'PreToolUse[0].hooks[0].extra: unknown field (expected "type", "command", "timeout" or "onError")',
    ]);
    expect(command({ type: 'command', command: 'a', timeout: -2 }).hooks).toEqual([]);
  });

  it('takes every valid timeout and onError as given', () => {
    const one = (entry: Record<string, unknown>) => command({ type: 'command', command: 'a', ...entry }).hooks[0]!;
    expect(one({ timeout: 0.5 }).timeoutSec).toBe(0.5);
    expect(one({ timeout: 1 }).timeoutSec).toBe(1);
    expect(one({}).timeoutSec).toBe(60);
    expect(one({ onError: 'block' }).onError).toBe('block');
    expect(one({ onError: 'continue' }).onError).toBe('continue');
    expect(one({ statusMessage: 'checking' })).toMatchObject({ command: 'a', onError: 'block' });
    expect(one({}).origin).toStrictEqual({ source: 'user', file: 's', jsonPath: 'PreToolUse[0].hooks[0]' });
    expect(one({}).id).toBe('s#PreToolUse[0].hooks[0]');
  });

  it("reads Claude Code's own fields and events quietly, but not a malformed group or entry", () => {
    const claude = value({ Notification: [], PreToolUse: [{ matcher: 'x', extra: 1, hooks: [{ type: 'command', command: 'a', async: true }, { type: 'prompt' }, 'nope'] }] }, 'claude');
    expect(claude.hooks.map((h) => [h.command, h.origin.source])).toEqual([['a', 'claude']]);
    expect(claude.errors.map((e) => `${e.jsonPath}: ${e.message}`)).toEqual(['PreToolUse[0].hooks[2]: expected { "type": "command", "command": ... }, got string']);
    expect(value({ PreToolUse: [3] }, 'claude').errors.map((e) => e.message)).toEqual(['expected { "matcher", "hooks" }, got number']);
  });
});
