import { spawn } from 'node:child_process';

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
    if (signal === 'SIGKILL') {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => undefined);
    }
    return true;
  }
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    if (isErrno(err, 'ESRCH')) return false;
    // EPERM: a process in the group belongs to someone else; fall back to the leader itself.
    try {
      process.kill(pid, signal);
      return true;
    } catch {
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
    return isErrno(err, 'EPERM');
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isErrno(err, 'EPERM');
  }
}

/** Resolves true when `check()` becomes false within `ms`, polling. */
export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (check()) {
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
  if (platform === 'win32') {
    signalProcessGroup(pid, 'SIGKILL', platform);
    return;
  }
  if (!isProcessGroupAlive(pid, platform)) return;
  signalProcessGroup(pid, 'SIGTERM', platform);
  if (await waitUntil(() => isProcessGroupAlive(pid, platform), graceMs)) return;
  signalProcessGroup(pid, 'SIGKILL', platform);
  await waitUntil(() => isProcessGroupAlive(pid, platform), graceMs);
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remembers a process group this process started. If the host process exits before the group was
 * shut down (an editor window closing without time to deactivate), the group is killed on the way
 * out: servers run detached and would otherwise outlive it.
 */
export function trackProcessGroup(pid: number, platform = process.platform): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalProcessGroup(group, 'SIGKILL', platform);
  });
}

/** Forgets a group once it is gone. */
export function untrackProcessGroup(pid: number): void {
  liveGroups.delete(pid);
}
