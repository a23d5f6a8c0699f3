import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeSandboxPolicy } from '../../../src/core/process/sandbox/sandboxPolicy';
import { sandboxLaunch } from '../../../src/core/sandboxLaunch';
import { definition, launchOf } from '../../support/definitions';

// What the sandbox needs on Linux, as executables on PATH (they are never run), and a launcher file.
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-sandbox-')));
const launcher = path.join(dir, 'sandbox-launcher.mjs');
beforeAll(() => {
  for (const tool of ['bwrap', 'socat', 'rg', 'sandbox-exec']) fs.writeFileSync(path.join(dir, tool), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(launcher, '');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

const launched = async (entry: Parameters<typeof definition>[1]) => {
  const def = definition('boxed', entry);
  const launch = await launchOf(def);
  if (!launch.ok) throw new Error(launch.error);
  return { def, launch: launch.value };
};

describe.skipIf(process.platform !== 'linux' && process.platform !== 'darwin')('the launch of a sandboxed server', () => {
  it('runs the same command under the launcher, with the policy the entry asks for and every folder readable', async () => {
    vi.stubEnv('PATH', dir);
    const { def, launch } = await launched({ command: 'my-server', args: ['--port', '1'], env: { TOKEN: 't' }, cwd: dir, workspaceFolder: '/w/own', sandbox: { network: { allowedDomains: ['api.example.com'] } } });
    const result = sandboxLaunch(def, launch, { workspaceFolders: ['/w/first'], userHome: '/home/someone', launcherPath: launcher });
    if (!result.ok) throw new Error(result.error);
    const [launcherArg, policyJson, dashes, ...rest] = result.value.launch.args;
    expect([launcherArg, dashes, rest]).toEqual([launcher, '--', ['my-server', '--port', '1']]);
    const policy = JSON.parse(policyJson!);
    expect(policy.filesystem.allowRead).toEqual(expect.arrayContaining(['/w/first', '/w/own', dir]));
    expect(policy.filesystem.denyRead).toContain('/home/someone');
    expect(policy.network.allowedDomains).toEqual(['api.example.com']);
    expect(result.value.launch).toMatchObject({ type: 'stdio', cwd: dir, env: { TOKEN: 't' } });
    expect(result.value.description).toBe(describeSandboxPolicy(policy));
  });

  it('reads only the host folders when the entry names none of its own, and no network when it asks for none', async () => {
    vi.stubEnv('PATH', dir);
    const { def, launch } = await launched({ command: 'my-server', cwd: dir, sandbox: {} });
    const result = sandboxLaunch(def, launch, { workspaceFolders: [], launcherPath: launcher });
    if (!result.ok) throw new Error(result.error);
    const policy = JSON.parse(result.value.launch.args[1]!);
    expect(policy.filesystem.allowRead).toEqual([dir]);
    expect(policy.network.allowedDomains).toEqual([]);
  });

  it('refuses to start where the sandbox cannot run, naming the launcher it looked for', async () => {
    vi.stubEnv('PATH', dir);
    const { def, launch } = await launched({ command: 'my-server', sandbox: {} });
    const expected = path.resolve(__dirname, '../../../src/core/sandbox-launcher.mjs');
    expect(sandboxLaunch(def, launch, { workspaceFolders: [] })).toEqual({
      ok: false,
      error: `"sandbox" is set and the sandbox launcher is missing (${expected}); reinstall MCP Harness; the server is not started (it never runs unsandboxed)`,
    });
    vi.stubEnv('PATH', path.join(dir, 'nothing-here'));
    const missing = sandboxLaunch(def, launch, { workspaceFolders: [], launcherPath: launcher });
    expect(missing).toMatchObject({ ok: false, error: expect.stringMatching(/^"sandbox" is set and sandboxing needs .+; the server is not started \(it never runs unsandboxed\)$/) });
  });
});
