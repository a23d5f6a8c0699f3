import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSpawnPlan, escapeCmdArgument, resolveWindowsCommand } from '../../../src/core/process/spawnCommand';

const files = (...names: string[]) => {
  const set = new Set(names.map((n) => n.toLowerCase()));
  return (p: string) => set.has(p.toLowerCase());
};

describe('resolveWindowsCommand', () => {
  it('tries every PATH folder in turn, skipping empty entries, and the extensions PATHEXT names', () => {
    const env = { PATH: ';C:\\a;;C:\\b;', PATHEXT: ';.PS1;;.EXE' };
    expect(resolveWindowsCommand('tool', { platform: 'win32', env, isFile: files('C:\\b\\tool.EXE') })).toBe('C:\\b\\tool.EXE');
    expect(resolveWindowsCommand('script', { platform: 'win32', env, isFile: files('C:\\a\\script.PS1') })).toBe('C:\\a\\script.PS1');
    expect(resolveWindowsCommand('tool', { platform: 'win32', env: { Path: 'C:\\p' }, isFile: files('C:\\p\\tool.COM') })).toBe('C:\\p\\tool.COM');
    expect(resolveWindowsCommand('tool', { platform: 'win32', env: {}, isFile: () => true })).toBeUndefined();
    // An extensionless file is not what Windows runs for a bare name, even when PATHEXT has empty entries.
    expect(resolveWindowsCommand('tool', { platform: 'win32', env: { PATH: 'C:\\b', PATHEXT: ';;.EXE' }, isFile: files('C:\\b\\tool', 'C:\\b\\tool.EXE') })).toBe('C:\\b\\tool.EXE');
  });

  it('takes a command with an extension as it is, or with one more', () => {
    expect(resolveWindowsCommand('C:\\x\\run.cmd', { platform: 'win32', env: {}, isFile: files('C:\\x\\run.cmd') })).toBe('C:\\x\\run.cmd');
    expect(resolveWindowsCommand('C:\\x\\v1.2', { platform: 'win32', env: {}, isFile: files('C:\\x\\v1.2.EXE') })).toBe('C:\\x\\v1.2.EXE');
  });

  it('checks real files when no check is given', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-win-'));
    try {
      fs.writeFileSync(path.join(dir, 'tool.EXE'), '');
      fs.mkdirSync(path.join(dir, 'folder.EXE'));
      expect(resolveWindowsCommand(path.join(dir, 'tool'), { platform: 'win32', env: { PATHEXT: '.EXE' } })).toBe(path.join(dir, 'tool.EXE'));
      expect(resolveWindowsCommand(path.join(dir, 'folder'), { platform: 'win32', env: { PATHEXT: '.EXE' } })).toBeUndefined();
      expect(resolveWindowsCommand(path.join(dir, 'missing'), { platform: 'win32', env: { PATHEXT: '.EXE' } })).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('buildSpawnPlan on Windows', () => {
  it('runs an executable whose name only contains ".cmd" directly, and a batch file through COMSPEC', () => {
    const isFile = files('C:\\t\\a.cmd.exe', 'C:\\t\\b.bat');
    expect(buildSpawnPlan('C:\\t\\a.cmd.exe', [], { platform: 'win32', env: {}, isFile })).toEqual({ file: 'C:\\t\\a.cmd.exe', args: [], windowsVerbatimArguments: false });
    expect(buildSpawnPlan('C:\\t\\b.bat', ['x'], { platform: 'win32', env: { COMSPEC: 'D:\\cmd.exe' }, isFile })).toEqual({ file: 'D:\\cmd.exe', args: ['/d', '/s', '/c', '"C:\\t\\b.bat ^"x^""'], windowsVerbatimArguments: true });
    expect(buildSpawnPlan('C:\\t\\b.bat', [], { platform: 'win32', env: {}, isFile }).file).toBe('cmd.exe');
  });

  it('doubles the backslashes before a quote in an argument', () => {
    expect(escapeCmdArgument('a\\\\"b')).toBe('^"a\\\\\\\\\\^"b^"');
    expect(escapeCmdArgument('a\\b')).toBe('^"a\\b^"');
  });
});
