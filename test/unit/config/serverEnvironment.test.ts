import { describe, expect, it } from 'vitest';
import { buildServerEnvironment, needsLoginShellPath, readLoginShellPath } from '../../../src/core/config/serverEnvironment';

describe('buildServerEnvironment', () => {
  const host = { HOME: '/home/u', PATH: '/usr/bin', SECRET: 's3', USER: 'u', BASH_FUNC_x: '() { evil; }', SHELL: '() { evil; }' };

  it('passes the safe subset plus the config env, which wins', () => {
    expect(buildServerEnvironment(host, { PATH: '/custom', TOKEN: 't' }, { platform: 'linux', inheritAll: false })).toEqual({
      HOME: '/home/u',
      PATH: '/custom',
      USER: 'u',
      TOKEN: 't',
    });
  });

  it('passes everything but exported shell functions when asked', () => {
    const env = buildServerEnvironment(host, {}, { platform: 'linux', inheritAll: true });
    expect(env.SECRET).toBe('s3');
    expect(env.BASH_FUNC_x).toBeUndefined();
  });

  it('uses the login shell PATH when given', () => {
    expect(buildServerEnvironment({ HOME: '/h' }, {}, { platform: 'darwin', inheritAll: false, loginShellPath: '/opt/homebrew/bin:/usr/bin' }).PATH).toBe(
      '/opt/homebrew/bin:/usr/bin',
    );
  });
});

describe('needsLoginShellPath', () => {
  it('asks the shell when PATH is missing, or only the macOS system minimum', () => {
    expect(needsLoginShellPath({}, 'linux')).toBe(true);
    expect(needsLoginShellPath({ PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }, 'darwin')).toBe(true);
    expect(needsLoginShellPath({ PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }, 'linux')).toBe(false);
    expect(needsLoginShellPath({ PATH: '/opt/homebrew/bin:/usr/bin' }, 'darwin')).toBe(false);
    expect(needsLoginShellPath({}, 'win32')).toBe(false);
  });

  it('reads PATH from a real login shell, and gives up on a broken one', async () => {
    expect(await readLoginShellPath('/bin/sh')).toMatch(/\/usr\/bin/);
    expect(await readLoginShellPath('/no/such/shell')).toBeUndefined();
  });
});
