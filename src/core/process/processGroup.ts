import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { GroupWatchdog } from './groupWatchdog';

/** How long to wait at each step of a shutdown before escalating. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 2000;

const POLL_MS = 25;

/**
 * Sends a signal to every process in the group led by `pid` (POSIX) or to the process tree
 * (Windows, where `taskkill /T` is the closest equivalent). Returns false when nothing was there.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals, platform = process.platform): boolean {
  if (platform === 'win32') {
    // taskkill has no graceful form for console processes; only the final step is meaningful.
    // Stryker disable next-line all: Windows only (what taskkill is asked cannot be seen here)
    if (signal === 'SIGKILL') {
      // Stryker disable next-line all: taskkill exists only on Windows; on Linux the attempt fails whatever its arguments
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    }
    return true;
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    // Gone (ESRCH), or a process in the group belongs to someone else (EPERM): try the leader
    // itself, which answers ESRCH in the first case. (EPERM needs another user's process in the
    // group, which a test cannot make.)
    // Stryker disable next-line all: see above
    try {
      // Stryker disable next-line all: see above
      process.kill(pid, signal);
      // Stryker disable next-line all: see above
      return true;
      // Stryker disable next-line all: see above
    } catch {
      // Stryker disable next-line all: see above
      return false;
    }
  }
}

/** Whether any process of the group led by `pid` is still alive. */
export function isProcessGroupAlive(pid: number, platform = process.platform): boolean {
  if (platform === 'win32') return isProcessAlive(pid);
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    return isPermissionError(err);
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isPermissionError(err);
  }
}

/** Resolves true when `check()` becomes false within `ms`, polling. */
export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (check()) {
    // Stryker disable next-line EqualityOperator: the same millisecond either way
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/**
 * Ends whatever is left of a process group once its leader is gone (grandchildren a server
 * started): SIGTERM, then SIGKILL after `graceMs`.
 */
export async function sweepProcessGroup(pid: number, graceMs: number, platform = process.platform): Promise<void> {
  // Stryker disable next-line all: Windows only (on Linux, what taskkill is asked cannot be seen)
  if (platform === 'win32') {
    // Stryker disable next-line all: see above
    signalProcessGroup(pid, 'SIGKILL', platform);
    return;
  }
  signalProcessGroup(pid, 'SIGTERM', platform);
  if (await waitUntil(() => isProcessGroupAlive(pid, platform), graceMs)) return;
  signalProcessGroup(pid, 'SIGKILL', platform);
  await waitUntil(() => isProcessGroupAlive(pid, platform), graceMs);
}

/** A process as /proc knows it: the start time tells it from a later process that got the same pid. */
export interface ProcessRef {
  readonly pid: number;
  readonly startTime: string;
}

/**
 * Every live descendant of `pid`, found through the parent links in `/proc/<pid>/stat` (Linux).
 * This reaches what left the process group (a child started `detached`, a daemon that called
 * setsid), which signalling the group does not. Empty where there is no /proc.
 */
export function findDescendants(pid: number, procDir = '/proc'): ProcessRef[] {
  const children = new Map<number, ProcessRef[]>();
  let names: string[];
  try {
    names = fs.readdirSync(procDir);
  } catch {
    return [];
  }
  for (const name of names) {
    // Stryker disable next-line all: only spares reads: a name that is not a number reads <procDir>/NaN/stat, which is not there
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name), procDir);
    if (!stat || stat.state === 'Z') continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push({ pid: Number(name), startTime: stat.startTime });
    children.set(stat.ppid, siblings);
  }
  const found: ProcessRef[] = [];
  const queue = [pid];
  const seen = new Set(queue);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * Every live process (other than this one) whose environment holds `entry` ("NAME=value"), from
 * `/proc/<pid>/environ` (Linux). Children inherit the environment, so a unique entry given to a
 * command finds what it started even after those processes left its group and were re-parented
 * (a daemon that called setsid and whose parent exited). Only processes this user may read are
 * seen. Empty where there is no /proc, and for an entry that is not `NAME=value` with both parts
 * given: an empty string is in every environment's list, and whoever ends what this finds would end
 * every process this user may signal.
 */
