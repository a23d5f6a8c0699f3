import { describe, expect, it } from 'vitest';
import { parseMcpConfigText, type McpServerDefinition } from '../../../src/core/config';
import { ServerLaunchResolver, type ServerLaunchResolverOptions } from '../../../src/core/config/ServerLaunchResolver';

function serverDef(entry: object): McpServerDefinition {
  const result = parseMcpConfigText(JSON.stringify({ servers: { s: entry } }), '/w/.vscode/mcp.json', 'vscode', '/w');
  expect(result.errors).toEqual([]);
  return result.servers[0];
}

function resolver(env: Record<string, string | undefined>, extra: Partial<ServerLaunchResolverOptions> = {}) {
  const shells: string[] = [];
  const r = new ServerLaunchResolver({
    env: () => env,
    inheritEnv: () => false,
    userHome: '/home/me',
    platform: 'linux',
    readLoginShellPath: async (shell) => {
      shells.push(shell);
      return '/login/bin:/usr/bin';
    },
    ...extra,
  });
  return { r, shells };
}

describe('ServerLaunchResolver', () => {
  it('gives a stdio server the safe host subset under its configured env, with variables substituted', async () => {
    const { r, shells } = resolver({ HOME: '/home/me', PATH: '/usr/bin', TOKEN: 'tok', OTHER: 'x' });
    const launch = await r.resolve(serverDef({ command: 'node', args: ['${userHome}/s.js'], env: { KEY: '${env:TOKEN}' } }));
    expect(launch).toEqual({ ok: true, value: expect.objectContaining({ args: ['/home/me/s.js'], env: { HOME: '/home/me', PATH: '/usr/bin', KEY: 'tok' }, secretValues: ['tok'] }) });
    expect(shells).toEqual([]);
  });

  it('passes the whole host environment when inheritEnv says so, read at each launch', async () => {
    let inherit = false;
    const { r } = resolver({ PATH: '/usr/bin', OTHER: 'x' }, { inheritEnv: () => inherit });
    const def = serverDef({ command: 'node' });
    expect((await r.resolve(def)).ok && (await r.resolve(def))).toMatchObject({ value: { env: { PATH: '/usr/bin' } } });
    inherit = true;
    expect(await r.resolve(def)).toMatchObject({ value: { env: { PATH: '/usr/bin', OTHER: 'x' } } });
  });

  it('asks the login shell for PATH once, only when the host has none', async () => {
    const { r, shells } = resolver({ SHELL: '/bin/zsh' });
    const def = serverDef({ command: 'node' });
    expect(await r.resolve(def)).toMatchObject({ value: { env: { PATH: '/login/bin:/usr/bin', SHELL: '/bin/zsh' } } });
    expect(await r.resolve(def)).toMatchObject({ value: { env: { PATH: '/login/bin:/usr/bin' } } });
    expect(shells).toEqual(['/bin/zsh']);
    const { r: r2, shells: shells2 } = resolver({});
    await r2.resolve(def);
    expect(shells2).toEqual(['/bin/sh']);
  });

  it('leaves HTTP launches and failures as resolveServerLaunch gives them', async () => {
    const { r, shells } = resolver({});
    expect(await r.resolve(serverDef({ type: 'http', url: 'http://127.0.0.1:1/mcp' }))).toMatchObject({ ok: true, value: { type: 'http', env: {} } });
    expect(await r.resolve(serverDef({ command: 'node', env: { K: '${input:nope}' } }))).toMatchObject({ ok: false });
    expect(await r.resolve({ ...serverDef({ command: 'node' }), problem: 'broken entry' })).toEqual({ ok: false, error: 'broken entry' });
    expect(shells).toEqual([]);
  });

  it('gives hooks the host environment as servers get it', () => {
    expect(resolver({ HOME: '/h', SECRET: 's', PATH: '/p' }).r.hostEnvironment()).toEqual({ HOME: '/h', PATH: '/p' });
    expect(resolver({ HOME: '/h', SECRET: 's' }, { inheritEnv: () => true }).r.hostEnvironment()).toEqual({ HOME: '/h', SECRET: 's' });
  });
});
