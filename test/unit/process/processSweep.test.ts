import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { GroupWatchdog } from '../../../src/core/process/groupWatchdog';
import {
  endProcesses,
  findDescendants,
  findProcessesWithEnv,
  isProcessAlive,
  isProcessGroupAlive,
  isSameProcessAlive,
  signalProcessGroup,
  sweepProcessGroup,
  trackProcessGroup,
  untrackProcessGroup,
  waitUntil,
} from '../../../src/core/process/processGroup';
import { isRunning } from '../../support/running';

// Real processes in real process groups: signalling them is what this code does.
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const STUBBORN = 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)';

/** A process group whose leader prints the pid of a member it started, then (with `leaderExits`) leaves. */
async function group(options: { memberIgnoresTerm?: boolean; leaderExits?: boolean; env?: Record<string, string> } = {}): Promise<{ leader: ChildProcess; member: number }> {
  const member = options.memberIgnoresTerm ? STUBBORN : 'setInterval(() => {}, 1000)';
  const script = `
    const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(member)}], { stdio: 'ignore' });
    console.log(c.pid);
    ${options.leaderExits ? 'setTimeout(() => process.exit(0), 10)' : 'setInterval(() => {}, 1000)'}`;
  const leader = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...options.env } });
  started.push(leader);
  const pid = await new Promise<number>((resolve) => leader.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
  return { leader, member: pid };
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

describe('process groups', () => {
  it('signals every process of a group, and says when nothing was there', async () => {
    const { leader, member } = await group();
    expect(isProcessGroupAlive(leader.pid!)).toBe(true);
    expect(signalProcessGroup(leader.pid!, 'SIGKILL')).toBe(true);
    await exited(leader);
    await expect.poll(() => isRunning(member)).toBe(false);
    if (!isProcessAlive(member)) {
      // Where nothing reaps orphans (a container without an init), the member stays a zombie of the group.
      expect(isProcessGroupAlive(leader.pid!)).toBe(false);
      expect(signalProcessGroup(leader.pid!, 'SIGKILL')).toBe(false);
    }
  });

  it('sweeps what a group leaves behind: SIGTERM first, SIGKILL for what ignores it', async () => {
    const polite = await group({ leaderExits: true });
    await exited(polite.leader);
    expect(isRunning(polite.member)).toBe(true);
    await sweepProcessGroup(polite.leader.pid!, 300);
    expect(isRunning(polite.member)).toBe(false);

    const stubborn = await group({ leaderExits: true, memberIgnoresTerm: true });
    await exited(stubborn.leader);
    await new Promise((r) => setTimeout(r, 100)); // let the member install its SIGTERM handler
    await sweepProcessGroup(stubborn.leader.pid!, 150);
    expect(isRunning(stubborn.member)).toBe(false);
  });

  it('on Windows, only the final step kills, through taskkill on the whole tree', async () => {
    const { leader, member } = await group();
    // taskkill does not exist here: the attempt must fail quietly, and nothing is signalled.
    expect(signalProcessGroup(leader.pid!, 'SIGTERM', 'win32')).toBe(true);
    expect(signalProcessGroup(leader.pid!, 'SIGKILL', 'win32')).toBe(true);
    await sweepProcessGroup(leader.pid!, 10, 'win32');
    await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(leader.pid!)).toBe(true);
    expect(isRunning(member)).toBe(true);
    // Windows has no groups to ask about: a member counts as alive by itself.
    expect(isProcessGroupAlive(member, 'win32')).toBe(true);
    expect(isProcessGroupAlive(member)).toBe(false);
  });

  it('finds nothing to signal, and no group alive, where a process has ended', async () => {
    const done = spawn(process.execPath, ['-e', ''], { detached: true, stdio: 'ignore' });
    await exited(done);
    expect(isProcessGroupAlive(done.pid!)).toBe(false);
    expect(isProcessAlive(done.pid!)).toBe(false);
    expect(signalProcessGroup(done.pid!, 'SIGTERM')).toBe(false);
    await sweepProcessGroup(done.pid!, 60_000);
  });

  it('waits until a condition clears, or says it did not within the time', async () => {
    let n = 0;
    expect(await waitUntil(() => ++n < 3, 1000)).toBe(true);
    expect(n).toBe(3);
    expect(await waitUntil(() => true, 30)).toBe(false);
    expect(await waitUntil(() => false, 0)).toBe(true);
  });

  it('ends listed processes that still run, escalating to SIGKILL, and leaves alone a reused pid', async () => {
    const stubborn = spawn(process.execPath, ['-e', `${STUBBORN}; console.log('ready')`], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(stubborn);
    await new Promise((resolve) => stubborn.stdout!.once('data', resolve));
    const ref = { pid: stubborn.pid!, startTime: readStart(stubborn.pid!) };
    expect(isSameProcessAlive(ref)).toBe(true);
    await endProcesses([{ pid: stubborn.pid!, startTime: 'another process' }], 50);
    expect(isProcessAlive(stubborn.pid!)).toBe(true);
    await endProcesses([ref], 100);
    await exited(stubborn);
    expect(stubborn.signalCode).toBe('SIGKILL');
    await endProcesses([ref], 60_000);
  });

  it('ends a process that heeds SIGTERM without waiting out the grace time', async () => {
    const polite = spawn(process.execPath, ['-e', "setInterval(() => {}, 1000); console.log('ready')"], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(polite);
    await new Promise((resolve) => polite.stdout!.once('data', resolve));
    const ref = { pid: polite.pid!, startTime: readStart(polite.pid!) };
    // A grace this long would run into the test's own time limit if it were waited out.
    await endProcesses([ref], 120_000);
    expect(isSameProcessAlive(ref)).toBe(false);
    await exited(polite);
    expect(polite.signalCode).toBe('SIGTERM');
  });

  it('finds the processes that carry an environment entry, even after they left the group', async () => {
    const entry = `MCP_HARNESS_TEST_TAG=${process.pid}-${Date.now()}`;
    const [name, value] = entry.split('=');
    const { leader, member } = await group({ env: { [name]: value }, leaderExits: true });
    await exited(leader);
    expect(findProcessesWithEnv(entry).map((r) => r.pid)).toEqual([member]);
    expect(findProcessesWithEnv(`${entry}-other`)).toEqual([]);
    expect(findProcessesWithEnv(entry, '/no/such/proc')).toEqual([]);
  });
});

describe('findProcessesWithEnv over a /proc it reads', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('skips zombies, unreadable entries, broken stat files and itself', () => {
    const proc = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-proc-'));
    dirs.push(proc);
    const add = (pid: number | string, environ: string[] | undefined, stat: string | undefined) => {
      fs.mkdirSync(path.join(proc, String(pid)));
      if (environ) fs.writeFileSync(path.join(proc, String(pid), 'environ'), environ.join('\0') + '\0');
      if (stat) fs.writeFileSync(path.join(proc, String(pid), 'stat'), stat);
    };
    const stat = (pid: number, state: string) => `${pid} (a b) ${state} 1 ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${5000 + pid} 0`;
    add(40, ['A=1', 'TAG=x'], stat(40, 'S'));
    add(41, ['TAG=x'], stat(41, 'Z'));
    add(42, undefined, stat(42, 'S'));
    add(43, ['TAG=x'], '43 (short) S 1');
    add(44, ['TAG=xy'], stat(44, 'S'));
    add('45x', ['TAG=x'], stat(45, 'S'));
    add('x46', ['TAG=x'], stat(46, 'S'));
    add(process.pid, ['TAG=x'], stat(process.pid, 'S'));
    add('self', ['TAG=x'], undefined);
    expect(findProcessesWithEnv('TAG=x', proc)).toEqual([{ pid: 40, startTime: '5040' }]);
  });
});

describe('GroupWatchdog', () => {
  it('starts its shell with the first group and is told of groups that are gone', async () => {
    const watchdog = new GroupWatchdog();
    watchdog.remove(1);
    expect(watchdog.pid).toBeUndefined();
    const { leader } = await group();
    watchdog.add(leader.pid!);
    const pid = watchdog.pid!;
    expect(isProcessAlive(pid)).toBe(true);
    watchdog.remove(leader.pid!);
    watchdog.add(leader.pid!);
    expect(watchdog.pid).toBe(pid);
    process.kill(pid, 'SIGKILL');
  });

  it('stays out of the way when there is no shell', async () => {
    const watchdog = new GroupWatchdog('/no/such/shell');
    watchdog.add(123);
    await expect.poll(() => watchdog.pid).toBeUndefined();
    watchdog.add(124);
    watchdog.remove(124);
    expect(watchdog.pid).toBeUndefined();
  });

  /** The watchdog shells this process started (their script begins with the trap). */
  const watchdogs = () =>
    fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((name) => {
        try {
          return fs.readFileSync(`/proc/${name}/cmdline`, 'latin1').includes("trap '' INT HUP") && fs.readFileSync(`/proc/${name}/stat`, 'latin1').split(') ')[1].split(' ')[1] === String(process.pid);
        } catch {
          return false;
        }
      });

  it('is what tracking a group starts (outside Windows), with one exit hook; forgetting a group leaves it alone', async () => {
    // Forgetting a group before anything was tracked is harmless.
    untrackProcessGroup(1);
    const before = watchdogs();
    const hooks = process.listeners('exit');
    const a = await group();
    const b = await group();
    trackProcessGroup(a.leader.pid!, 'win32');
    expect(watchdogs()).toEqual(before);
    trackProcessGroup(b.leader.pid!);
    const started = watchdogs().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    const added = process.listeners('exit').filter((l) => !hooks.includes(l));
    expect(added).toHaveLength(1);
    untrackProcessGroup(b.leader.pid!);
    expect(isProcessGroupAlive(b.leader.pid!)).toBe(true);
    // The exit hook kills what is still tracked, and only that.
    try {
      (added[0] as () => void)();
      await exited(a.leader);
      expect(isProcessGroupAlive(b.leader.pid!)).toBe(true);
    } finally {
      process.off('exit', added[0]);
      process.kill(Number(started[0]), 'SIGKILL');
    }
  });
});

function readStart(pid: number): string {
  const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

describe('findDescendants over a /proc it reads', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('follows parent links once each, even around a loop, and reads only process folders', () => {
    const proc = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-loop-'));
    dirs.push(proc);
    const add = (name: string, pid: number, ppid: number) => {
      fs.mkdirSync(path.join(proc, name));
      fs.writeFileSync(path.join(proc, name, 'stat'), `${pid} (x) S ${ppid} ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ${700 + pid} 0`);
    };
    add('50', 50, 51);
    add('51', 51, 50);
    add('52', 52, 51);
    add('53x', 53, 50);
    add('x54', 54, 50);
    expect(findDescendants(50, proc).map((r) => r.pid).sort()).toEqual([51, 52]);
  });
});

describe('GroupWatchdog, as the system sees it', () => {
  /** Fields of /proc/<pid>/stat after the command name. */
  const stat = (pid: number) => {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  };

  it('runs in a process group of its own, with only PATH, reading a pipe and writing nowhere', async () => {
    const watchdog = new GroupWatchdog();
    const { leader } = await group();
    watchdog.add(leader.pid!);
    const pid = watchdog.pid!;
    try {
      expect(Number(stat(pid)[2])).toBe(pid);
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').filter(Boolean);
      expect(environ.map((e) => e.split('=')[0])).toEqual(['PATH']);
      expect(fs.readlinkSync(`/proc/${pid}/fd/0`)).toMatch(/^(pipe|socket):/);
      expect(fs.readlinkSync(`/proc/${pid}/fd/1`)).toBe('/dev/null');
      expect(fs.readlinkSync(`/proc/${pid}/fd/2`)).toBe('/dev/null');
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  /** This process's open descriptors, as `fd -> what it links to` (the host's end of a pipe to a child is a socket). */
  const ownFds = () =>
    fs.readdirSync('/proc/self/fd').map((fd) => {
      try {
        return `${fd} -> ${fs.readlinkSync(`/proc/self/fd/${fd}`)}`;
      } catch {
        return fd;
      }
    });

  it('keeps quiet when its shell is gone and it is told of more groups', async () => {
    const watchdog = new GroupWatchdog();
    const before = ownFds();
    watchdog.add(1234567);
    const pid = watchdog.pid!;
    const pipe = ownFds().filter((fd) => !before.includes(fd) && fd.includes('socket:'));
    expect(pipe).toHaveLength(1);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => isRunning(pid)).toBe(false);
    // Writing to a pipe nobody reads fails (EPIPE); the failure closes the pipe and goes no further.
    for (let i = 0; i < 5; i++) expect(() => watchdog.add(1234568 + i)).not.toThrow();
    watchdog.remove(1234567);
    await expect.poll(() => ownFds()).not.toContain(pipe[0]);
    watchdog.add(1);
    expect(watchdog.pid).toBe(pid);
  });

  it('writes each group added (+) and removed (-) on a line to its shell, started with -c and only PATH', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'watchdog-'));
    const shell = path.join(dir, 'sh');
    // A shell that records how it was started and what it is told.
    fs.writeFileSync(shell, `#!/bin/sh\nprintf '%s' "$1" > '${dir}/args'\nenv > '${dir}/env'\nexec cat > '${dir}/input'\n`, { mode: 0o755 });
    const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : undefined);
    const watchdog = new GroupWatchdog(shell);
    try {
      watchdog.add(41);
      watchdog.add(42);
      watchdog.remove(41);
      await expect.poll(() => read('input')).toBe('+41\n+42\n-41\n');
      expect(read('args')).toBe('-c');
      const env = read('env')!.split('\n').filter((l) => l && !/^(PWD|SHLVL|_)=/.test(l));
      expect(env).toEqual([`PATH=${process.env.PATH}`]);
    } finally {
      process.kill(watchdog.pid!, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives its shell a PATH of the usual folders when the host has none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'watchdog-'));
    const shell = path.join(dir, 'sh');
    fs.writeFileSync(shell, `#!/bin/sh\nprintf '%s' "$PATH" > '${dir}/path'\nexec cat > /dev/null\n`, { mode: 0o755 });
    const saved = process.env.PATH;
    delete process.env.PATH;
    const watchdog = new GroupWatchdog(shell);
    try {
      watchdog.add(1);
    } finally {
      process.env.PATH = saved;
    }
    try {
      await expect.poll(() => (fs.existsSync(path.join(dir, 'path')) ? fs.readFileSync(path.join(dir, 'path'), 'utf8') : undefined)).toBe('/usr/bin:/bin');
    } finally {
      process.kill(watchdog.pid!, 'SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives up for good when its shell cannot even be asked to start', () => {
    // A path with a NUL byte is refused before any process is made (the error is thrown, not emitted).
    const watchdog = new GroupWatchdog('/bin/sh\0');
    expect(() => watchdog.add(1)).not.toThrow();
    expect(() => watchdog.add(2)).not.toThrow();
    expect(watchdog.pid).toBeUndefined();
  });
});