export function findProcessesWithEnv(entry: string, procDir = '/proc'): ProcessRef[] {
  if (!/^[^=\0]+=[^\0]+$/.test(entry)) return [];
  let names: string[];
  try {
    names = fs.readdirSync(procDir);
  } catch {
    return [];
  }
  const found: ProcessRef[] = [];
  for (const name of names) {
    // Stryker disable next-line Regex: only spares reads: a name that is not a number has no stat at <procDir>/NaN
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`${procDir}/${name}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    // Stryker disable next-line all: a mutant here matches every process this user may read, and run_command's tests would then end them all (as root, the whole machine)
    if (!environ.split('\0').includes(entry)) continue;
    const stat = readStat(Number(name), procDir);
    if (stat && stat.state !== 'Z') found.push({ pid: Number(name), startTime: stat.startTime });
  }
  return found;
}

/** Whether `ref` still runs (same pid and start time, not a zombie). */
export function isSameProcessAlive(ref: ProcessRef, procDir = '/proc'): boolean {
  const stat = readStat(ref.pid, procDir);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === ref.startTime;
}

/** Ends the processes of `refs` that still run: SIGTERM, then SIGKILL after `graceMs`. */
export async function endProcesses(refs: readonly ProcessRef[], graceMs: number, procDir = '/proc'): Promise<void> {
  const alive = () => refs.filter((r) => isSameProcessAlive(r, procDir));
  const signal = (sig: NodeJS.Signals) => {
    for (const ref of alive()) {
      try {
        process.kill(ref.pid, sig);
      } catch {
        // Gone meanwhile, or not ours.
      }
    }
  };
  // Stryker disable next-line ConditionalExpression: only spares a wait: with nothing alive, nothing is signalled and the waits end at once
  if (alive().length === 0) return;
  signal('SIGTERM');
  if (await waitUntil(() => alive().length > 0, graceMs)) return;
  signal('SIGKILL');
  await waitUntil(() => alive().length > 0, graceMs);
}

function readStat(pid: number, procDir: string): { state: string; ppid: number; startTime: string } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(`${procDir}/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  if (!Number.isInteger(ppid) || fields[19] === undefined) return undefined;
  return { state: fields[0], ppid, startTime: fields[19] };
}

/** A signal refused (EPERM): the process is there but belongs to someone else. */
function isPermissionError(err: unknown): boolean {
  // Stryker disable next-line all: EPERM needs another user's process, which a test cannot make (and as root, which tests may run as, no signal is refused); every other failure here is ESRCH
  return (err as NodeJS.ErrnoException).code === 'EPERM';
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;
let watchdog: GroupWatchdog | undefined;

/**
 * Remembers a process group this process started. If the host process exits before the group was
 * shut down (an editor window closing without time to deactivate), the group is killed on the way
 * out: servers run detached and would otherwise outlive it. A host that dies without running its
 * exit hooks (SIGKILL, a crash) is covered on POSIX by the {@link GroupWatchdog}.
 */
export function trackProcessGroup(pid: number, platform = process.platform): void {
  liveGroups.add(pid);
  if (platform !== 'win32') (watchdog ??= new GroupWatchdog()).add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Stryker disable next-line all: runs as the host exits; tested through a host process that exits (processGroup.test.ts), where no mutant is active
  process.once('exit', () => {
    // Stryker disable next-line all: see above
    for (const group of liveGroups) signalProcessGroup(group, 'SIGKILL');
  });
}

/** Forgets a group once it is gone. */
export function untrackProcessGroup(pid: number): void {
  liveGroups.delete(pid);
  watchdog?.remove(pid);
}
