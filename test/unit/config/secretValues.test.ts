import { describe, expect, it } from 'vitest';
import { resolveVariables } from '../../../src/core/config/resolveVariables';
import type { McpServerDefinition } from '../../../src/core/config/types';

const base: McpServerDefinition = {
  name: 's', type: 'stdio', command: 'srv', args: [], env: {}, headers: {}, disabled: false, inputs: [],
  origin: { source: 'vscode', file: '/w/.vscode/mcp.json', jsonPath: 'servers.s' },
};

/** What `${env:NAME}` of each name resolves to, and which of those values count as secrets. */
async function secretsOf(env: Record<string, string>): Promise<string[]> {
  const def = { ...base, args: Object.keys(env).map((name) => `\${env:${name}}`) };
  const result = await resolveVariables(def, { env, userHome: '/home/me' });
  if (!result.ok) throw new Error(result.error);
  expect(def.args.map(result.value)).toEqual(Object.values(env));
  return [...result.value.secretValues];
}

describe('which substituted values are secrets', () => {
  it('never treats variables that name places, the user or the terminal as secrets', async () => {
    const names = [
      'HOME', 'USER', 'USERNAME', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'TERM', 'TMPDIR', 'TEMP', 'TMP', 'LANG', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA',
      'HOMEDRIVE', 'HOMEPATH', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR', 'NODE_ENV',
    ];
    // Each value distinct, so a single name taken for a secret shows up on its own.
    const env = Object.fromEntries(names.map((name) => [name, `value-of-${name.toLowerCase()}`]));
    expect(await secretsOf(env)).toEqual([]);
  });

  it('knows those names in any case, as Windows spells them', async () => {
    expect(await secretsOf({ Path: 'C:\\Windows', UserProfile: 'C:\\Users\\me' })).toEqual([]);
  });

  it('treats a value typed in for an input as a secret', async () => {
    const def = { ...base, args: ['--key=${input:key}'], inputs: [{ id: 'key', type: 'promptString', password: true }] };
    const inputResolver = { resolveInput: async () => 'typed-in' };
    const result = await resolveVariables(def, { env: {}, userHome: '/home/me', inputResolver });
    if (!result.ok) throw new Error(result.error);
    expect(result.value('--key=${input:key}')).toBe('--key=typed-in');
    expect([...result.value.secretValues]).toEqual(['typed-in']);
  });

  it('treats any other variable from the environment as a secret, but not an empty one', async () => {
    expect(await secretsOf({ GITHUB_TOKEN: 'ghp_x', HOSTNAME: 'box', EMPTY: '' })).toEqual(['ghp_x', 'box']);
  });
});
