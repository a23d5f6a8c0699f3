import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHookCommand, type HookCommandOptions } from '../../../src/core/hooks/runHookCommand';
import { isRunning } from '../../support/running';

// Real `/bin/sh -c` commands: running them is what this code does.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-hookcmd-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function options(extra: Partial<HookCommandOptions> = {}): HookCommandOptions {
  let t = 100;
  return { cwd: dir, env, input: '{"hello":1}', timeoutMs: 10_000, killGraceMs: 100, now: () => (t += 5), ...extra };
}

describe('runHookCommand', () => {
  it('gives the command its input on stdin and keeps what it wrote and how it exited', async () => {
    const run = await runHookCommand('cat; echo " to stdout"; echo problem >&2; exit 7', options());
    expect(run).toEqual({ exitCode: 7, signal: null, stdout: '{"hello":1} to stdout\n', stderr: 'problem\n', timedOut: false, cancelled: false, durationMs: 5 });
  });

  it('runs in the folder and with only the environment it is given', async () => {
    process.env.MCP_HARNESS_SHOULD_NOT_LEAK = 'x';
    try {
      const run = await runHookCommand('echo "$PWD ${MCP_HARNESS_SHOULD_NOT_LEAK:-clean} $ONLY"', options({ env: { ...env, ONLY: 'given' } }));
      expect(run.stdout.trim()).toBe(`${fs.realpathSync(dir)} clean given`);
    } finally {
      delete process.env.MCP_HARNESS_SHOULD_NOT_LEAK;
    }
  });

  it('is fine with a command that does not read its input', async () => {
    const run = await runHookCommand('exit 0', options({ input: 'x'.repeat(1024 * 1024) }));
    expect(run).toMatchObject({ exitCode: 0, stdout: '', timedOut: false });
  });

  it('kills a command that runs past its time, with whatever it started', async () => {
    const pidFile = path.join(dir, 'bg.pid');
    const run = await runHookCommand(`sleep 30 & echo $! > ${pidFile}; sleep 30`, options({ timeoutMs: 300 }));
    expect(run).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: true, cancelled: false });
    await expect.poll(() => isRunning(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('ends a command when the call is cancelled, and does not start one already cancelled', async () => {
    const controller = new AbortController();
    const running = runHookCommand('sleep 30', options({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ exitCode: null, cancelled: true, timedOut: false });
    const before = new AbortController();
    before.abort();
    expect(await runHookCommand('echo never > never.txt', options({ signal: before.signal }))).toEqual({
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
      timedOut: false,
      cancelled: true,
      durationMs: 0,
    });
    expect(fs.existsSync(path.join(dir, 'never.txt'))).toBe(false);
  });

  it('kills a command that writes more than it may, keeping what came before the cap', async () => {
    const run = await runHookCommand('yes | head -c 100000; sleep 30', options({ maxOutputBytes: 1000 }));
    expect(run).toMatchObject({ exitCode: null, overflow: 'stdout', timedOut: false });
    expect(run.stdout.length).toBeLessThanOrEqual(1000);
    const err = await runHookCommand('yes >&2 | true; head -c 5000 /dev/zero >&2; sleep 30', options({ maxOutputBytes: 1000 }));
    expect(err).toMatchObject({ overflow: 'stderr' });
  });

  it('ends what a command left running in the background once it exits', async () => {
    const pidFile = path.join(dir, 'left.pid');
    const run = await runHookCommand(`sleep 30 > /dev/null 2>&1 & echo $! > ${pidFile}`, options());
    expect(run.exitCode).toBe(0);
    await expect.poll(() => isRunning(Number(fs.readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('says why a command could not start', async () => {
    const run = await runHookCommand('true', options({ cwd: path.join(dir, 'missing') }));
    expect(run.exitCode).toBeNull();
    expect(run.spawnError).toMatch(/ENOENT/);
    expect(run.durationMs).toBe(5);
  });

  it('measures its time with the clock it is given, or the process clock', async () => {
    const run = await runHookCommand('exit 0', { cwd: dir, env, input: '', timeoutMs: 10_000 });
    expect(run.durationMs).toBeGreaterThan(0);
    expect(run.durationMs).toBeLessThan(10_000);
  });

  it('keeps all of a large output written just before the exit, and exactly the cap', async () => {
    const big = await runHookCommand('head -c 300000 /dev/zero | tr "\\0" x', options({ killGraceMs: 30_000 }));
    expect(big).toMatchObject({ exitCode: 0 });
    expect(big.stdout).toHaveLength(300000);
    const exact = await runHookCommand('printf 12345', options({ maxOutputBytes: 5 }));
    expect(exact).toStrictEqual({ exitCode: 0, signal: null, stdout: '12345', stderr: '', timedOut: false, cancelled: false, durationMs: 5 });
  });
});
