import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxCommand, type SandboxCommand, type SandboxLaunchOptions } from '../../../src/core/process/sandbox/sandboxLaunch';
import { buildSandboxPolicy, sandboxUnavailableReason } from '../../../src/core/process/sandbox/sandboxPolicy';

// Real files in a temporary folder: the launcher must exist, and the command is looked up on PATH.
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-sandbox-launch-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function executable(relative: string): string {
  const target = path.join(root, relative);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, '#!/bin/sh\n');
  fs.chmodSync(target, 0o755);
  return target;
}

const launcherPath = executable('dist/sandbox-launcher.mjs');
executable('pkg/bin/tool');
const toolsBin = path.join(root, 'system', 'bin');
for (const name of ['bwrap', 'socat', 'rg']) executable(`system/bin/${name}`);
const emptyBin = path.join(root, 'empty');
fs.mkdirSync(emptyBin);

const workspace = path.join(root, 'ws');
const context = { workspaceFolders: [workspace], userHome: root };
const launch: SandboxCommand = { command: 'tool', args: ['serve', '--port=0'], env: { PATH: path.join(root, 'pkg', 'bin') }, cwd: workspace };
const options: SandboxLaunchOptions = { launcherPath, nodePath: '/opt/node/bin/node', platform: 'linux', hasCommand: () => true };

const versions = process.versions as Record<string, string | undefined>;
const hostElectron = versions.electron;
afterEach(() => {
  if (hostElectron === undefined) delete versions.electron;
  else versions.electron = hostElectron;
  vi.unstubAllEnvs();
});

describe.skipIf(process.platform === 'win32')('sandboxCommand', () => {
  it('puts the command under the launcher with the policy as JSON, reading its install folder', () => {
    const result = sandboxCommand(launch, { network: { allowedDomains: ['api.example.com'] } }, context, options);
    const policy = buildSandboxPolicy(
      { network: { allowedDomains: ['api.example.com'] } },
      { workspaceFolders: [workspace], cwd: workspace, userHome: root, commandRoot: path.join(root, 'pkg') },
    );
    expect(result).toEqual({
      ok: true,
      value: {
        policy,
        launch: { command: '/opt/node/bin/node', args: [launcherPath, JSON.stringify(policy), '--', 'tool', 'serve', '--port=0'], env: launch.env, cwd: workspace },
      },
    });
  });

  it('reads no install folder for a command that is not on its PATH', () => {
    const result = sandboxCommand({ ...launch, command: 'elsewhere' }, {}, context, options);
    expect(result.ok && result.value.policy.filesystem.allowRead).toEqual([workspace]);
  });

  it('takes paths from the host\'s working directory when the command has none', () => {
    const result = sandboxCommand({ ...launch, command: 'elsewhere', cwd: undefined }, { filesystem: { allowWrite: ['out'] } }, context, options);
    expect(result.ok && result.value.policy.filesystem).toMatchObject({ allowRead: [workspace, process.cwd()], allowWrite: [path.join(process.cwd(), 'out')] });
    expect(result.ok && result.value.launch.cwd).toBeUndefined();
  });

  it('fails with the reason, and runs nothing, where the platform cannot sandbox', () => {
    expect(sandboxCommand(launch, {}, context, { ...options, platform: 'win32' })).toEqual({
      ok: false,
      error: 'sandboxing is not available on Windows (only Linux and macOS)',
    });
  });

  it('judges the platform it runs on when none is given', () => {
    const result = sandboxCommand(launch, {}, context, { ...options, platform: undefined, hasCommand: () => false });
    expect(result).toEqual({ ok: false, error: sandboxUnavailableReason(process.platform, () => false) });
  });

  it('looks for the sandbox tools on the host\'s PATH by default', () => {
    vi.stubEnv('PATH', toolsBin);
    expect(sandboxCommand(launch, {}, context, { ...options, hasCommand: undefined }).ok).toBe(true);
    vi.stubEnv('PATH', emptyBin);
    expect(sandboxCommand(launch, {}, context, { ...options, hasCommand: undefined })).toEqual({
      ok: false,
      error: 'sandboxing needs bubblewrap, socat, ripgrep, which are not installed (apt-get install bubblewrap socat ripgrep)',
    });
  });

  it('fails when the launcher is missing', () => {
    const missing = path.join(root, 'dist', 'gone.mjs');
    expect(sandboxCommand(launch, {}, context, { ...options, launcherPath: missing })).toEqual({
      ok: false,
      error: `the sandbox launcher is missing (${missing}); reinstall MCP Harness`,
    });
  });

  it('runs the launcher with this process\'s Node and the command\'s own environment by default', () => {
    delete versions.electron;
    const result = sandboxCommand(launch, {}, context, { ...options, nodePath: undefined });
    expect(result.ok && result.value.launch.command).toBe(process.execPath);
    expect(result.ok && result.value.launch.env).toEqual(launch.env);
  });

  it('under Electron, runs its executable as Node', () => {
    versions.electron = '30.0.0';
    const result = sandboxCommand(launch, {}, context, { ...options, nodePath: undefined });
    expect(result.ok && result.value.launch).toMatchObject({ command: process.execPath, env: { ...launch.env, ELECTRON_RUN_AS_NODE: '1' } });
  });

  it('under Electron, leaves the environment alone when another Node is given', () => {
    versions.electron = '30.0.0';
    const result = sandboxCommand(launch, {}, context, options);
    expect(result.ok && result.value.launch).toMatchObject({ command: '/opt/node/bin/node', env: launch.env });
    expect(result.ok && result.value.launch.env).not.toHaveProperty('ELECTRON_RUN_AS_NODE');
  });
});
