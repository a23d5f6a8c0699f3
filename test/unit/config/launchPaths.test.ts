import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServerLaunch } from '../../../src/core/config/resolveServerLaunch';
import type { McpServerDefinition } from '../../../src/core/config/types';

/** A stdio server the host supplied (its origin is a label, not a file), with no workspace folder. */
const hostServer = (fields: Partial<McpServerDefinition>): McpServerDefinition => ({
  name: 's', type: 'stdio', command: 'srv', args: [], env: {}, headers: {}, disabled: false, inputs: [],
  origin: { source: 'user', file: 'settings.json', jsonPath: 'mcpHarness.servers.s' },
  ...fields,
});

describe('paths and env files of a launch', () => {
  it('takes an absolute cwd and envFile as they are, even with nothing to resolve against', async () => {
    const cwd = path.resolve('/srv/app/../data');
    const envFile = path.resolve('/srv/app/.env');
    const read: string[] = [];
    const result = await resolveServerLaunch(hostServer({ cwd, envFile }), {
      env: {},
      userHome: '/home/me',
      readFile: async (file) => (read.push(file), 'A=1'),
    });
    expect(result).toMatchObject({ ok: true, value: { cwd: path.normalize(cwd), env: { A: '1' } } });
    expect(read).toEqual([envFile]);
  });

  it('refuses a relative cwd with nothing to resolve against, quoting it as configured', async () => {
    expect(await resolveServerLaunch(hostServer({ cwd: 'data' }), { env: {}, userHome: '/home/me' })).toEqual({
      ok: false,
      error: 'relative cwd "data" needs a workspace folder to resolve against',
    });
  });

  it('masks the values of an env file, but not an empty one', async () => {
    const result = await resolveServerLaunch(hostServer({ envFile: path.resolve('/srv/.env') }), {
      env: {},
      userHome: '/home/me',
      readFile: async () => 'TOKEN=abc\nEMPTY=\n',
    });
    expect(result).toMatchObject({ ok: true, value: { env: { TOKEN: 'abc', EMPTY: '' }, secretValues: ['abc'] } });
  });
});
