import { describe, expect, it } from 'vitest';
import { buildSpawnPlan, escapeCmdArgument, resolveWindowsCommand } from '../../../src/core/process/spawnCommand';

const winEnv = { PATH: 'C:\\Program Files\\nodejs;C:\\Windows\\System32', PATHEXT: '.COM;.EXE;.BAT;.CMD', ComSpec: 'C:\\Windows\\System32\\cmd.exe' };
const files = new Set(['C:\\Program Files\\nodejs\\npx.cmd', 'C:\\Program Files\\nodejs\\node.exe', 'C:\\tools\\run me.bat']);
// Windows file names are case-insensitive; PATHEXT entries are upper case.
const isFile = (p: string) => [...files].some((f) => f.toLowerCase() === p.toLowerCase());

describe('buildSpawnPlan', () => {
  it('runs commands as they are outside Windows', () => {
    expect(buildSpawnPlan('npx', ['-y', 'pkg'], { platform: 'linux', env: {} })).toEqual({ file: 'npx', args: ['-y', 'pkg'], windowsVerbatimArguments: false });
    // Even where a Windows lookup would find a batch shim.
    expect(buildSpawnPlan('npx', ['-y'], { platform: 'linux', env: winEnv, isFile })).toEqual({ file: 'npx', args: ['-y'], windowsVerbatimArguments: false });
  });

  it('starts .cmd shims found through PATHEXT via cmd /d /s /c with quoted arguments', () => {
    const plan = buildSpawnPlan('npx', ['-y', '@scope/server', 'a b', 'x&y'], { platform: 'win32', env: winEnv, isFile });
    expect(plan.file).toBe('C:\\Windows\\System32\\cmd.exe');
    expect(plan.windowsVerbatimArguments).toBe(true);
    expect(plan.args.slice(0, 3)).toEqual(['/d', '/s', '/c']);
    expect(plan.args[3]).toBe('"C:\\Program^ Files\\nodejs\\npx.CMD ^"-y^" ^"@scope/server^" ^"a^ b^" ^"x^&y^""');
  });

  it('starts executables directly, resolved on PATH', () => {
    expect(buildSpawnPlan('node', ['server.js'], { platform: 'win32', env: winEnv, isFile })).toEqual({
      file: 'C:\\Program Files\\nodejs\\node.EXE',
      args: ['server.js'],
      windowsVerbatimArguments: false,
    });
  });

  it('routes an explicit .bat path through cmd and leaves unknown commands to fail with ENOENT', () => {
    expect(buildSpawnPlan('C:\\tools\\run me.bat', [], { platform: 'win32', env: winEnv, isFile }).args[3]).toBe('"C:\\tools\\run^ me.bat"');
    expect(buildSpawnPlan('missing', ['a'], { platform: 'win32', env: winEnv, isFile })).toEqual({ file: 'missing', args: ['a'], windowsVerbatimArguments: false });
  });

  it('finds commands by PATHEXT order', () => {
    expect(resolveWindowsCommand('npx', { platform: 'win32', env: winEnv, isFile })).toBe('C:\\Program Files\\nodejs\\npx.CMD');
  });
});

describe('escapeCmdArgument', () => {
  it('doubles backslashes before quotes and at the end, and escapes quotes', () => {
    expect(escapeCmdArgument('a"b')).toBe('^"a\\^"b^"');
    expect(escapeCmdArgument('dir\\')).toBe('^"dir\\\\^"');
    expect(escapeCmdArgument('')).toBe('^"^"');
    expect(escapeCmdArgument('%PATH%')).toBe('^"^%PATH^%^"');
  });
});
